package org.eventspace.comm.path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;

/**
 * A gred alone, with a fake next wrapper that records what the last arriver hands down (STYLE: each wrapper
 * testable alone). Arrival order is forced by starting contributors one at a time and waiting until each is
 * parked, with a wait policy that parks at once.
 */
class GredTest {
    private static final Duration BOUND = Duration.ofSeconds(20);
    /** Parks at once, so a thread that has arrived is visibly TIMED_WAITING; never times out during a test. */
    private static final WaitPolicy PARK_AT_ONCE = new WaitPolicy(0, 0, Duration.ofMinutes(2).toNanos());

    /** What the fake next wrapper saw in one call. */
    record Descent(Thread thread, ReduceOp op, ValueType type, long[] words) {
    }

    /** Records every descent and answers with {@code answer} applied to the message. */
    static final class FakeNext implements Wrapper {
        final List<Descent> descents = new CopyOnWriteArrayList<>();
        final Consumer<Message> answer;

        FakeNext(Consumer<Message> answer) {
            this.answer = answer;
        }

        @Override
        public void call(Message message) {
            long[] words = new long[message.length()];
            System.arraycopy(message.words(), 0, words, 0, words.length);
            descents.add(new Descent(Thread.currentThread(), message.op(), message.type(), words));
            answer.accept(message);
        }
    }

    private static Message doubles(double... values) {
        Message m = new Message(values.length).op(ReduceOp.SUM).type(ValueType.DOUBLE).length(values.length);
        for (int i = 0; i < values.length; i++) {
            m.word(i, Double.doubleToRawLongBits(values[i]));
        }
        return m;
    }

    private static Message longs(ReduceOp op, long... values) {
        Message m = new Message(values.length).op(op).type(ValueType.LONG).length(values.length);
        for (int i = 0; i < values.length; i++) {
            m.word(i, values[i]);
        }
        return m;
    }

    private static CompletableFuture<Void> contribute(Gred gred, int port, Message m, List<Thread> threads) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                gred.port(port).call(m);
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        }, "contributor-" + port);
        t.setDaemon(true);
        threads.add(t);
        t.start();
        return done;
    }

    /** Waits (bounded) until {@code t} is parked: it arrived and is waiting for the release. */
    private static void awaitParked(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (t.getState() != Thread.State.TIMED_WAITING && t.getState() != Thread.State.WAITING) {
            assertThat(t.isAlive()).as("%s ended before it parked", t.getName()).isTrue();
            assertThat(System.nanoTime() - deadline).as("%s never parked", t.getName()).isNegative();
            Thread.sleep(1);
        }
    }

    private static Throwable failureOf(CompletableFuture<Void> f) throws Exception {
        try {
            f.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("expected the contributor to fail, but it returned");
    }

    @Test
    void lastArriverCallsNextOncePerRoundWithThePortOrderReductionWhateverTheArrivalOrder() throws Exception {
        int arity = 4;
        int rounds = 40;
        SplittableRandom random = new SplittableRandom(42);
        AtomicInteger answered = new AtomicInteger();
        // The fake "below" replaces the payload, as a core's result would, so we see that the result going back
        // up is what next left in the message, not the reduction itself.
        FakeNext next = new FakeNext(m -> {
            int round = answered.getAndIncrement();
            for (int i = 0; i < m.length(); i++) {
                m.word(i, Double.doubleToRawLongBits(1_000.0 * round + i));
            }
            m.sequence(7_000 + round);
        });
        Gred gred = new Gred("g", arity, next, PARK_AT_ONCE, Gred.ReleaseListener.NONE);
        for (int round = 0; round < rounds; round++) {
            // Magnitudes 1e-3 .. 1e17, so that floating-point sums in another order give other bits.
            double[][] values = new double[arity][3];
            for (double[] v : values) {
                for (int i = 0; i < v.length; i++) {
                    v[i] = (random.nextDouble() - 0.5) * Math.pow(10, random.nextInt(-3, 18));
                }
            }
            double[] portOrder = values[0].clone();
            for (int p = 1; p < arity; p++) {
                for (int i = 0; i < portOrder.length; i++) {
                    portOrder[i] += values[p][i];
                }
            }
            List<Integer> arrival = new ArrayList<>(List.of(0, 1, 2, 3));
            Collections.shuffle(arrival, new Random(round));
            Message[] messages = new Message[arity];
            List<CompletableFuture<Void>> futures = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (int a = 0; a < arity; a++) {
                int port = arrival.get(a);
                messages[port] = doubles(values[port]);
                futures.add(contribute(gred, port, messages[port], threads));
                if (a < arity - 1) {
                    awaitParked(threads.get(a));
                    assertThat(next.descents).as("next called before the last contributor arrived").hasSize(round);
                }
            }
            CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(BOUND.toSeconds(), TimeUnit.SECONDS);

            assertThat(next.descents).hasSize(round + 1);
            Descent d = next.descents.get(round);
            assertThat(d.thread()).as("round %d: next runs in the last arriver's thread", round).isSameAs(threads.get(arity - 1));
            assertThat(d.op()).isEqualTo(ReduceOp.SUM);
            assertThat(d.type()).isEqualTo(ValueType.DOUBLE);
            long[] expected = new long[portOrder.length];
            for (int i = 0; i < expected.length; i++) {
                expected[i] = Double.doubleToRawLongBits(portOrder[i]);
            }
            assertThat(d.words()).as("round %d, arrival order %s: reduction in port order, bit for bit", round, arrival)
                    .containsExactly(expected);
            for (Message m : messages) {
                assertThat(m.length()).isEqualTo(3);
                assertThat(m.sequence()).isEqualTo(7_000 + round);
                for (int i = 0; i < 3; i++) {
                    assertThat(Double.longBitsToDouble(m.word(i))).isEqualTo(1_000.0 * round + i);
                }
            }
        }
    }

    @Test
    void releaseListenerSeesEveryRoundOnceAndInOrderWhileContributorsRunFree() throws Exception {
        int arity = 3;
        int rounds = 3_000;
        List<Long> released = new CopyOnWriteArrayList<>();
        AtomicInteger descents = new AtomicInteger();
        Gred gred = new Gred("free", arity, m -> descents.incrementAndGet(), WaitPolicy.forThreads(arity, Duration.ofSeconds(30)),
                (g, round) -> {
                    assertThat(g.name()).isEqualTo("free");
                    released.add(round);
                });
        List<CompletableFuture<Long>> futures = new ArrayList<>();
        for (int p = 0; p < arity; p++) {
            final int port = p;
            futures.add(CompletableFuture.supplyAsync(() -> {
                Message m = longs(ReduceOp.SUM, 0, 0);
                long wrong = 0;
                for (int r = 0; r < rounds; r++) {
                    m.op(ReduceOp.SUM).type(ValueType.LONG).length(2).word(0, port + r).word(1, -1);
                    gred.port(port).call(m);
                    // 0+1+2 + 3r, and -arity
                    if (m.word(0) != 3 + 3L * r || m.word(1) != -arity) {
                        wrong++;
                    }
                }
                return wrong;
            }, runnable -> {
                Thread t = new Thread(runnable, "free-" + port);
                t.setDaemon(true);
                t.start();
            }));
        }
        for (CompletableFuture<Long> f : futures) {
            assertThat(f.get(BOUND.toSeconds(), TimeUnit.SECONDS)).as("rounds with a wrong result").isZero();
        }
        assertThat(descents.get()).isEqualTo(rounds);
        List<Long> expected = new ArrayList<>();
        for (long r = 0; r < rounds; r++) {
            expected.add(r);
        }
        assertThat(released).containsExactlyElementsOf(expected);
    }

    /** Each round: all arrived (strategy (i)'s moment), then the descent, then the release (strategy (ii)'s). */
    @Test
    void theListenerHearsAllArrivedBeforeTheDescentAndReleasedAfterIt() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        Gred.ReleaseListener listener = new Gred.ReleaseListener() {
            @Override
            public void released(Gred g, long round) {
                events.add("released " + round);
            }

            @Override
            public void allArrived(Gred g, long round) {
                events.add("arrived " + round);
            }
        };
        Gred gred = new Gred("order", 2, m -> events.add("descent " + m.sequence()), PARK_AT_ONCE, listener);
        for (int round = 0; round < 3; round++) {
            CompletableFuture<Void> other = CompletableFuture.runAsync(() -> gred.port(1).call(longs(ReduceOp.SUM, 1)));
            gred.port(0).call(longs(ReduceOp.SUM, 2));
            other.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        }
        assertThat(events).containsExactly("arrived 0", "descent 0", "released 0", "arrived 1", "descent 1", "released 1",
                "arrived 2", "descent 2", "released 2");
    }

    @Test
    void failWakesEveryWaiterAndLaterContributorsFailAtOnce() throws Exception {
        Gred gred = new Gred("g.fail", 3, new FakeNext(m -> { }), PARK_AT_ONCE, Gred.ReleaseListener.NONE);
        List<Thread> threads = new ArrayList<>();
        CompletableFuture<Void> p0 = contribute(gred, 0, longs(ReduceOp.SUM, 1), threads);
        CompletableFuture<Void> p1 = contribute(gred, 1, longs(ReduceOp.SUM, 2), threads);
        awaitParked(threads.get(0));
        awaitParked(threads.get(1));

        gred.fail(new CommException("host h7 disconnected"));

        // The policy's timeout is two minutes: returning within the bound means fail() woke them.
        assertThat(failureOf(p0)).isInstanceOf(CommException.class).hasMessageContaining("host h7 disconnected");
        assertThat(failureOf(p1)).isInstanceOf(CommException.class).hasMessageContaining("host h7 disconnected");
        assertThatThrownBy(() -> gred.port(2).call(longs(ReduceOp.SUM, 3)))
                .isInstanceOf(CommException.class).hasMessageContaining("host h7 disconnected");
        assertThatThrownBy(() -> gred.port(0).call(longs(ReduceOp.SUM, 1)))
                .isInstanceOf(CommException.class).hasMessageContaining("host h7 disconnected");
    }

    @Test
    void aContributorThatNeverArrivesFailsTheOthersWithTheCountThatArrived() throws Exception {
        FakeNext next = new FakeNext(m -> { });
        WaitPolicy shortWait = new WaitPolicy(0, 0, Duration.ofMillis(200).toNanos());
        Gred gred = new Gred("t0.gred.h3.1", 3, next, shortWait, Gred.ReleaseListener.NONE);
        List<Thread> threads = new ArrayList<>();
        CompletableFuture<Void> p0 = contribute(gred, 0, longs(ReduceOp.MAX, 1), threads);
        CompletableFuture<Void> p2 = contribute(gred, 2, longs(ReduceOp.MAX, 3), threads);

        for (Throwable t : List.of(failureOf(p0), failureOf(p2))) {
            assertThat(t).isInstanceOf(CommException.class)
                    .hasMessageContaining("gred t0.gred.h3.1")
                    .hasMessageContaining("2 of 3 contributors arrived");
        }
        assertThat(next.descents).isEmpty();
        // The gred stays failed: the late contributor and any retry fail at once with the same cause.
        assertThatThrownBy(() -> gred.port(1).call(longs(ReduceOp.MAX, 2)))
                .isInstanceOf(CommException.class).hasMessageContaining("2 of 3 contributors arrived");
        assertThat(next.descents).isEmpty();
    }

    @Test
    void theTimeoutCountsFromArrivalHoweverLongTheYieldPhaseOfThePolicy() throws Exception {
        // On shared cores every yield may cost a time slice; a yield phase that ignored the deadline made a
        // 500 ms timeout fire after 10 s under load. Endless yields make that deterministic.
        WaitPolicy endlessYields = new WaitPolicy(10, Integer.MAX_VALUE, Duration.ofMillis(200).toNanos());
        Gred gred = new Gred("g.yields", 2, m -> { }, endlessYields, Gred.ReleaseListener.NONE);
        CompletableFuture<Void> p0 = contribute(gred, 0, longs(ReduceOp.SUM, 1), new ArrayList<>());
        assertThat(failureOf(p0)).isInstanceOf(CommException.class).hasMessageContaining("1 of 2 contributors arrived");
    }

    @Test
    void whenEveryContributorArrivedTheWaitersWaitForTheResultFromBelowBeyondTheirOwnTimeout() throws Exception {
        // Below takes three timeouts and then answers: the waiters must take the answer, not time out "with 2 of 2
        // contributors arrived" while the last arriver is still below.
        WaitPolicy shortWait = new WaitPolicy(0, 0, Duration.ofMillis(150).toNanos());
        Gred gred = new Gred("g.slow-below", 2, m -> {
            sleep(450);
            m.word(0, 99);
        }, shortWait, Gred.ReleaseListener.NONE);
        List<Thread> threads = new ArrayList<>();
        Message waiter = longs(ReduceOp.SUM, 1);
        CompletableFuture<Void> p0 = contribute(gred, 0, waiter, threads);
        awaitParked(threads.get(0));
        CompletableFuture<Void> p1 = contribute(gred, 1, longs(ReduceOp.SUM, 2), threads);
        p0.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        p1.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        assertThat(waiter.word(0)).isEqualTo(99);
    }

    @Test
    void whenEveryContributorArrivedTheWaitersGetTheFailureFromBelowNotATimeoutOfTheirOwn() throws Exception {
        // The waiters' own timeout must not run out before the last contributor arrives (a thread start under heavy
        // load took over 150 ms once), and the call below must outlast it by as much again.
        WaitPolicy shortWait = new WaitPolicy(0, 0, Duration.ofMillis(1000).toNanos());
        String below = "gred t0.gred.h0.2: timed out after 1000 ms with 1 of 2 contributors arrived";
        Gred gred = new Gred("t0.gred.h1.0", 3, m -> {
            sleep(2500);
            throw new CommException(below);
        }, shortWait, Gred.ReleaseListener.NONE);
        List<Thread> threads = new ArrayList<>();
        CompletableFuture<Void> p0 = contribute(gred, 0, longs(ReduceOp.SUM, 1), threads);
        CompletableFuture<Void> p1 = contribute(gred, 1, longs(ReduceOp.SUM, 1), threads);
        awaitParked(threads.get(0));
        awaitParked(threads.get(1));
        CompletableFuture<Void> p2 = contribute(gred, 2, longs(ReduceOp.SUM, 1), threads);
        for (CompletableFuture<Void> f : List.of(p0, p1, p2)) {
            assertThat(failureOf(f)).isInstanceOf(CommException.class).hasMessage(below);
        }
        assertThatThrownBy(() -> gred.port(0).call(longs(ReduceOp.SUM, 1))).hasMessage(below);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void mismatchedContributionsFailEveryContributorNamingBothShapes() throws Exception {
        FakeNext next = new FakeNext(m -> { });
        Gred gred = new Gred("g.mismatch", 2, next, PARK_AT_ONCE, Gred.ReleaseListener.NONE);
        List<Thread> threads = new ArrayList<>();
        CompletableFuture<Void> p0 = contribute(gred, 0, longs(ReduceOp.SUM, 1, 2), threads);
        awaitParked(threads.get(0));
        CompletableFuture<Void> p1 = contribute(gred, 1, longs(ReduceOp.SUM, 1, 2, 3), threads);

        for (Throwable t : List.of(failureOf(p0), failureOf(p1))) {
            assertThat(t).isInstanceOf(CommException.class)
                    .hasMessageContaining("gred g.mismatch")
                    .hasMessageContaining("port 1")
                    .hasMessageContaining("3")
                    .hasMessageContaining("2")
                    .hasMessageContaining("same collective");
        }
        assertThat(next.descents).isEmpty();
    }

    @Test
    void differentOpsOrTypesAreAMismatchToo() throws Exception {
        for (Message other : List.of(longs(ReduceOp.MAX, 5), doubles(5.0))) {
            Gred gred = new Gred("g.op", 2, new FakeNext(m -> { }), PARK_AT_ONCE, Gred.ReleaseListener.NONE);
            List<Thread> threads = new ArrayList<>();
            CompletableFuture<Void> p0 = contribute(gred, 0, longs(ReduceOp.SUM, 5), threads);
            awaitParked(threads.get(0));
            CompletableFuture<Void> p1 = contribute(gred, 1, other, threads);
            assertThat(failureOf(p0)).hasMessageContaining("same collective");
            assertThat(failureOf(p1)).hasMessageContaining("same collective");
        }
    }

    @Test
    void aFailureBelowFailsEveryContributorAndTheGredStaysFailed() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        Gred gred = new Gred("g.below", 3, m -> {
            calls.incrementAndGet();
            throw new CommException("element t0.result holds tuples of at most 4 words, length=9");
        }, PARK_AT_ONCE, Gred.ReleaseListener.NONE);
        List<Thread> threads = new ArrayList<>();
        List<CompletableFuture<Void>> futures = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            futures.add(contribute(gred, p, longs(ReduceOp.SUM, p), threads));
        }
        for (CompletableFuture<Void> f : futures) {
            assertThat(failureOf(f)).isInstanceOf(CommException.class).hasMessageContaining("at most 4 words");
        }
        assertThat(calls.get()).isEqualTo(1);
        assertThatThrownBy(() -> gred.port(0).call(longs(ReduceOp.SUM, 0))).hasMessageContaining("at most 4 words");
        assertThat(calls.get()).isEqualTo(1);
    }

    @Test
    void anyExceptionBelowReachesTheWaitersAtOnceNotAtTheirTimeout() throws Exception {
        Gred gred = new Gred("g.bug", 2, m -> {
            throw new IllegalStateException("a wrapper's bug");
        }, PARK_AT_ONCE, Gred.ReleaseListener.NONE);
        List<Thread> threads = new ArrayList<>();
        List<CompletableFuture<Void>> futures = new ArrayList<>();
        for (int p = 0; p < 2; p++) {
            futures.add(contribute(gred, p, longs(ReduceOp.SUM, p), threads));
        }
        for (CompletableFuture<Void> f : futures) {
            assertThat(failureOf(f)).isInstanceOf(CommException.class)
                    .hasMessageContaining("g.bug").hasMessageContaining("a wrapper's bug");
        }
    }

    @Test
    void aGredOfOneCallsNextEveryTime() {
        FakeNext next = new FakeNext(m -> m.word(0, m.word(0) * 10));
        Gred gred = new Gred("solo", 1, next, PARK_AT_ONCE, Gred.ReleaseListener.NONE);
        for (long v = 1; v <= 5; v++) {
            Message m = longs(ReduceOp.MIN, v);
            gred.port(0).call(m);
            assertThat(m.word(0)).isEqualTo(10 * v);
        }
        assertThat(next.descents).hasSize(5);
    }

    @Test
    void aPortOutsideTheArityIsRejectedWithTheRange() {
        Gred gred = new Gred("g.ports", 3, m -> { }, PARK_AT_ONCE, Gred.ReleaseListener.NONE);
        assertThatThrownBy(() -> gred.port(3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("g.ports").hasMessageContaining("0..2").hasMessageContaining("port=3");
        assertThatThrownBy(() -> new Gred("g.none", 0, m -> { }, PARK_AT_ONCE, Gred.ReleaseListener.NONE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("arity=0");
    }
}
