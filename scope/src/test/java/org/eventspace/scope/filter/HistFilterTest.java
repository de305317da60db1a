package org.eventspace.scope.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

class HistFilterTest {
    @Test
    void binRuleIsEqualWidthWithTheMaximumInTheLastBin() {
        assertThat(HistFilter.bin(0.0, 0, 10, 5)).isEqualTo(0);
        assertThat(HistFilter.bin(1.99, 0, 10, 5)).isEqualTo(0);
        assertThat(HistFilter.bin(2.0, 0, 10, 5)).isEqualTo(1);
        assertThat(HistFilter.bin(9.99, 0, 10, 5)).isEqualTo(4);
        assertThat(HistFilter.bin(10.0, 0, 10, 5)).as("value == max").isEqualTo(4);
        assertThat(HistFilter.bin(-1.0, 0, 10, 5)).as("below: clamped").isEqualTo(0);
        assertThat(HistFilter.bin(11.0, 0, 10, 5)).as("above: clamped").isEqualTo(4);
        assertThat(HistFilter.bin(3.0, 3, 3, 7)).as("min == max").isEqualTo(0);
        assertThat(HistFilter.bin(3.0, Double.NaN, Double.NaN, 7)).isEqualTo(0);
        assertThat(HistFilter.bin(Double.NaN, 0, 10, 5)).isEqualTo(0);
        assertThat(HistFilter.bin(1e300, -1e308, 1e308, 4)).isEqualTo(2);
    }

    @Test
    void theFirstRoundFillsThePipelineAndEachLaterRoundCompletesThePreviousOne() {
        HistFilter leftLeaf = new HistFilter(2);
        HistFilter rightLeaf = new HistFilter(2);
        HistFilter root = new HistFilter(2);
        HistFilter frontEnd = new HistFilter(2);

        // Round 0: Phase A only; the leaves keep their records.
        Packet c0 = frontEnd.command(0, null);
        Packet r0 = root.up(c0, List.of(
                leftLeaf.leaf(c0, List.of(rec(0, "x", 0, 1.0), rec(0, "y", 0, 5.0))),
                rightLeaf.leaf(c0, List.of(rec(1, "x", 0, 3.0)))));
        assertThat(frontEnd.result(r0).isEmpty()).isTrue();

        // Round 1: the command brings round 0's bounds (x: [1, 3], y: [5, 5]); Phase C of round 0, Phase A of 1.
        Packet c1 = frontEnd.command(1, r0);
        assertThat(c1.longs()).containsExactly(0);
        assertThat(c1.records()).extracting(ScopeRecord::event).containsExactly("x", "y");
        assertThat(c1.doubles()).containsExactly(1.0, 3.0, 5.0, 5.0);
        Packet r1 = root.up(c1, List.of(
                leftLeaf.leaf(c1, List.of(rec(0, "x", 1, 10.0))),
                rightLeaf.leaf(c1, List.of(rec(1, "x", 1, 20.0)))));
        assertThat(frontEnd.result(r1)).isEqualTo(new HistResult(0, 2, new TreeMap<>(Map.of(
                "x", histogram(0, 1.0, 3.0, 1, 1),
                "y", histogram(0, 5.0, 5.0, 1, 0)))));

        // Flush: one more round with no records completes round 1.
        Packet c2 = frontEnd.command(2, r1);
        Packet r2 = root.up(c2, List.of(leftLeaf.leaf(c2, List.of()), rightLeaf.leaf(c2, List.of())));
        assertThat(frontEnd.result(r2)).isEqualTo(new HistResult(1, 2, new TreeMap<>(Map.of(
                "x", histogram(1, 10.0, 20.0, 1, 1)))));

        // Past the flush, a round with no data still reports its (empty) histogram.
        Packet c3 = frontEnd.command(3, r2);
        Packet r3 = root.up(c3, List.of(leftLeaf.leaf(c3, List.of()), rightLeaf.leaf(c3, List.of())));
        assertThat(frontEnd.result(r3)).isEqualTo(new HistResult(2, 2, new TreeMap<>()));
    }

    @Test
    void aSkippedRoundContributesZeroCountsAndTheLeafKeepsOnlyOneRound() {
        HistFilter leaf = new HistFilter(1);
        HistFilter frontEnd = new HistFilter(1);
        Packet c0 = frontEnd.command(0, null);
        Packet r0 = leaf.leaf(c0, List.of(rec(0, "x", 0, 1.0)));
        leaf.leaf(frontEnd.command(1, r0), List.of(rec(0, "x", 1, 2.0)));

        // The front-end lost round 1's root and sends round 0's bounds again with round 2's command.
        Packet c2 = frontEnd.command(2, r0);
        Packet r2 = leaf.leaf(c2, List.of());

        assertThat(frontEnd.result(r2)).isEqualTo(new HistResult(0, 1, new TreeMap<>(Map.of(
                "x", histogram(0, 1.0, 1.0, 0)))));
    }

    /**
     * ToM §4.2, Figure 6: the HistFilter "configured to use 10 bins to monitor 1024 MPI ranks with a ToM fanout
     * of 8" shows the Allreduce time "unevenly distributed across the ranks" and the "sudden increase in Allreduce
     * time at Step 100". Here 128 hosts of 8 ranks under a fan-out-8 tree, steps 97–103, rank r waiting
     * 100 + 10·(r mod 8) µs plus a spread by host, and 2000 µs more at step 100.
     */
    @Test
    void tomFigure6AllreduceHistogramOf1024RanksWithFanout8And10Bins() {
        int ranks = 1024;
        int hosts = 128;
        ScopeTreeSimulator tree = ScopeTreeSimulator.kary(hosts, 8, FilterSpec.parse("hist:10"));
        List<List<ScopeRecord>> steps = new ArrayList<>();
        for (int step = 97; step <= 103; step++) {
            List<ScopeRecord> records = new ArrayList<>();
            for (int r = 0; r < ranks; r++) {
                double wait = 100 + 10 * (r % 8) + (r / 8) % 16 + (step == 100 ? 2000 : 0);
                records.add(rec(r, "MPI_Allreduce()", step, wait));
            }
            steps.add(records);
        }
        List<FilterResult> results = new ArrayList<>();
        for (int i = 0; i <= steps.size(); i++) {
            int index = i;
            results.add(tree.round(97 + i, host -> index < steps.size()
                    ? steps.get(index).subList(host * 8, host * 8 + 8) : List.of()));
        }

        assertThat(results.get(0).isEmpty()).isTrue();
        for (int i = 1; i < results.size(); i++) {
            assertThat(results.get(i)).isEqualTo(HistFilterProperties.central(steps.get(i - 1), 10, 97 + i - 1));
            HistResult.Histogram allreduce = allreduce(results.get(i));
            assertThat(allreduce.count()).isEqualTo((long) ranks);
        }
        assertThat(allreduce(results.get(4)).min()).as("step 100 all slower than step 99")
                .isGreaterThan(allreduce(results.get(3)).max());
        assertThat(allreduce(results.get(3)).bins()).as("uneven across ranks: ten bins all used")
                .doesNotContain(0L);
        // What reduces the data: the root packet does not grow with the ranks (ToM §4.2).
        long[] rawWords = PacketCodec.encode(Packet.ofRecords(ConcatFilter.RECORDS, 100, steps.get(3)));
        assertThat(PacketCodec.encodedLength(tree.lastRoot())).isLessThan(rawWords.length / 100);
    }

    @Test
    void rootPacketSizeDependsOnEventsAndBinsNotOnRanks() {
        int[] sizes = new int[2];
        int[] rankCounts = {64, 1024};
        for (int k = 0; k < 2; k++) {
            int ranks = rankCounts[k];
            ScopeTreeSimulator tree = ScopeTreeSimulator.kary(ranks / 8, 8, FilterSpec.parse("hist:5"));
            for (int round = 0; round < 2; round++) {
                int rd = round;
                tree.round(round, host -> List.of(rec(host * 8, "MPI_Allreduce()", rd, host),
                        rec(host * 8 + 1, "compute", rd, -host)));
            }
            sizes[k] = PacketCodec.encodedLength(tree.lastRoot());
        }

        assertThat(sizes[1]).isEqualTo(sizes[0]);
    }

    @Test
    void theLargestBinCountWorksThroughTheTree() {
        int bins = HistFilter.MAX_BINS;
        ScopeTreeSimulator tree = ScopeTreeSimulator.kary(6, 3, FilterSpec.parse("hist:" + bins));
        List<ScopeRecord> records = new ArrayList<>();
        for (int r = 0; r < 60; r++) {
            records.add(rec(r, r % 2 == 0 ? "compute" : "MPI_Wait()", 0, Math.sqrt(r)));
        }

        tree.round(0, host -> records.subList(host * 10, host * 10 + 10));
        FilterResult result = tree.round(1, host -> List.of());

        assertThat(result).isEqualTo(HistFilterProperties.central(records, bins, 0));
    }

    @Test
    void mixedUpPacketsFailNamingChildRoundAndWhatWasExpected() {
        HistFilter node = new HistFilter(4);
        HistFilter other = new HistFilter(4);
        Packet c0 = node.command(0, null);
        Packet c5 = node.command(5, null);
        Packet fromRound0 = other.leaf(c0, List.of(rec(0, "x", 0, 1)));
        Packet fromThreeBins = new HistFilter(3).leaf(c5, List.of());

        assertThatThrownBy(() -> node.up(c5, List.of(node.leaf(c5, List.of()), fromRound0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("hist:4: child 1 sent tag 103 for round 0, expected tag 103 for round 5");
        assertThat(node.up(c5, List.of())).satisfies(p -> assertThat(p.records()).isEmpty());
        Packet r0 = other.up(c0, List.of(fromRound0));
        Packet c1 = node.command(1, r0);
        Packet binnedFour = new HistFilter(4).leaf(c1, List.of());
        // r0 binned nothing, so a 3-bin front-end accepts it too: its leaf then sends 3 bins per event.
        Packet binnedThree = new HistFilter(3).leaf(new HistFilter(3).command(1, r0), List.of());
        assertThatThrownBy(() -> node.up(c1, List.of(binnedFour, binnedThree)))
                .hasMessageStartingWith("hist:4: malformed packet from child 1: expected 1 + 0 names, 7 longs");
        assertThatThrownBy(() -> node.up(c5, List.of(fromThreeBins, Packet.ofRecords(ConcatFilter.RECORDS, 5, List.of()))))
                .hasMessage("hist:4: child 1 sent tag 100 for round 5, expected tag 103 for round 5");
        assertThatThrownBy(() -> node.command(1, Packet.of(ConcatFilter.RECORDS, 0)))
                .hasMessage("hist:4: previousRoot must be a histogram packet (tag 103) of a round before 1,"
                        + " tag=100, round=0");
        assertThatThrownBy(() -> node.command(0, r0)).hasMessageContaining("of a round before 0");
        assertThatThrownBy(() -> node.leaf(Packet.of(Packet.FIN, 3), List.of()))
                .hasMessage("hist:4: expected a PULL command (tag 2), tag=3, round=3");
    }

    private static HistResult.Histogram allreduce(FilterResult result) {
        assertThat(result).isInstanceOf(HistResult.class);
        return ((HistResult) result).events().get("MPI_Allreduce()");
    }

    private static HistResult.Histogram histogram(long round, double min, double max, long... bins) {
        List<Long> counts = new ArrayList<>();
        long total = 0;
        for (long b : bins) {
            counts.add(b);
            total += b;
        }
        return new HistResult.Histogram(round, min, max, total, counts);
    }

    static ScopeRecord rec(int rank, String event, long round, double value) {
        return new ScopeRecord(rank, event, round, value);
    }
}
