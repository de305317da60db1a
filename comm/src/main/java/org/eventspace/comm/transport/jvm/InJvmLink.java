package org.eventspace.comm.transport.jvm;

import java.time.Duration;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.Signal;
import org.eventspace.comm.path.SpinYieldPark;
import org.eventspace.comm.path.WaitPolicy;
import org.eventspace.comm.path.Wrapper;
import org.eventspace.comm.traffic.TrafficCounters;
import org.eventspace.comm.transport.AgentThreads;
import org.eventspace.comm.transport.Link;

/**
 * A hop between two simulated hosts of one JVM: the caller copies its message into the link, the link's own
 * service agent (standing for the thread that serves a TCP connection on the other host) runs the rest of
 * the path on that copy, and the caller copies the result back. Nothing is shared but the copy, so a
 * simulated host behaves as a real one would, minus the wire.
 *
 * <p>One caller at a time. The service agent (role {@code es-serve-<hop>}) runs on a thread of its own, started
 * by {@link #open} and ended by {@link #close()}; {@link #unstarted} leaves it to be stepped by hand.
 */
final class InJvmLink implements Link {
    /** How long {@link #close()} waits for the service thread. */
    private static final Duration CLOSE_BOUND = Duration.ofSeconds(1);

    private final String name;
    private final Wrapper target;
    private final WaitPolicy policy;
    private final SpinYieldPark wait;
    private final Message request = new Message(1);
    private final Signal toServer = new Signal(1);
    private final Signal toClient = new Signal(1);
    private final Service service = new Service();
    private final AgentRunner runner;
    /** Counts what the caller's host hands to this hop and gets back (ibprof: where the bytes leave). */
    private final TrafficCounters.Channel callerTraffic;
    /** Counts what the serving host takes off this hop and answers. */
    private final TrafficCounters.Channel serverTraffic;
    private volatile RuntimeException failure;
    private volatile boolean closed;
    private long exchanges;

    private InJvmLink(String name, Wrapper target, WaitPolicy policy, boolean start, TrafficCounters.Channel sent,
                      TrafficCounters.Channel served) {
        this.name = name;
        this.callerTraffic = sent;
        this.serverTraffic = served;
        this.target = target;
        this.policy = policy;
        this.wait = new SpinYieldPark(policy);
        // The duty cycle waits in the signal itself (see Service), so the runner's idle strategy has nothing to add.
        this.runner = start ? AgentThreads.start(service, new NoOpIdleStrategy()) : null;
    }

    /** A link whose service agent runs on its own thread, named {@code es-serve-<name>}. */
    static InJvmLink open(String name, Wrapper target, WaitPolicy policy) {
        return open(name, target, policy, TrafficCounters.Channel.NONE, TrafficCounters.Channel.NONE);
    }

    /** As {@link #open(String, Wrapper, WaitPolicy)}, counting the hop's traffic at both ends. */
    static InJvmLink open(String name, Wrapper target, WaitPolicy policy, TrafficCounters.Channel sent,
                          TrafficCounters.Channel served) {
        return new InJvmLink(name, target, policy, true, sent, served);
    }

    /** A link whose service agent nobody runs: a test steps {@link #service()} by hand. */
    static InJvmLink unstarted(String name, Wrapper target, WaitPolicy policy) {
        return new InJvmLink(name, target, policy, false, TrafficCounters.Channel.NONE, TrafficCounters.Channel.NONE);
    }

    /** The link's service agent. */
    Agent service() {
        return service;
    }

    @Override
    public void exchange(Message message) {
        if (closed) {
            throw new CommException("hop " + name + " is closed");
        }
        request.copyFrom(message);
        callerTraffic.request(request);
        long sent = ++exchanges;
        toServer.advance(sent);
        long deadline = policy.deadlineFromNow();
        long got = toClient.get();
        while (got != sent) {
            got = toClient.awaitChange(got, 0, wait, deadline);
            if (got != sent && System.nanoTime() - deadline >= 0 && serviceAlive() && !closed) {
                // The service thread has the request and runs the rest of the path, whose greds keep their own
                // timeouts: it will answer with the result or with their failure. Giving up here first would
                // replace the failure that names the stalled gred with "no reply".
                deadline = policy.deadlineFromNow();
                continue;
            }
            if (got != sent && System.nanoTime() - deadline >= 0) {
                throw new CommException("hop " + name + ": no reply within " + policy.timeoutNanos() / 1_000_000 + " ms");
            }
        }
        RuntimeException f = failure;
        if (f != null) {
            failure = null;
            throw new CommException("hop " + name + " failed on the serving host: " + f.getMessage(), f);
        }
        callerTraffic.reply(request);
        message.copyPayloadFrom(request);
    }

    private boolean serviceAlive() {
        Thread t = runner == null ? null : runner.thread();
        return t != null && t != AgentRunner.TOMBSTONE && t.isAlive();
    }

    /**
     * The serving side's duty cycle: wait for the next request, run the rest of the path on it, answer.
     *
     * <p>The duty cycle blocks, by design: it waits in {@link Signal#awaitChange} (spin, yield, then park
     * registered with the signal) so that the caller's {@code advance} unparks it at once. An idle strategy parks
     * blind for a fixed time and would add its park to every hand-off that reaches the park phase. The wait is
     * bounded by the policy's timeout (a duty cycle that timed out did no work and returns 0, and the no-op idle
     * strategy starts the next), and {@link #close()} advances the signal to end it at once.
     */
    private final class Service implements Agent {
        private long served;

        @Override
        public String roleName() {
            return "es-serve-" + name;
        }

        @Override
        public int doWork() {
            if (closed) {
                throw new AgentTerminationException();
            }
            long seen = toServer.awaitChange(served, 0, wait, wait.deadlineFromNow());
            if (seen == served || closed) {
                // close() advances the signal only to wake us: the request buffer still holds the last
                // exchange, which must not be served a second time.
                return 0;
            }
            try {
                serverTraffic.request(request);
                target.call(request);
                serverTraffic.reply(request);
            } catch (RuntimeException e) {
                failure = e;
            }
            served = seen;
            toClient.advance(served);
            return 1;
        }
    }

    @Override
    public void close() {
        closed = true;
        toServer.advance(-1);
        if (runner != null) {
            AgentThreads.awaitEnd(runner, CLOSE_BOUND);
        }
    }
}
