package org.eventspace.comm.path;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Proof that a waiter really reached the park phase before a test wakes it. */
public final class WaitProofs {
    private WaitProofs() {
    }

    /**
     * Waits, at most {@code bound}, until {@code registered} says the waiter registered for its park phase and its
     * thread is WAITING or TIMED_WAITING in {@link LockSupport} (a spinning or yielding thread is RUNNABLE).
     */
    public static void awaitParked(Thread waiter, BooleanSupplier registered, Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (true) {
            Thread.State state = waiter.getState();
            boolean parked = (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING)
                    && registered.getAsBoolean() && inPark(waiter);
            if (parked) {
                return;
            }
            assertThat(System.nanoTime() - deadline)
                    .as("thread %s parked within %s (state %s, registered %s)", waiter.getName(), bound, state,
                            registered.getAsBoolean())
                    .isNegative();
            LockSupport.parkNanos(1_000_000);
        }
    }

    private static boolean inPark(Thread waiter) {
        for (StackTraceElement frame : waiter.getStackTrace()) {
            if (frame.getClassName().equals(LockSupport.class.getName()) && frame.getMethodName().startsWith("park")) {
                return true;
            }
        }
        return false;
    }
}
