package org.eventspace.comm.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.testing.RankThreads;
import org.eventspace.comm.testing.TestClusters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ButterflyTest {

    @Test
    void everyPartnerListsItsPartnerBackAndEachHostMeetsEveryOtherThroughTheRounds() {
        for (int hosts = 1; hosts <= 40; hosts++) {
            int p = Integer.highestOneBit(hosts);
            for (int i = 0; i < hosts; i++) {
                Butterfly.Plan plan = Butterfly.Plan.of(i, hosts);
                for (int j : plan.partners()) {
                    assertThat(j).isBetween(0, hosts - 1).isNotEqualTo(i);
                    assertThat(Butterfly.Plan.of(j, hosts).partners()).as("%d of %d pairs with %d", i, hosts, j).contains(i);
                }
                int expected = i >= p ? 1 : Integer.numberOfTrailingZeros(p) + (i + p < hosts ? 1 : 0);
                assertThat(plan.partners()).as("host %d of %d", i, hosts).hasSize(expected).doesNotHaveDuplicates();
            }
        }
    }

    @Test
    void aButterflyTreeHasAnExchangeAndACoreOnEveryHostAndNoProxy() {
        Pathmap pathmap = PathmapBuilder.build(TestClusters.spec(5, 10, 2, TreeShape.parse("butterfly")));
        for (int tree = 0; tree < 2; tree++) {
            List<Node> exchanges = Butterfly.exchanges(pathmap, tree);
            assertThat(exchanges).hasSize(5);
            for (Node e : exchanges) {
                assertThat(pathmap.node(e.parent()).kind()).isEqualTo(PathmapBuilder.CORE);
                assertThat(pathmap.node(e.parent()).host()).isEqualTo(e.host());
            }
            assertThat(pathmap.roots(tree)).hasSize(5);
        }
        assertThat(pathmap.nodes()).extracting(Node::kind).doesNotContain(PathmapBuilder.PROXY);
        assertThat(pathmap.busyThreads()).isEqualTo(10);
        assertThat(TreeShape.parse("butterfly:4")).hasToString("butterfly:4");
        assertThat(TreeShape.parse("butterfly")).hasToString("butterfly");
    }

    @ParameterizedTest(name = "{0} hosts, {1} ranks")
    @CsvSource({"1, 3", "2, 2", "3, 3", "4, 8", "5, 5", "6, 12", "7, 7", "8, 8"})
    void everyRankGetsTheSameExactResultOfEveryCollectiveWhateverTheNumberOfHosts(int hosts, int ranks) {
        try (InJvmCluster cluster = TestClusters.start(TestClusters.spec(hosts, ranks, 2, TreeShape.parse("butterfly")))) {
            List<String> outcomes = RankThreads.values(cluster, Duration.ofSeconds(60), comm -> {
                int n = comm.size();
                long sumOfRanks = (long) n * (n - 1) / 2;
                List<Long> doubles = new ArrayList<>();
                for (int i = 0; i < 300; i++) {
                    if (comm.allreduce((long) comm.rank() + i, ReduceOp.SUM) != sumOfRanks + (long) n * i) {
                        return "long sum wrong at " + i;
                    }
                    if (comm.allreduce((long) comm.rank() * 7 - i, ReduceOp.MAX) != (long) (n - 1) * 7 - i) {
                        return "max wrong at " + i;
                    }
                    if (comm.allreduce(comm.rank() + 0.1 * i, ReduceOp.MIN) != 0.1 * i) {
                        return "min wrong at " + i;
                    }
                    doubles.add(Double.doubleToRawLongBits(comm.allreduce(1.0 / (comm.rank() + 3) + i, ReduceOp.SUM)));
                }
                long[] data = new long[3];
                if (comm.rank() == n - 1) {
                    data = new long[] {11, 22, 33};
                }
                comm.broadcast(data, 3, n - 1);
                long[] all = new long[n];
                comm.allgather(new long[] {comm.rank() * 10L}, 1, all);
                long[] expected = new long[n];
                for (int r = 0; r < n; r++) {
                    expected[r] = r * 10L;
                }
                if (!Arrays.equals(data, new long[] {11, 22, 33}) || !Arrays.equals(all, expected)) {
                    return "broadcast " + Arrays.toString(data) + ", allgather " + Arrays.toString(all);
                }
                comm.barrier();
                return "ok " + doubles.hashCode();
            });
            // Every rank folded the same pairs: the double sums agree to the bit.
            assertThat(outcomes).hasSize(ranks).allSatisfy(o -> assertThat(o).startsWith("ok ")).containsOnly(outcomes.get(0));
        }
    }

    @Test
    void aClosedPartnerFailsTheWaitingRankAtOnceNamingTheExchange() {
        try (InJvmCluster cluster = TestClusters.start(TestClusters.spec(2, 2, 1, TreeShape.parse("butterfly")),
                Duration.ofSeconds(20))) {
            long start = System.nanoTime();
            List<RankThreads.Outcome<Long>> outcomes = RankThreads.run(cluster, Duration.ofSeconds(30), comm -> {
                if (comm.rank() == 1) {
                    cluster.host(1).close();
                    return 0L;
                }
                return comm.allreduce(1L, ReduceOp.SUM);
            });
            assertThat(outcomes.get(0).error()).isInstanceOf(CommException.class)
                    .hasMessageContaining("exchange").hasMessageContaining("h0").hasMessageContaining("h1");
            // The close, not the 20 s timeout, ended the wait.
            assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(10));
        }
    }
}
