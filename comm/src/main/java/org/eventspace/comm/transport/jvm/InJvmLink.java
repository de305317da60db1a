package org.eventspace.comm.transport.jvm;

import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.Signal;
import org.eventspace.comm.path.SpinYieldPark;
import org.eventspace.comm.path.WaitPolicy;
import org.eventspace.comm.path.Wrapper;
import org.eventspace.comm.transport.Link;

/**
 * A hop between two simulated hosts of one JVM: the caller copies its message into the link, the link's own
 * service thread (standing for the thread that serves a TCP connection on the other host) runs the rest of
 * the path on that copy, and the caller copies the result back. Nothing is shared but the copy, so a
 * simulated host behaves as a real one would, minus the wire.
 *
 * <p>One caller at a time; the service thread is started by the constructor and ended by {@link #close()}.
 */
final class InJvmLink implements Link, Runnable {
    private final String name;
    private final Wrapper target;
    private final WaitPolicy policy;
    private final SpinYieldPark wait;
    private final Message request = new Message(1);
    private final Signal toServer = new Signal(1);
    private final Signal toClient = new Signal(1);
    private final Thread server;
    private volatile RuntimeException failure;
    private volatile boolean closed;
    private long exchanges;

    InJvmLink(String name, Wrapper target, WaitPolicy policy) {
        this.name = name;
        this.target = target;
        this.policy = policy;
        this.wait = new SpinYieldPark(policy);
        this.server = new Thread(this, "es-serve-" + name);
        server.setDaemon(true);
        server.start();
    }

    @Override
    public void exchange(Message message) {
        if (closed) {
            throw new CommException("hop " + name + " is closed");
        }
        request.copyFrom(message);
        long sent = ++exchanges;
        toServer.advance(sent);
        long deadline = policy.deadlineFromNow();
        long got = toClient.get();
        while (got != sent) {
            got = toClient.awaitChange(got, 0, wait, deadline);
            if (got != sent && System.nanoTime() - deadline >= 0 && server.isAlive() && !closed) {
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
        message.copyPayloadFrom(request);
    }

    @Override
    public void run() {
        long served = 0;
        while (!closed) {
            long seen = toServer.awaitChange(served, 0, wait, wait.deadlineFromNow());
            if (seen == served || closed) {
                // close() advances the signal only to wake us: the request buffer still holds the last
                // exchange, which must not be served a second time.
                continue;
            }
            try {
                target.call(request);
            } catch (RuntimeException e) {
                failure = e;
            }
            served = seen;
            toClient.advance(served);
        }
    }

    @Override
    public void close() {
        closed = true;
        toServer.advance(-1);
        try {
            server.join(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
