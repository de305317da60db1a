package org.eventspace.comm.path;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** The release edge every wait is built on: no lost wake-up, and the deadline holds in every phase of the wait. */
class SignalTest {
    private static final WaitPolicy PARK_AT_ONCE = new WaitPolicy(0, 0, Duration.ofMinutes(2).toNanos());

    private static CompletableFuture<Long> waiter(Signal signal, long seen, WaitPolicy policy, Duration wait) {
        CompletableFuture<Long> result = new CompletableFuture<>();
        Thread t = new Thread(() -> result.complete(
                signal.awaitChange(seen, 0, policy, System.nanoTime() + wait.toNanos())), "signal-waiter");
        t.setDaemon(true);
        t.start();
        return result;
    }

    @Test
    void advanceWakesAParkedWaiterWithTheNewValue() throws Exception {
        Signal signal = new Signal(1);
        CompletableFuture<Long> w = waiter(signal, 0, PARK_AT_ONCE, Duration.ofMinutes(2));
        Thread.sleep(50);
        signal.advance(7);
        // Its deadline is two minutes away: returning within the bound means advance() woke it.
        assertThat(w.get(10, TimeUnit.SECONDS)).isEqualTo(7);
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
        WaitPolicy policy = new WaitPolicy(50, 5, Duration.ofSeconds(30).toNanos());
        CompletableFuture<Void> echo = CompletableFuture.runAsync(() -> {
            long seen = 0;
            for (int i = 1; i <= 20_000; i++) {
                seen = ping.awaitChange(seen, 0, policy, policy.deadlineFromNow());
                pong.advance(seen);
            }
        });
        long got = 0;
        for (int i = 1; i <= 20_000; i++) {
            ping.advance(i);
            while (got != i) {
                got = pong.awaitChange(got, 0, policy, policy.deadlineFromNow());
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
        WaitPolicy endlessYields = new WaitPolicy(10, Integer.MAX_VALUE, Duration.ofMinutes(2).toNanos());
        CompletableFuture<Long> w = waiter(signal, 5, endlessYields, Duration.ofMillis(100));
        assertThat(w.get(10, TimeUnit.SECONDS)).as("returns the value it saw: the deadline passed").isEqualTo(5);
    }
}
