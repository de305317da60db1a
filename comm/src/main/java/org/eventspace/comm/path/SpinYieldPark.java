package org.eventspace.comm.path;

import java.util.concurrent.locks.LockSupport;

/**
 * How every thread of the communication system waits for another: spin, then yield, then park (or block) until
 * woken or the deadline passes, with the phase lengths of a {@link WaitPolicy}. The gred's waiters, a
 * {@link Signal}'s, an element's blocking readers, a TCP hop's reader and a full push buffer's producers all
 * wait through it, so the phases, their counts and the deadline rules live in one place.
 *
 * <p>The waiter keeps its loop and its condition; this class runs one step of a phase at a time:
 * <pre>{@code
 * for (int i = 0; ; i++) { if (ready()) return; if (!wait.spin(i)) break; }
 * long deadline = ...;                                   // from the call, or from here: the waiter decides
 * for (int i = 0; ; i++) { if (ready()) return; if (!wait.yield(i, deadline)) break; }
 * register so that a waker finds us; re-check;           // the waiter's own lost-wake-up protocol
 * while (!ready()) { if (!SpinYieldPark.park(this, deadline, slice)) timedOut(); }
 * }</pre>
 * Keeping the condition in the caller's code is what keeps waiting allocation-free (no condition object or
 * lambda per wait) and lets each waiter keep its own rules: where its deadline starts, what it registers before
 * parking, and what it does when the deadline passes.
 *
 * <p>Stateless beyond its immutable policy: may be shared by any number of threads.
 */
public final class SpinYieldPark {
    /** A deadline that never passes (the waiter blocks until woken or closed). */
    public static final long NO_DEADLINE = Long.MIN_VALUE;
    /** A park slice that ends only at the deadline or a wake-up. */
    public static final long UNTIL_DEADLINE = Long.MAX_VALUE;

    private final WaitPolicy policy;
    private final int spins;
    private final int yields;

    public SpinYieldPark(WaitPolicy policy) {
        this.policy = policy;
        this.spins = policy.spins();
        this.yields = policy.yields();
    }

    public WaitPolicy policy() {
        return policy;
    }

    /** The policy's timeout from now. */
    public long deadlineFromNow() {
        return System.nanoTime() + policy.timeoutNanos();
    }

    /**
     * Step {@code step} (from 0) of the spin phase: while {@code step < spins}, one {@link Thread#onSpinWait()}
     * and true; then false without waiting. Spinning ignores the deadline: it is bounded by its count.
     */
    public boolean spin(int step) {
        if (step < spins) {
            Thread.onSpinWait();
            return true;
        }
        return false;
    }

    /**
     * Step {@code step} (from 0) of the yield phase: while {@code step < yields} and the deadline has not passed,
     * one {@link Thread#yield()} and true; then false without waiting. A yield may cost a whole time slice when
     * the cores are shared, so the yield phase stops at the deadline.
     */
    public boolean yield(int step, long deadlineNanos) {
        if (step < yields && !passed(deadlineNanos)) {
            Thread.yield();
            return true;
        }
        return false;
    }

    /**
     * One park of the park phase: parks for what is left until the deadline, at most {@code sliceNanos} (for
     * waiters no waker unparks, which must poll), unless the deadline passed. Returns early on an unpark or an
     * interrupt; the caller re-checks its condition and its thread's interrupt flag.
     *
     * @return false, without parking, if the deadline passed.
     */
    public static boolean park(Object blocker, long deadlineNanos, long sliceNanos) {
        long left = deadlineNanos == NO_DEADLINE ? sliceNanos : deadlineNanos - System.nanoTime();
        if (left <= 0) {
            return false;
        }
        LockSupport.parkNanos(blocker, Math.min(left, sliceNanos));
        return true;
    }

    /** Whether {@code deadlineNanos} (a {@link System#nanoTime()} value, or {@link #NO_DEADLINE}) has passed. */
    public static boolean passed(long deadlineNanos) {
        return deadlineNanos != NO_DEADLINE && System.nanoTime() - deadlineNanos >= 0;
    }

    @Override
    public String toString() {
        return "SpinYieldPark{spins=" + spins + ", yields=" + yields + ", timeoutMillis=" + policy.timeoutNanos() / 1_000_000 + '}';
    }
}
