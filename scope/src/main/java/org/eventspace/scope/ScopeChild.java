package org.eventspace.scope;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.Wrapper;

/**
 * One child of a gather wrapper: the wrapper to call (the child itself on the same host, a proxy of the child's
 * hop on another), the message the gather reuses for it every round, and, under {@code par:N}, the state a
 * helper thread hands back.
 *
 * <p>Called by one thread at a time: the gather's thread, or the one helper that took it from the hand-off
 * queue. {@link #busy} is the hand-off: set by the gather before it queues the child, cleared by the helper
 * after the call (a volatile write after the failure is stored), so the gather reads the failure only after it
 * saw the child idle again.
 */
final class ScopeChild {
    final int id;
    final String name;
    final String hostName;
    final Message message = new Message(64);
    private Wrapper target;
    private volatile boolean busy;
    private RuntimeException failure;
    private Batch batch;

    ScopeChild(int id, String name, String hostName, Wrapper target) {
        this.id = id;
        this.name = name;
        this.hostName = hostName;
        this.target = target;
    }

    boolean resolved() {
        return target != null;
    }

    void resolve(Wrapper wrapper) {
        this.target = wrapper;
    }

    /** Calls the child in this thread; a failure propagates. */
    void call() {
        target.call(message);
    }

    boolean busy() {
        return busy;
    }

    /** The gather, before it queues this child for a helper. */
    void handOff(Batch round) {
        failure = null;
        batch = round;
        busy = true;
    }

    /** A helper: runs the call, keeps its failure, and reports to the batch. */
    void runForHelper() {
        Batch round = batch;
        try {
            target.call(message);
        } catch (RuntimeException | Error e) {
            failure = e instanceof RuntimeException r ? r : new IllegalStateException(e.toString(), e);
        } finally {
            busy = false;
            round.done();
        }
    }

    /** The failure of the last hand-off, read after {@link #busy()} was seen false. */
    RuntimeException failure() {
        return failure;
    }

    /** The children of one gather round handed to helpers; the gather's thread waits on it. */
    static final class Batch {
        private final AtomicInteger remaining;
        private final Thread waiter;

        Batch(int children, Thread waiter) {
            this.remaining = new AtomicInteger(children);
            this.waiter = waiter;
        }

        void done() {
            if (remaining.decrementAndGet() == 0) {
                LockSupport.unpark(waiter);
            }
        }

        boolean finished() {
            return remaining.get() == 0;
        }
    }
}
