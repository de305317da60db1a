package org.eventspace.base.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Chan, Golub and LeVeque's pairwise merge (1979) of Welford accumulators equals one accumulator over the
 * concatenation, whatever the split: count, minimum and maximum exactly, mean and variance within a relative
 * tolerance — also for the values ToM's statistics are hardest on, a large mean with a small spread.
 */
class RunningStatisticsProperties {
    /** Relative tolerance of mean and standard deviation: rounding of a few thousand steps, far below any reading. */
    private static final double RELATIVE = 1e-9;

    @Property(tries = 300)
    void mergedPartialsEqualTheConcatenation(@ForAll("values") List<Double> values,
                                             @ForAll @IntRange(min = 1, max = 12) int parts,
                                             @ForAll long splitSeed) {
        assertMergeEqualsConcatenation(values, parts, splitSeed);
    }

    /**
     * The precision case: 1e6 ± 1 (latencies of a second in µs jittering by one). Σx²/n − mean² would cancel
     * every digit of the variance here; (n, mean, M2) keeps it.
     */
    @Property(tries = 300)
    void mergedPartialsKeepASmallSpreadBesideALargeMean(@ForAll("nearAMillion") List<Double> values,
                                                        @ForAll @IntRange(min = 1, max = 12) int parts,
                                                        @ForAll long splitSeed) {
        assertMergeEqualsConcatenation(values, parts, splitSeed);
        RunningStatistics all = accumulate(values);
        assertThat(all.standardDeviation()).isCloseTo(twoPassSd(values), within(1e-9));
    }

    @Property(tries = 200)
    void mergeOrderDoesNotMatter(@ForAll("values") @Size(min = 1, max = 200) List<Double> a,
                                 @ForAll("values") @Size(min = 1, max = 200) List<Double> b) {
        RunningStatistics ab = accumulate(a);
        ab.merge(accumulate(b));
        RunningStatistics ba = accumulate(b);
        ba.merge(accumulate(a));
        assertThat(ab.count()).isEqualTo(ba.count());
        assertThat(ab.min()).isEqualTo(ba.min());
        assertThat(ab.max()).isEqualTo(ba.max());
        assertThat(ab.mean()).isCloseTo(ba.mean(), within(tolerance(a, b)));
        assertThat(ab.standardDeviation()).isCloseTo(ba.standardDeviation(), within(tolerance(a, b)));
    }

    @Provide
    Arbitrary<List<Double>> values() {
        return Arbitraries.doubles().between(-1e6, 1e6).ofScale(3).list().ofMaxSize(400);
    }

    @Provide
    Arbitrary<List<Double>> nearAMillion() {
        return Arbitraries.doubles().between(1e6 - 1, 1e6 + 1).ofScale(6).list().ofMinSize(1).ofMaxSize(2000);
    }

    private static void assertMergeEqualsConcatenation(List<Double> values, int parts, long splitSeed) {
        RunningStatistics whole = accumulate(values);
        RunningStatistics merged = new RunningStatistics();
        for (List<Double> part : split(values, parts, splitSeed)) {
            RunningStatistics partial = accumulate(part);
            merged.merge(partial);
        }
        assertThat(merged.count()).isEqualTo(values.size());
        if (values.isEmpty()) {
            assertThat(merged.summary()).isEqualTo(whole.summary());
            assertThat(merged.mean()).isNaN();
            return;
        }
        double tolerance = tolerance(values, List.of());
        assertThat(merged.min()).isEqualTo(whole.min());
        assertThat(merged.max()).isEqualTo(whole.max());
        assertThat(merged.mean()).isCloseTo(whole.mean(), within(tolerance));
        assertThat(merged.standardDeviation()).isCloseTo(whole.standardDeviation(), within(tolerance));
        assertThat(whole.mean()).isCloseTo(values.stream().mapToDouble(Double::doubleValue).average().orElseThrow(),
                within(tolerance));
        assertThat(whole.standardDeviation()).isCloseTo(twoPassSd(values), within(tolerance));
    }

    /** Cuts {@code values} into {@code parts} contiguous pieces at seeded points, some of them empty. */
    private static List<List<Double>> split(List<Double> values, int parts, long seed) {
        java.util.Random random = new java.util.Random(seed);
        int[] cuts = new int[parts + 1];
        cuts[parts] = values.size();
        for (int i = 1; i < parts; i++) {
            cuts[i] = values.isEmpty() ? 0 : random.nextInt(values.size() + 1);
        }
        java.util.Arrays.sort(cuts);
        List<List<Double>> out = new ArrayList<>();
        for (int i = 0; i < parts; i++) {
            out.add(values.subList(cuts[i], cuts[i + 1]));
        }
        return out;
    }

    static RunningStatistics accumulate(List<Double> values) {
        RunningStatistics s = new RunningStatistics();
        values.forEach(s::add);
        return s;
    }

    /** The population standard deviation by the two-pass formula, the reference (Chan et al. 1979, eq. 1.1). */
    static double twoPassSd(List<Double> values) {
        double mean = values.stream().mapToDouble(Double::doubleValue).sum() / values.size();
        double squares = 0;
        for (double x : values) {
            squares += (x - mean) * (x - mean);
        }
        return Math.sqrt(squares / values.size());
    }

    private static double tolerance(List<Double> a, List<Double> b) {
        double largest = 0;
        for (double x : a) {
            largest = Math.max(largest, Math.abs(x));
        }
        for (double x : b) {
            largest = Math.max(largest, Math.abs(x));
        }
        return RELATIVE * (1 + largest);
    }
}
