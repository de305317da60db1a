package org.eventspace.comm.path;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The release edge every wait is built on: no lost wake-up, and the deadline holds in every phase of the wait. */
@Timeout(60)
class SignalTest {
    private static final SpinYieldPark PARK_AT_ONCE = new SpinYieldPark(new WaitPolicy(0, 0, Duration.ofMinutes(2).toNanos()));

    private static CompletableFuture<Long> waiter(Signal signal, long seen, SpinYieldPark wait, Duration deadline,
                                                  AtomicReference<Thread> thread) {
        CompletableFuture<Long> result = new CompletableFuture<>();
        Thread t = new Thread(() -> result.complete(
                signal.awaitChange(seen, 0, wait, System.nanoTime() + deadline.toNanos())), "signal-waiter");
        t.setDaemon(true);
        thread.set(t);
        t.start();
        return result;
    }

    @Test
    void advanceWakesAParkedWaiter() throws Exception {
        Signal signal = new Signal(1);
        AtomicReference<Thread> thread = new AtomicReference<>();
        CompletableFuture<Long> w = waiter(signal, 0, PARK_AT_ONCE, Duration.ofMinutes(2), thread);
        // The waiter is parked when it registered (the park phase) and its thread sleeps in LockSupport.parkNanos.
        WaitProofs.awaitParked(thread.get(), () -> signal.isParked(0), Duration.ofSeconds(20));
        assertThat(w).isNotDone();
        signal.advance(7);
        // Its deadline is two minutes away: returning within the bound means advance() woke it.
        assertThat(w.get(10, TimeUnit.SECONDS)).isEqualTo(7);
        assertThat(signal.isParked(0)).as("the waiter deregistered on its way out").isFalse();
    }

    @Test
    void aChangeBeforeTheWaitReturnsAtOnce() {
        Signal signal = new Signal(1);
        signal.advance(3);
        assertThat(signal.awaitChange(2, 0, PARK_AT_ONCE, System.nanoTime() + Duration.ofMinutes(2).toNanos()))
                .isEqualTo(3);
    }

    @Test
    void manyHandOffsLoseNoWakeUp() throws Exception {
        Signal ping = new Signal(1);
        Signal pong = new Signal(1);
        SpinYieldPark wait = new SpinYieldPark(new WaitPolicy(50, 5, Duration.ofSeconds(30).toNanos()));
        CompletableFuture<Void> echo = CompletableFuture.runAsync(() -> {
            long seen = 0;
            for (int i = 1; i <= 20_000; i++) {
                seen = ping.awaitChange(seen, 0, wait, wait.deadlineFromNow());
                pong.advance(seen);
            }
        });
        long got = 0;
        for (int i = 1; i <= 20_000; i++) {
            ping.advance(i);
            while (got != i) {
                got = pong.awaitChange(got, 0, wait, wait.deadlineFromNow());
            }
        }
        echo.get(30, TimeUnit.SECONDS);
        assertThat(got).isEqualTo(20_000);
    }

    @Test
    void theDeadlineHoldsEvenWhenThePolicyWouldYieldForever() throws Exception {
        // Before the fix the yield phase ignored the deadline; on shared cores a yield may cost a time slice.
        Signal signal = new Signal(1);
        signal.advance(5);
        SpinYieldPark endlessYields = new SpinYieldPark(new WaitPolicy(10, Integer.MAX_VALUE, Duration.ofMinutes(2).toNanos()));
        CompletableFuture<Long> w = waiter(signal, 5, endlessYields, Duration.ofMillis(100), new AtomicReference<>());
        assertThat(w.get(10, TimeUnit.SECONDS)).as("returns the value it saw: the deadline passed").isEqualTo(5);
    }

    @Test
    void anInterruptedParkedWaiterReturnsWhatItSawWithItsFlagSet() throws Exception {
        Signal signal = new Signal(1);
        CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
        CompletableFuture<Long> w = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            w.complete(signal.awaitChange(0, 0, PARK_AT_ONCE, System.nanoTime() + Duration.ofMinutes(2).toNanos()));
            interrupted.complete(Thread.currentThread().isInterrupted());
        }, "signal-waiter");
        t.setDaemon(true);
        t.start();
        WaitProofs.awaitParked(t, () -> signal.isParked(0), Duration.ofSeconds(20));
        t.interrupt();
        assertThat(w.get(10, TimeUnit.SECONDS)).as("the value it saw").isZero();
        assertThat(interrupted.get(10, TimeUnit.SECONDS)).isTrue();
    }
}
