package org.eventspace.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;

import org.junit.jupiter.api.Test;

class DeltaHistogramTest {
    /** Algorithm 1, HistogramCreate(v = 10, k = 5): range 0..2v = 0..20 in bins of 2v/k = 4; v lands in 8..12. */
    /**
     * A replay waits bin averages in proportion to the bins' frequencies, so rebalancing must keep the total: with
     * heavy-tailed deltas (many short, a few very long, as preemptions make them) the sum of freq × avg stays the
     * sum of the values added, and every bin's average stays inside its bin.
     */
    @Test
    void rebalancingKeepsTheSumOfSkewedDeltas() {
        for (long seed = 0; seed < 20; seed++) {
            Random r = new Random(seed);
            DeltaHistogram h = DeltaHistogram.create(300, 5, 8);
            double sum = 300;
            for (int i = 0; i < 20_000; i++) {
                long v = r.nextInt(100) == 0 ? 50_000 + r.nextInt(300_000) : 250 + r.nextInt(100);
                h.add(v);
                sum += v;
            }
            double kept = 0;
            for (int b = 0; b < h.bins(); b++) {
                kept += h.binFreq(b) * h.binAvg(b);
                if (h.binFreq(b) > 0) {
                    assertThat(h.binAvg(b)).as("seed %d bin %d", seed, b).isBetween(h.binMin(b) - 1e-6, h.binMax(b) + 1e-6);
                }
            }
            assertThat(h.total()).isEqualTo(20_001);
            assertThat(kept).as("seed %d", seed).isCloseTo(sum, within(sum * 1e-9));
        }
    }

    @Test
    void algorithmOneCreatesTheRangeZeroToTwiceTheFirstValue() {
        DeltaHistogram h = DeltaHistogram.create(10, 5, 1000);
        for (int i = 0; i < 5; i++) {
            assertThat(h.binMin(i)).isEqualTo(4.0 * i);
            assertThat(h.binMax(i)).isEqualTo(4.0 * (i + 1));
        }
        assertThat(h.binFreq(2)).isEqualTo(1);
        assertThat(h.binAvg(2)).isEqualTo(10);
    }

    /** Algorithm 2: a new extreme widens the last bin; the bin's average and variance follow Welford's update. */
    @Test
    void algorithmTwoWidensForExtremesAndKeepsBinStatistics() {
        DeltaHistogram h = DeltaHistogram.create(10, 5, 1000);
        h.add(11);
        h.add(9);
        assertThat(h.binFreq(2)).isEqualTo(3);
        assertThat(h.binAvg(2)).isEqualTo(10);
        assertThat(h.binSd(2)).isCloseTo(1.0, within(1e-9));
        h.add(50);
        assertThat(h.binMax(4)).isEqualTo(50);
        assertThat(h.binFreq(4)).isEqualTo(1);
        assertThat(h.total()).isEqualTo(4);
    }

    /**
     * Rebalancing (Algorithm 2's smoothing step): values crowding one bin make it split at its average while two
     * adjacent sparse bins merge, so the fullest bin shrinks and the count of bins stays k.
     */
    @Test
    void rebalancingSplitsTheFullestBinAndMergesTheSparsest() {
        DeltaHistogram h = DeltaHistogram.create(100, 5, 8);
        Random r = new Random(1);
        for (int i = 0; i < 999; i++) {
            h.add(95 + r.nextInt(11)); // all in the middle bin 80..120 at first
        }
        assertThat(h.bins()).isEqualTo(5);
        assertThat(h.total()).isEqualTo(1000);
        long fullest = 0;
        int used = 0;
        for (int i = 0; i < 5; i++) {
            fullest = Math.max(fullest, h.binFreq(i));
            used += h.binFreq(i) > 0 ? 1 : 0;
            assertThat(h.binMin(i)).isLessThanOrEqualTo(h.binMax(i));
            if (i > 0) {
                assertThat(h.binMin(i)).isEqualTo(h.binMax(i - 1));
            }
        }
        assertThat(used).isGreaterThanOrEqualTo(3);
        assertThat(fullest).isLessThan(1000);
    }

    /**
     * Figure 3's point: when compute time varies between iterations (here two modes, 100 and 1000), the mean of the
     * statistics encoding describes no iteration, while the histogram keeps both modes apart.
     */
    @Test
    void histogramKeepsTwoModesThatTheMeanBlurs() {
        TraceConfig config = TraceConfig.of(TimeEncoding.HIST);
        DeltaTiming t = new DeltaTiming(config);
        for (int i = 0; i < 200; i++) {
            t.add(i % 2 == 0 ? 100 : 1000, 0, 0);
        }
        assertThat(t.stats().mean()).isEqualTo(550);
        DeltaHistogram h = t.histogram();
        boolean low = false, high = false;
        for (int i = 0; i < h.bins(); i++) {
            if (h.binFreq(i) > 0) {
                low |= Math.abs(h.binAvg(i) - 100) < 1;
                high |= Math.abs(h.binAvg(i) - 1000) < 1;
                assertThat(Math.abs(h.binAvg(i) - 550)).isGreaterThan(100);
            }
        }
        assertThat(low).isTrue();
        assertThat(high).isTrue();
    }

    /** Path-sensitive: the same event's compute delta kept apart by the previous call site (§3.3). */
    @Test
    void pathEncodingKeysHistogramsByThePreviousSite() {
        DeltaTiming t = new DeltaTiming(TraceConfig.of(TimeEncoding.PATH));
        for (int i = 0; i < 10; i++) {
            t.add(100, 0, 7);
            t.add(5000, 0, 9);
        }
        assertThat(t.paths()).containsOnlyKeys(7, 9);
        assertThat(t.paths().get(7).total()).isEqualTo(10);
        assertThat(t.paths().get(9).total()).isEqualTo(10);
    }

    /**
     * The inter-node merge (§3.2: "deltas from one histogram are moved to another while preserving node-imbalance
     * information"): every sample is kept, and the statistics keep the ranks with the minimum and the maximum.
     */
    @Test
    void mergingAcrossRanksKeepsEverySampleAndTheExtremeRanks() {
        TraceConfig config = TraceConfig.of(TimeEncoding.HIST);
        DeltaTiming fast = new DeltaTiming(config);
        DeltaTiming slow = new DeltaTiming(config);
        for (int i = 0; i < 40; i++) {
            fast.add(100 + i % 5, 2, 0);
            slow.add(4000 + i % 7, 9, 0);
        }
        fast.merge(slow);
        assertThat(fast.histogram().total()).isEqualTo(80);
        assertThat(fast.stats().count()).isEqualTo(80);
        assertThat(fast.stats().minRank()).isEqualTo(2);
        assertThat(fast.stats().maxRank()).isEqualTo(9);
        assertThat(fast.stats().max()).isEqualTo(4006);
        long above = 0;
        for (int i = 0; i < fast.histogram().bins(); i++) {
            if (fast.histogram().binAvg(i) > 1000) {
                above += fast.histogram().binFreq(i);
            }
        }
        assertThat(above).isEqualTo(40);
    }
}
