package org.eventspace.comm.path;

import java.time.Duration;

/**
 * How a thread waits for another: spin, then yield, then park until woken or the deadline passes.
 *
 * <p>Spinning gives sub-microsecond hand-offs when every busy thread has a core of its own; when threads
 * outnumber cores (256 ranks on 2 cores) spinning only steals the core from the thread we wait for, so the
 * policy for that case spins briefly and parks. {@link #forThreads(int)} picks between the two.
 *
 * <p>The waiting itself is {@link SpinYieldPark}, which every waiter of comm shares; this record is its
 * configuration.
 *
 * <p>Immutable; may be shared by any number of threads.
 */
public record WaitPolicy(int spins, int yields, long timeoutNanos) {
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    public WaitPolicy {
        if (spins < 0 || yields < 0) {
            throw new IllegalArgumentException("spins and yields must be >= 0, spins=" + spins + ", yields=" + yields);
        }
        if (timeoutNanos <= 0) {
            throw new IllegalArgumentException("timeout must be > 0, timeoutNanos=" + timeoutNanos);
        }
    }

    /**
     * A policy for {@code busyThreads} threads that may wait on each other in one process: spin while every
     * thread has a core; yield while a few threads share each core (a yield hands the core to the thread we
     * wait for at once, a park/unpark pair costs several microseconds); park soon when there are many.
     */
    public static WaitPolicy forThreads(int busyThreads, Duration timeout) {
        return forThreads(busyThreads, Runtime.getRuntime().availableProcessors(), timeout);
    }

    /** As {@link #forThreads(int, Duration)} on a machine of {@code cores} cores (the simulator's hosts). */
    public static WaitPolicy forThreads(int busyThreads, int cores, Duration timeout) {
        if (busyThreads <= cores) {
            return new WaitPolicy(200_000, 1_000, timeout.toNanos());
        }
        if (busyThreads <= 4 * cores) {
            return new WaitPolicy(100, 20_000, timeout.toNanos());
        }
        return new WaitPolicy(100, 50, timeout.toNanos());
    }

    public WaitPolicy withTimeout(Duration timeout) {
        return new WaitPolicy(spins, yields, timeout.toNanos());
    }

    public long deadlineFromNow() {
        return System.nanoTime() + timeoutNanos;
    }
}
