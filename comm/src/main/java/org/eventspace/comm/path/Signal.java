package org.eventspace.comm.path;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/**
 * A volatile counter that threads wait on until it changes: the release edge of a gred and of every
 * hand-off between a path thread and a service thread.
 *
 * <p>Up to {@code waiters} threads may wait at once, each with its own index; any thread may {@link #advance}.
 * A waiter that parks registers itself first and re-checks the value afterwards, and {@link #advance} writes
 * the value before it looks for parked threads, so no wake-up is lost. Waiting allocates nothing.
 */
public final class Signal {
    private volatile long value;
    private final AtomicReferenceArray<Thread> parked;

    public Signal(int waiters) {
        parked = new AtomicReferenceArray<>(Math.max(1, waiters));
    }

    public long get() {
        return value;
    }

    /** Publishes a new value and wakes every parked waiter. */
    public void advance(long newValue) {
        value = newValue;
        for (int i = 0, n = parked.length(); i < n; i++) {
            Thread t = parked.get(i);
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    /**
     * Waits until the value differs from {@code seen} or {@code deadlineNanos} passes, as {@code wait} says: spin,
     * yield (until the deadline), then park until {@link #advance} wakes this waiter.
     *
     * @return the new value, or {@code seen} if the deadline passed first or the waiting thread is interrupted
     *         (its interrupt flag stays set, so the caller can tell the two apart).
     */
    public long awaitChange(long seen, int waiterIndex, SpinYieldPark wait, long deadlineNanos) {
        long v;
        for (int i = 0; ; i++) {
            if ((v = value) != seen) {
                return v;
            }
            if (!wait.spin(i)) {
                break;
            }
        }
        for (int i = 0; ; i++) {
            if ((v = value) != seen) {
                return v;
            }
            if (!wait.yield(i, deadlineNanos)) {
                break;
            }
        }
        Thread self = Thread.currentThread();
        // Register, then re-check: advance() writes the value before it looks for parked threads, so either we
        // see the new value below or advance() sees us and unparks us.
        parked.set(waiterIndex, self);
        try {
            while (true) {
                if ((v = value) != seen) {
                    return v;
                }
                if (self.isInterrupted() || !SpinYieldPark.park(this, deadlineNanos, SpinYieldPark.UNTIL_DEADLINE)) {
                    return seen;
                }
            }
        } finally {
            parked.set(waiterIndex, null);
        }
    }

    /** Whether a waiter is registered at {@code waiterIndex}, i.e. in its park phase; for tests and diagnostics. */
    public boolean isParked(int waiterIndex) {
        return parked.get(waiterIndex) != null;
    }
}
