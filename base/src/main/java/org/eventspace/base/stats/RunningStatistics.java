package org.eventspace.base.stats;

/**
 * Count, mean, variance, minimum and maximum of a stream of values, accumulated in one pass and mergeable: the
 * partial aggregate a node of ToM's StatsFilter (§4.1) computes over its subtree and passes up, the per-wrapper
 * latencies of the post-mortem dump (dissertation §7.1 §3) and a benchmark's repeats. Not thread-safe: one
 * accumulator belongs to one thread at a time.
 *
 * <p>Values are added with Welford's update (Welford 1962; Knuth, TAOCP vol. 2, §4.2.2) and accumulators merged
 * with the pairwise update of Chan, Golub and LeVeque (1979, eq. 1.5b): the state is (n, mean, M2), M2 the sum of
 * squared deviations from the mean, so nothing ever subtracts two large sums of squares. The textbook form
 * (n, Σx, Σx²) loses every significant digit when the spread is small beside the mean — latencies of 1e6 µs ± 1 µs
 * give Σx²/n − mean² ≈ 1e12 − 1e12 — while (n, mean, M2) keeps them. Count, minimum and maximum merge exactly.
 *
 * <p>{@link #add} allocates nothing. An empty accumulator has count 0 and NaN mean, variance, minimum and
 * maximum; merging an empty one changes nothing.
 */
public final class RunningStatistics {
    private long count;
    private double mean;
    private double m2;
    private double min = Double.POSITIVE_INFINITY;
    private double max = Double.NEGATIVE_INFINITY;

    /** Adds one value (Welford's update). */
    public void add(double x) {
        count++;
        double delta = x - mean;
        mean += delta / count;
        m2 += delta * (x - mean);
        min = Math.min(min, x);
        max = Math.max(max, x);
    }

    /** Adds every value {@code other} holds; {@code other} is unchanged. */
    public void merge(RunningStatistics other) {
        merge(other.count, other.mean, other.m2, other.min, other.max);
    }

    /**
     * Adds a partial aggregate of {@code otherCount} values given as its state, as a scope packet carries it
     * (Chan, Golub, LeVeque 1979: the pairwise update of mean and M2).
     *
     * @throws IllegalArgumentException if {@code otherCount} is negative.
     */
    public void merge(long otherCount, double otherMean, double otherM2, double otherMin, double otherMax) {
        if (otherCount < 0) {
            throw new IllegalArgumentException("count must be >= 0, count=" + otherCount);
        }
        if (otherCount == 0) {
            return;
        }
        if (count == 0) {
            count = otherCount;
            mean = otherMean;
            m2 = otherM2;
        } else {
            long n = count + otherCount;
            double delta = otherMean - mean;
            mean += delta * ((double) otherCount / n);
            m2 += otherM2 + delta * delta * ((double) count * otherCount / n);
            count = n;
        }
        min = Math.min(min, otherMin);
        max = Math.max(max, otherMax);
    }

    /** Forgets every value: the accumulator is as new. */
    public void reset() {
        count = 0;
        mean = 0;
        m2 = 0;
        min = Double.POSITIVE_INFINITY;
        max = Double.NEGATIVE_INFINITY;
    }

    public long count() {
        return count;
    }

    /** The mean; NaN when empty. */
    public double mean() {
        return count == 0 ? Double.NaN : mean;
    }

    /** The sum of squared deviations from the mean (M2), the state a merge needs; 0 when empty. */
    public double m2() {
        return m2;
    }

    /**
     * The population variance M2 / n: the ranks of a round are the whole population, not a sample of it, and so
     * are the calls a dump holds. NaN when empty. Rounding can leave M2 a hair below 0; it reads as 0.
     */
    public double variance() {
        return count == 0 ? Double.NaN : Math.max(0.0, m2) / count;
    }

    /** The population standard deviation, √{@link #variance()}; NaN when empty. */
    public double standardDeviation() {
        return Math.sqrt(variance());
    }

    /** The smallest value; NaN when empty. */
    public double min() {
        return count == 0 ? Double.NaN : min;
    }

    /** The largest value; NaN when empty. */
    public double max() {
        return count == 0 ? Double.NaN : max;
    }

    /** An immutable snapshot of the measures now, with no windowed median. */
    public StatisticsSummary summary() {
        return new StatisticsSummary(count, mean(), standardDeviation(), min(), max(), null);
    }

    @Override
    public String toString() {
        return summary().toString();
    }
}
