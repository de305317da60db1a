package org.eventspace.comm.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.Topology;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.testing.Layout;
import org.eventspace.comm.testing.RankThreads.Outcome;
import org.eventspace.comm.testing.RankThreads;
import org.eventspace.comm.testing.TestClusters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A job in which something goes wrong must fail every rank with a {@link CommException} that says what went
 * wrong, and must not hang. "Within a bound" here means "does not hang": the bound is many times the timeout
 * and nothing is claimed about how fast a failure travels.
 */
class CommFailureTest {
    private static final Duration TIMEOUT = Duration.ofMillis(500);
    /** Generous: a rank that needs longer than this to fail is taken to hang. */
    private static final long BOUND_NANOS = 10 * TIMEOUT.toNanos();
    private static final Pattern TIMED_OUT = Pattern.compile(
            "gred (t\\d+\\.gred\\.h\\d+\\.\\d+): timed out after 500 ms with (\\d+) of (\\d+) contributors arrived");

    /** The first and the last rank: the one whose host holds the root, and one at the far end of the tree. */
    static Stream<Arguments> layoutsAndMissingRanks() {
        List<Arguments> list = new ArrayList<>();
        for (Layout layout : multiRankLayouts()) {
            list.add(Arguments.of(layout, 0));
            list.add(Arguments.of(layout, layout.spec().ranks() - 1));
        }
        return list.stream();
    }

    /** A rank in the middle, so that it dies while ranks on both sides of it in the tree go on. */
    static Stream<Arguments> layoutsAndMiddleRank() {
        return multiRankLayouts().stream().map(l -> Arguments.of(l, l.spec().ranks() / 2));
    }

    /**
     * The message every surviving rank must get when a contributor never came: the gred it stalled in, and a
     * count of arrivals that really is short of the gred's arity (a gred whose contributors all arrived is not
     * where the job stalled).
     */
    static void assertNamesAStalledGred(Outcome<?> o) {
        assertThat(o.error()).as("rank %d", o.rank()).isInstanceOf(CommException.class);
        Matcher m = TIMED_OUT.matcher(o.error().getMessage());
        assertThat(m.find()).as("rank %d: message names the gred and how many arrived: %s", o.rank(), o.error().getMessage())
                .isTrue();
        assertThat(Integer.parseInt(m.group(2))).as("rank %d: arrivals in %s (%s)", o.rank(), m.group(1), o.error().getMessage())
                .isLessThan(Integer.parseInt(m.group(3)));
        assertThat(o.elapsedNanos()).as("rank %d failed, not hung", o.rank()).isLessThan(BOUND_NANOS);
    }

    @ParameterizedTest(name = "{0}, rank {1} never calls")
    @MethodSource("layoutsAndMissingRanks")
    void aRankThatNeverCallsMakesEveryOtherRankFailNamingTheGredAndHowManyArrived(Layout layout, int missing) {
        try (InJvmCluster cluster = TestClusters.start(layout.spec(), TIMEOUT)) {
            List<Outcome<Long>> outcomes = RankThreads.run(cluster, Duration.ofSeconds(30), comm ->
                    comm.rank() == missing ? 0L : comm.allreduce(1L, ReduceOp.SUM));
            for (Outcome<Long> o : outcomes) {
                if (o.rank() == missing) {
                    assertThat(o.error()).isNull();
                } else {
                    assertNamesAStalledGred(o);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}, rank {1} dies")
    @MethodSource("layoutsAndMiddleRank")
    void aRankThatDiesMidRunMakesTheOthersFailAfterTheLastRoundItJoined(Layout layout, int dying) {
        int k = 7;
        try (InJvmCluster cluster = TestClusters.start(layout.spec(), TIMEOUT)) {
            List<Outcome<Integer>> outcomes = RankThreads.run(cluster, Duration.ofSeconds(30), comm -> {
                int n = comm.size();
                int done = 0;
                for (int i = 0; i < 1_000; i++) {
                    if (comm.rank() == dying && i == k) {
                        throw new IllegalStateException("rank " + dying + " crashed in iteration " + k);
                    }
                    try {
                        long sum = comm.allreduce((long) i, ReduceOp.SUM);
                        assertThat(sum).isEqualTo((long) n * i);
                    } catch (CommException e) {
                        throw new CommException("after " + done + " rounds: " + e.getMessage(), e);
                    }
                    done++;
                }
                return done;
            });
            for (Outcome<Integer> o : outcomes) {
                if (o.rank() == dying) {
                    assertThat(o.error()).isInstanceOf(IllegalStateException.class);
                } else {
                    assertNamesAStalledGred(o);
                    assertThat(o.error().getMessage()).startsWith("after " + k + " rounds: ");
                }
            }
        }
    }

    @Test
    void mismatchedLengthsInOneGredFailEveryRankNamingTheMismatch() {
        try (InJvmCluster cluster = TestClusters.start(TestClusters.spec(1, 5, 1, TreeShape.FLAT), TIMEOUT)) {
            List<Outcome<Void>> outcomes = RankThreads.run(cluster, Duration.ofSeconds(30), comm -> {
                long[] values = new long[3];
                comm.allreduce(values, comm.rank() == 2 ? 3 : 2, ReduceOp.SUM);
                return null;
            });
            for (Outcome<Void> o : outcomes) {
                assertThat(o.error()).as("rank %d", o.rank()).isInstanceOf(CommException.class)
                        .hasMessageContaining("gred t0.gred.h0.0")
                        .hasMessageContaining("3 LONG words")
                        .hasMessageContaining("2 LONG words")
                        .hasMessageContaining("same collective");
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("multiRankLayouts")
    void mismatchedCollectivesInAnyTreeFailEveryRankAndTheOddRankSeesTheMismatch(Layout layout) {
        int odd = layout.spec().ranks() - 1;
        try (InJvmCluster cluster = TestClusters.start(layout.spec(), TIMEOUT)) {
            List<Outcome<Void>> outcomes = RankThreads.run(cluster, Duration.ofSeconds(30), comm -> {
                if (comm.rank() == odd) {
                    comm.allreduce(new double[] {1, 2}, 2, ReduceOp.MAX);
                } else {
                    comm.allreduce(new long[] {1, 2}, 2, ReduceOp.MAX);
                }
                return null;
            });
            for (Outcome<Void> o : outcomes) {
                assertThat(o.error()).as("rank %d", o.rank()).isInstanceOf(CommException.class);
                assertThat(o.elapsedNanos()).as("rank %d failed, not hung", o.rank()).isLessThan(BOUND_NANOS);
                // Ranks whose paths never meet the odd one's below the gred that saw the mismatch can only see
                // that gred's output never arrive.
                assertThat(o.error().getMessage()).as("rank %d", o.rank())
                        .containsAnyOf("same collective", "contributors arrived");
            }
            assertThat(outcomes.get(odd).error().getMessage())
                    .contains("same collective").contains("DOUBLE").contains("LONG");
        }
    }

    static List<Layout> multiRankLayouts() {
        return Layout.several().stream().filter(l -> l.spec().ranks() > 1).toList();
    }

    @Test
    void afterAFailureLaterCallsOnTheFailedTreeFailAtOnceWithTheSameCause() {
        // A long timeout: the later calls finishing inside the bound proves they did not wait for it.
        Duration longTimeout = Duration.ofSeconds(60);
        try (InJvmCluster cluster = TestClusters.start(TestClusters.spec(1, 4, 1, TreeShape.FLAT), longTimeout)) {
            List<Outcome<List<String>>> outcomes = RankThreads.run(cluster, Duration.ofSeconds(20), comm -> {
                List<String> messages = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    try {
                        comm.allreduce(new long[4], i == 0 && comm.rank() == 1 ? 4 : 3, ReduceOp.SUM);
                        messages.add("ok");
                    } catch (CommException e) {
                        messages.add(e.getMessage());
                    }
                    try {
                        comm.barrier();
                        messages.add("ok");
                    } catch (CommException e) {
                        messages.add(e.getMessage());
                    }
                }
                return messages;
            });
            for (Outcome<List<String>> o : outcomes) {
                assertThat(o.error()).isNull();
                List<String> messages = o.value();
                assertThat(messages.get(0)).contains("same collective");
                assertThat(messages).as("rank %d: every later call fails with the first cause", o.rank())
                        .allSatisfy(m -> assertThat(m).contains(messages.get(0)));
            }
        }
    }

    @Test
    void afterOneTreeFailedEveryLaterCollectiveFailsAtOnceWithThatFailure() {
        int dead = 3;
        try (InJvmCluster cluster = TestClusters.start(TestClusters.spec(3, 6, 2, TreeShape.hier(2)), TIMEOUT)) {
            List<Outcome<List<String>>> outcomes = RankThreads.run(cluster, Duration.ofSeconds(30), comm -> {
                List<String> messages = new ArrayList<>();
                if (comm.rank() == dead) {
                    return messages;
                }
                for (int i = 0; i < 6; i++) {
                    try {
                        comm.allreduce(1L, ReduceOp.SUM);
                        messages.add("ok");
                    } catch (CommException e) {
                        messages.add(e.getMessage());
                    }
                }
                return messages;
            });
            for (Outcome<List<String>> o : outcomes) {
                assertThat(o.error()).isNull();
                if (o.rank() == dead) {
                    continue;
                }
                List<String> m = o.value();
                assertThat(m).hasSize(6).noneMatch(s -> s.equals("ok"));
                assertThat(m.get(0)).contains("gred t0.");
                for (int i = 1; i < 6; i++) {
                    // Tree 1 is never entered: the rank does not wait out a second timeout to learn the job is broken.
                    assertThat(m.get(i)).as("rank %d call %d", o.rank(), i)
                            .contains("an earlier collective failed").contains(m.get(0));
                }
            }
        }
    }

    @Test
    void failingEveryHostsGredsReleasesWaitingRanksWithTheCause() throws Exception {
        try (InJvmCluster cluster = TestClusters.start(TestClusters.spec(2, 4, 1, TreeShape.hier(2)), Duration.ofSeconds(60))) {
            Thread failer = new Thread(() -> {
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    return;
                }
                for (HostRuntime host : cluster.hosts()) {
                    host.failAll(new CommException("host h1 lost its connection"));
                }
            }, "failer");
            failer.start();
            List<Outcome<Long>> outcomes = RankThreads.run(cluster, Duration.ofSeconds(20), comm ->
                    comm.rank() == 3 ? 0L : comm.allreduce(1L, ReduceOp.SUM));
            failer.join(10_000);
            for (Outcome<Long> o : outcomes) {
                if (o.rank() != 3) {
                    assertThat(o.error()).as("rank %d", o.rank()).isInstanceOf(CommException.class)
                            .hasMessageContaining("host h1 lost its connection");
                }
            }
        }
    }

    @Test
    void aRecvWithNoSenderTimesOutNamingTheElement() {
        try (InJvmCluster cluster = TestClusters.start(TestClusters.spec(2, 3, 1, TreeShape.FLAT), TIMEOUT)) {
            List<Outcome<Integer>> outcomes = RankThreads.run(cluster, Duration.ofSeconds(20), comm ->
                    comm.rank() == 2 ? comm.recv(0, new long[1]) : 0);
            assertThat(outcomes.get(2).error()).isInstanceOf(CommException.class)
                    .hasMessageContaining("element " + PathComm.mailbox(0, 2))
                    .hasMessageContaining("no tuple");
            assertThat(outcomes.get(2).elapsedNanos()).isLessThan(BOUND_NANOS);
        }
    }

    @Test
    void aResultLargerThanTheResultElementFailsEveryRankNamingTheLimit() {
        // A result element of 8 words; the collective asks for 9.
        PathmapSpec spec = new PathmapSpec(Topology.simulated(1, 2, 2), 4, 1, TreeShape.hier(2), Map.of(),
                PathmapSpec.blockMapping(4, 2), 0, 8);
        try (InJvmCluster cluster = TestClusters.start(spec, TIMEOUT)) {
            List<Outcome<Void>> outcomes = RankThreads.run(cluster, Duration.ofSeconds(20), comm -> {
                comm.allreduce(new long[9], 9, ReduceOp.SUM);
                return null;
            });
            for (Outcome<Void> o : outcomes) {
                assertThat(o.error()).as("rank %d", o.rank()).isInstanceOf(CommException.class)
                        .hasMessageContaining("t0.result").hasMessageContaining("at most 8 words").hasMessageContaining("length=9");
            }
        }
    }

}
