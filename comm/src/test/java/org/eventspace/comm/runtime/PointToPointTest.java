package org.eventspace.comm.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import org.eventspace.comm.Comm;
import org.eventspace.comm.path.CommException;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.testing.RankThreads.Outcome;
import org.eventspace.comm.testing.RankThreads;
import org.eventspace.comm.testing.TestClusters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** send/recv between ranks on one simulated host and on two: ping-pong, lengths, the limits and their errors. */
class PointToPointTest {
    private static final Duration BOUND = Duration.ofSeconds(60);

    /** Two ranks on {@code hosts} hosts (1: same host, 2: one rank per host, so every message crosses a hop). */
    private static PathmapSpec twoRanksOn(int hosts) {
        return TestClusters.spec(hosts, 2, 1, TreeShape.FLAT);
    }

    @ParameterizedTest(name = "two ranks on {0} host(s)")
    @ValueSource(ints = {1, 2})
    void aThousandPingPongsReturnEveryMessageIntact(int hosts) {
        PathmapSpec spec = twoRanksOn(hosts);
        assertThat(spec.hostOf(0) != spec.hostOf(1)).isEqualTo(hosts == 2);
        try (InJvmCluster cluster = TestClusters.start(spec)) {
            List<Long> bad = RankThreads.values(cluster, BOUND, comm -> {
                long[] buf = new long[64];
                long wrong = 0;
                int other = 1 - comm.rank();
                for (int i = 0; i < 1_000; i++) {
                    int length = 1 + i % 64;
                    if (comm.rank() == 0) {
                        for (int w = 0; w < length; w++) {
                            buf[w] = (long) i << 16 | w;
                        }
                        comm.send(other, buf, length);
                        Arrays.fill(buf, -1);
                        int got = comm.recv(other, buf);
                        if (got != length || !isEcho(buf, i, length)) {
                            wrong++;
                        }
                    } else {
                        int got = comm.recv(other, buf);
                        if (got != length) {
                            wrong++;
                        }
                        for (int w = 0; w < got; w++) {
                            buf[w] = ~buf[w];       // pong carries a transform, not the ping itself
                        }
                        comm.send(other, buf, got);
                    }
                }
                return wrong;
            });
            assertThat(bad).containsExactly(0L, 0L);
        }
    }

    private static boolean isEcho(long[] buf, int i, int length) {
        for (int w = 0; w < length; w++) {
            if (buf[w] != ~((long) i << 16 | w)) {
                return false;
            }
        }
        return true;
    }

    @ParameterizedTest(name = "two ranks on {0} host(s)")
    @ValueSource(ints = {1, 2})
    void messagesOfEveryLengthUpToTheLimitArriveWhole(int hosts) {
        int[] lengths = {0, 1, 2, 7, 63, 64, 65, 511, HostRuntime.P2P_WORDS - 1, HostRuntime.P2P_WORDS};
        try (InJvmCluster cluster = TestClusters.start(twoRanksOn(hosts))) {
            List<String> problems = RankThreads.values(cluster, BOUND, comm -> {
                StringBuilder p = new StringBuilder();
                long[] buf = new long[HostRuntime.P2P_WORDS];
                for (int length : lengths) {
                    if (comm.rank() == 0) {
                        for (int w = 0; w < length; w++) {
                            buf[w] = length * 100_000L + w;
                        }
                        comm.send(1, buf, length);
                    } else {
                        // Exactly-sized buffer: a message of n words fits a buffer of n.
                        long[] into = new long[length];
                        int got = comm.recv(0, into);
                        if (got != length) {
                            p.append("length ").append(length).append(" arrived as ").append(got).append("; ");
                        }
                        for (int w = 0; w < got; w++) {
                            if (into[w] != length * 100_000L + w) {
                                p.append("length ").append(length).append(" word ").append(w).append("; ");
                                break;
                            }
                        }
                    }
                }
                return p.toString();
            });
            assertThat(problems).containsOnly("");
        }
    }

    @Test
    void aRankMaySendToItself() {
        try (InJvmCluster cluster = TestClusters.start(twoRanksOn(1))) {
            List<Long> got = RankThreads.values(cluster, BOUND, comm -> {
                comm.send(comm.rank(), new long[] {comm.rank() + 40}, 1);
                long[] buf = new long[1];
                comm.recv(comm.rank(), buf);
                return buf[0];
            });
            assertThat(got).containsExactly(40L, 41L);
        }
    }

    @ParameterizedTest(name = "two ranks on {0} host(s)")
    @ValueSource(ints = {1, 2})
    void aMessageLongerThanTheReceiveBufferIsAClearError(int hosts) {
        try (InJvmCluster cluster = TestClusters.start(twoRanksOn(hosts))) {
            List<Outcome<Integer>> outcomes = RankThreads.run(cluster, BOUND, comm -> {
                if (comm.rank() == 0) {
                    comm.send(1, new long[10], 10);
                    comm.send(1, new long[] {5, 6}, 2);
                    return 0;
                }
                long[] small = new long[4];
                try {
                    comm.recv(0, small);
                    throw new AssertionError("a 10-word message fit a 4-word buffer");
                } catch (CommException e) {
                    assertThat(e).hasMessageContaining("rank 1").hasMessageContaining("rank 0")
                            .hasMessageContaining("10 words").hasMessageContaining("holds 4");
                }
                // The refused message is consumed (as MPI_ERR_TRUNCATE does); the next one is intact.
                int got = comm.recv(0, small);
                assertThat(got).isEqualTo(2);
                assertThat(small[0]).isEqualTo(5);
                return got;
            });
            assertThat(outcomes).allSatisfy(o -> assertThat(o.error()).isNull());
        }
    }

    @ParameterizedTest(name = "two ranks on {0} host(s)")
    @ValueSource(ints = {1, 2})
    void aMessageLongerThanThePointToPointLimitIsRefusedWithTheLimit(int hosts) {
        try (InJvmCluster cluster = TestClusters.start(twoRanksOn(hosts))) {
            Comm comm = cluster.comm(0);
            int tooLong = HostRuntime.P2P_WORDS + 1;
            assertThatThrownBy(() -> comm.send(1, new long[tooLong], tooLong))
                    .isInstanceOf(CommException.class)
                    .hasMessageContaining(PathComm.mailbox(0, 1))
                    .hasMessageContaining("at most " + HostRuntime.P2P_WORDS + " words")
                    .hasMessageContaining("length=" + tooLong);
        }
    }

    @Test
    void aReceiverThatFallsMoreThanTheElementsCapacityBehindIsToldHowManyItLost() {
        int sent = HostRuntime.P2P_CAPACITY + 6;
        try (InJvmCluster cluster = TestClusters.start(twoRanksOn(2))) {
            List<Outcome<Void>> outcomes = RankThreads.run(cluster, BOUND, comm -> {
                if (comm.rank() == 0) {
                    for (int i = 0; i < sent; i++) {
                        comm.send(1, new long[] {i}, 1);
                    }
                    comm.barrier();
                } else {
                    comm.barrier();
                    comm.recv(0, new long[1]);
                }
                return null;
            });
            assertThat(outcomes.get(0).error()).isNull();
            assertThat(outcomes.get(1).error()).isInstanceOf(CommException.class)
                    .hasMessageContaining("lost 6 messages").hasMessageContaining("from rank 0");
        }
    }

    @Test
    void aRecvWithNoSenderTimesOutNamingTheElement() {
        try (InJvmCluster cluster = TestClusters.start(twoRanksOn(2), Duration.ofMillis(300))) {
            Comm comm = cluster.comm(1);
            assertThatThrownBy(() -> comm.recv(0, new long[4]))
                    .isInstanceOf(CommException.class)
                    .hasMessageContaining("element " + PathComm.mailbox(0, 1))
                    .hasMessageContaining("300 ms");
        }
    }

    @Test
    void sendAndRecvRejectRanksOutsideTheJob() {
        try (InJvmCluster cluster = TestClusters.start(twoRanksOn(1))) {
            Comm comm = cluster.comm(0);
            assertThatThrownBy(() -> comm.send(2, new long[1], 1)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("=2");
            assertThatThrownBy(() -> comm.recv(-1, new long[1])).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("=-1");
        }
    }
}
