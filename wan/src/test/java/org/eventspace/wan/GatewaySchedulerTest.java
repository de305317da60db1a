package org.eventspace.wan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.CachedNanoClock;
import org.eventspace.comm.path.CommException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The scheduler stepped by hand on a clock the test sets: a message is released at its due time and not before, in
 * due order across links, and a closed gateway fails its waiters.
 */
class GatewaySchedulerTest {
    private final CachedNanoClock clock = new CachedNanoClock();
    private final ExecutorService callers = Executors.newFixedThreadPool(2);

    @AfterEach
    void stop() throws InterruptedException {
        callers.shutdownNow();
        assertThat(callers.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }

    private GatewayScheduler gateway() {
        // a>b: 5 ms, 8 Mbit/s (1000 B = 1 ms on the wire); a>c: 1 ms, 8 Mbit/s.
        return new GatewayScheduler("g", List.of(new LinkSchedule(LinkDirection.constant("a", "b", 5, 8), 0),
                new LinkSchedule(LinkDirection.constant("a", "c", 1, 8), 0)), clock, 0, TimeUnit.SECONDS.toNanos(10));
    }

    /** Steps the agent until {@code done} or 5 s passed (by the wall clock); the test's clock does not move. */
    private static void stepUntil(GatewayScheduler g, CompletableFuture<?> done, int minSubmitted) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!done.isDone() && System.nanoTime() < end) {
            g.doWork();
            Thread.sleep(1);
        }
    }

    @Test
    void aMessageIsReleasedAtItsDueTimeAndNotBefore() throws Exception {
        GatewayScheduler g = gateway();
        GatewayScheduler.Waiter w = g.register();
        int ab = g.link("a>b");
        clock.update(1_000_000);
        CompletableFuture<Long> due = CompletableFuture.supplyAsync(() -> w.delay(ab, 1000), callers);
        // Until the clock reaches 1 ms + 1 ms + 5 ms the message stays.
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
        while (System.nanoTime() < end) {
            g.doWork();
            Thread.sleep(1);
        }
        assertThat(due).isNotDone();
        clock.update(6_999_999);
        g.doWork();
        Thread.sleep(50);
        assertThat(due).isNotDone();
        clock.update(7_000_000);
        stepUntil(g, due, 1);
        assertThat(due.get(5, TimeUnit.SECONDS)).isEqualTo(7_000_000);
        GatewayScheduler.Stats stats = g.stats();
        assertThat(stats.released()).isEqualTo(1);
        assertThat(stats.releaseLateMaxNs()).isZero();
        assertThat(stats.links()).extracting(GatewayScheduler.LinkStats::messages).containsExactly(1L, 0L);
    }

    @Test
    void messagesOnDifferentLinksLeaveByTheirOwnDueTimes() throws Exception {
        GatewayScheduler g = gateway();
        GatewayScheduler.Waiter slow = g.register();
        GatewayScheduler.Waiter fast = g.register();
        clock.update(0);
        CompletableFuture<Long> toB = CompletableFuture.supplyAsync(() -> slow.delay(g.link("a>b"), 0), callers);
        CompletableFuture<Long> toC = CompletableFuture.supplyAsync(() -> fast.delay(g.link("a>c"), 0), callers);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (g.stats().links().stream().mapToLong(GatewayScheduler.LinkStats::messages).sum() < 2
                && System.nanoTime() < end) {
            g.doWork();
            Thread.sleep(1);
        }
        clock.update(1_000_000);
        stepUntil(g, toC, 1);
        assertThat(toC.get(5, TimeUnit.SECONDS)).isEqualTo(1_000_000);
        assertThat(toB).isNotDone();
        clock.update(5_000_000);
        stepUntil(g, toB, 1);
        assertThat(toB.get(5, TimeUnit.SECONDS)).isEqualTo(5_000_000);
    }

    @Test
    void closingTheGatewayFailsAWaitingMessage() throws Exception {
        GatewayScheduler g = gateway();
        GatewayScheduler.Waiter w = g.register();
        CompletableFuture<Long> due = CompletableFuture.supplyAsync(() -> w.delay(0, 8), callers);
        g.doWork();
        Thread.sleep(20);
        g.close();
        assertThatThrownBy(() -> due.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(CommException.class)
                .hasMessageContaining("gateway g closed while a message waited on link a>b");
    }

    @Test
    void aMessageNotReleasedInTimeFailsAndBreaksItsConnection() throws Exception {
        // A timeout of 1 ms of the test's clock, which the test moves past the deadline without stepping the agent.
        GatewayScheduler g = new GatewayScheduler("g", List.of(new LinkSchedule(LinkDirection.constant("a", "b", 5, 8), 0)),
                clock, 0, 1_000_000);
        GatewayScheduler.Waiter w = g.register();
        clock.update(0);
        CompletableFuture<Long> due = CompletableFuture.supplyAsync(() -> w.delay(0, 8), callers);
        Thread.sleep(20);
        clock.update(2_000_000);
        assertThatThrownBy(() -> due.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(CommException.class)
                .hasMessageContaining("a message on link a>b was not released within 1 ms");
        assertThatThrownBy(() -> w.delay(0, 8)).isInstanceOf(CommException.class)
                .hasMessageContaining("the connection is broken");
    }

    @Test
    void anUnknownLinkIsNamed() {
        assertThatThrownBy(() -> gateway().link("b>a")).hasMessageContaining("gateway g has no outgoing link b>a");
    }
}
