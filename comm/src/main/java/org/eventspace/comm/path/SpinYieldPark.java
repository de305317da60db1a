package org.eventspace.comm.path;

import java.util.concurrent.locks.LockSupport;

import org.agrona.concurrent.IdleStrategy;

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
 * <p>The threads above comm wait through it too: an agent's duty cycle idles on {@link #agentIdle} (the scope's
 * gather helpers, the scope's front-end, the analysis threads without coscheduling); a thread woken by an unpark, or
 * polling a flag no one signals, parks through {@link #park} to its deadline or in slices (the coscheduled analysis
 * threads, the scope gather's caller, the WAN cluster roots' prefetch threads, the messages held at a WAN gateway);
 * a WAN cluster root yields between reads of its caches with a policy of yields only, the paper's wait.
 *
 * <p>One exception, by necessity: the WAN gateway's scheduler ({@code wan.GatewayScheduler}) must release each
 * message at its due time, not when a condition comes true, so it parks until a fixed window before the next due
 * time and spins ({@link Thread#onSpinWait()}) through that window: no step count or deadline of a policy says how
 * long to spin there, the clock does (a park's wake-up is tens of µs late, the emulated latency must not be).
 *
 * <p>Not waits for another thread, and so not here: timers that sleep for a time of their own (the rendezvous
 * client's retries and heartbeats, a monitor's poll for the final results, the dashboard's sampling period, a
 * replay's recorded compute time, a benchmark's injected delays).
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

    /**
     * An Agrona idle strategy for one agent's duty cycle with this class's phases: after a cycle without work,
     * {@code spins} spin steps, then {@code yields} yields, then parks whose length doubles from
     * {@code minParkNanos} to {@code maxParkNanos} (no waker is obliged to unpark an agent, so it polls, and backs
     * off so an idle agent costs a wake-up every {@code maxParkNanos} at most); a cycle with work starts over. It has
     * no deadline: an agent idles until it is closed. One per agent thread (it counts that thread's steps);
     * allocates nothing per idle.
     *
     * @throws IllegalArgumentException if a count is negative or the park lengths are not 0 &lt; min ≤ max.
     */
    public static IdleStrategy agentIdle(int spins, int yields, long minParkNanos, long maxParkNanos) {
        if (minParkNanos <= 0 || maxParkNanos < minParkNanos) {
            throw new IllegalArgumentException("park lengths must be 0 < min <= max, minParkNanos=" + minParkNanos
                    + ", maxParkNanos=" + maxParkNanos);
        }
        return new AgentIdle(new SpinYieldPark(new WaitPolicy(spins, yields, WaitPolicy.DEFAULT_TIMEOUT.toNanos())),
                minParkNanos, maxParkNanos);
    }

    /** {@link #agentIdle}: the phases of one agent thread, counted across its idle cycles. Not thread-safe. */
    private static final class AgentIdle implements IdleStrategy {
        private final SpinYieldPark wait;
        private final long minParkNanos;
        private final long maxParkNanos;
        private int spinStep;
        private int yieldStep;
        private long parkNanos;

        AgentIdle(SpinYieldPark wait, long minParkNanos, long maxParkNanos) {
            this.wait = wait;
            this.minParkNanos = minParkNanos;
            this.maxParkNanos = maxParkNanos;
            this.parkNanos = minParkNanos;
        }

        @Override
        public void idle(int workCount) {
            if (workCount > 0) {
                reset();
            } else {
                idle();
            }
        }

        @Override
        public void idle() {
            if (wait.spin(spinStep)) {
                spinStep++;
            } else if (wait.yield(yieldStep, NO_DEADLINE)) {
                yieldStep++;
            } else {
                park(this, NO_DEADLINE, parkNanos);
                parkNanos = Math.min(parkNanos << 1, maxParkNanos);
            }
        }

        @Override
        public void reset() {
            spinStep = 0;
            yieldStep = 0;
            parkNanos = minParkNanos;
        }

        @Override
        public String alias() {
            return "spin-yield-park";
        }
    }

    @Override
    public String toString() {
        return "SpinYieldPark{spins=" + spins + ", yields=" + yields + ", timeoutMillis=" + policy.timeoutNanos() / 1_000_000 + '}';
    }
}
