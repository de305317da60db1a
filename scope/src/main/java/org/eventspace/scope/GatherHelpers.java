package org.eventspace.scope;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.ManyToManyConcurrentArrayQueue;
import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.SpinYieldPark;

/**
 * The helper threads of one {@code par:N} gather wrapper (EventSpace paper §4.2: "a given number of helper threads
 * should be started for the wrapper. The helper threads allow parallel reads ... on remote PastSet buffers").
 * Each helper is an Agrona {@link Agent} whose duty cycle takes a child from a bounded hand-off queue and calls
 * it; between rounds it backs off to parking, and the gather unparks it when it queues work, so an idle scope
 * costs a wake-up every {@value #MAX_PARK_MS} ms per helper at most.
 *
 * <p>Not thread-safe: {@link #exchange} and {@link #close} are called by the gather wrapper's one caller at a
 * time. Helpers are started when the scope opens (INIT) and stopped when it closes (FIN).
 */
final class GatherHelpers {
    static final long MAX_PARK_MS = 100;
    /** How long {@link #close} waits for each helper to end before leaving it (a daemon) behind. */
    static final long CLOSE_WAIT_MS = 2_000;

    private final String gather;
    private final ManyToManyConcurrentArrayQueue<ScopeChild> queue;
    private final List<Helper> helpers = new ArrayList<>();
    private final List<AgentRunner> runners = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();

    /** Starts {@code count} helpers for a gather of {@code children} children. */
    GatherHelpers(String gather, int count, int children) {
        this.gather = gather;
        this.queue = new ManyToManyConcurrentArrayQueue<>(Math.max(2, children));
        ErrorHandler errors = e -> {
            if (!(e instanceof AgentTerminationException)) {
                System.err.println("es-scope " + gather + ": helper failed outside a child call: " + e);
            }
        };
        for (int i = 0; i < count; i++) {
            Helper helper = new Helper("es-scope-" + gather + "-helper-" + i, queue);
            AgentRunner runner = new AgentRunner(SpinYieldPark.agentIdle(64, 16, TimeUnit.MICROSECONDS.toNanos(1),
                    TimeUnit.MILLISECONDS.toNanos(MAX_PARK_MS)), errors, null, helper);
            Thread thread = AgentRunner.startOnThread(runner, r -> {
                Thread t = new Thread(r, helper.roleName());
                t.setDaemon(true);
                return t;
            });
            helpers.add(helper);
            runners.add(runner);
            threads.add(thread);
        }
    }

    int count() {
        return helpers.size();
    }

    /**
     * Calls every child of {@code children} on the helpers and waits until all answered or {@code deadline}
     * ({@link System#nanoTime()}) passed.
     *
     * @throws CommException naming the first child (in gather order) that failed or did not answer in time, or
     *                       that is still busy with an earlier round that timed out.
     */
    void exchange(ScopeChild[] children, long deadline, long timeoutNanos) {
        for (ScopeChild c : children) {
            if (c.busy()) {
                throw new CommException("scope gather " + gather + ": child " + c.name + " on host " + c.hostName
                        + " is still busy with an earlier round that timed out");
            }
        }
        ScopeChild.Batch batch = new ScopeChild.Batch(children.length, Thread.currentThread());
        for (ScopeChild c : children) {
            c.handOff(batch);
            if (!queue.offer(c)) {
                throw new IllegalStateException("scope gather " + gather + ": hand-off queue of capacity " + queue.capacity()
                        + " is full with " + children.length + " children");
            }
        }
        for (Thread t : threads) {
            LockSupport.unpark(t);
        }
        // The last helper to finish unparks this thread (Batch), so it parks to the deadline without polling.
        while (!batch.finished()) {
            if (!SpinYieldPark.park(this, deadline, SpinYieldPark.UNTIL_DEADLINE)) {
                break;
            }
        }
        for (ScopeChild c : children) {
            if (c.busy()) {
                // Still queued or still running: it stays busy, and the next round fails at once on it, until its
                // helper is done with it.
                throw new CommException("scope gather " + gather + ": child " + c.name + " on host " + c.hostName
                        + " gave no answer within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms (gather par:"
                        + helpers.size() + ")");
            }
            RuntimeException f = c.failure();
            if (f != null) {
                throw ScopeGather.childFailed(gather, c, f);
            }
        }
    }

    /**
     * Stops every helper: each ends after its current child call. Waits up to {@value #CLOSE_WAIT_MS} ms for each.
     *
     * @return the names of helpers still running (stuck in a child call); empty normally.
     */
    List<String> close() {
        for (Helper h : helpers) {
            h.closing = true;
        }
        for (Thread t : threads) {
            LockSupport.unpark(t);
        }
        List<String> stuck = new ArrayList<>();
        for (int i = 0; i < threads.size(); i++) {
            Thread t = threads.get(i);
            try {
                t.join(CLOSE_WAIT_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (t.isAlive()) {
                stuck.add(t.getName());
            } else {
                runners.get(i).close();
            }
        }
        return stuck;
    }

    /** One helper's duty cycle: take a child off the hand-off queue and call it. */
    private static final class Helper implements Agent {
        private final String role;
        private final ManyToManyConcurrentArrayQueue<ScopeChild> queue;
        volatile boolean closing;

        Helper(String role, ManyToManyConcurrentArrayQueue<ScopeChild> queue) {
            this.role = role;
            this.queue = queue;
        }

        @Override
        public int doWork() {
            if (closing) {
                throw new AgentTerminationException();
            }
            ScopeChild child = queue.poll();
            if (child == null) {
                return 0;
            }
            child.runForHelper();
            return 1;
        }

        @Override
        public String roleName() {
            return role;
        }
    }
}
