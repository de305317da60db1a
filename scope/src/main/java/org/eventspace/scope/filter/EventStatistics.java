package org.eventspace.scope.filter;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Count, mean, sum of squared deviations (M2), minimum and maximum of one event's values: the partial aggregate
 * a node of ToM's StatsFilter (§4.1) computes over its subtree and passes up. Samples are added with Welford's
 * update and partial aggregates merged with Chan et al.'s pairwise formula, so no node ever subtracts two large
 * sums of squares (the naive count/sum/sum-of-squares form loses all precision when the spread is small beside
 * the mean, e.g. latencies of 1e6 µs ± 1 µs). Count, minimum and maximum merge exactly. Not thread-safe.
 */
final class EventStatistics {
    /** Doubles per event in a packet: mean, M2, minimum, maximum (the count goes in the longs). */
    static final int DOUBLES = 4;

    private long count;
    private double mean;
    private double m2;
    private double min = Double.POSITIVE_INFINITY;
    private double max = Double.NEGATIVE_INFINITY;

    void add(double x) {
        count++;
        double delta = x - mean;
        mean += delta / count;
        m2 += delta * (x - mean);
        min = Math.min(min, x);
        max = Math.max(max, x);
    }

    /** Adds {@code other}'s samples (Chan, Golub, LeVeque 1979: the pairwise update of mean and M2). */
    void merge(long otherCount, double otherMean, double otherM2, double otherMin, double otherMax) {
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

    /** Merges the aggregate stored at index {@code i} of a packet's counts and doubles (see {@link #write}). */
    void merge(long[] counts, int countIndex, double[] doubles, int doubleIndex) {
        merge(counts[countIndex], doubles[doubleIndex], doubles[doubleIndex + 1], doubles[doubleIndex + 2],
                doubles[doubleIndex + 3]);
    }

    /** Stores the count at {@code counts[countIndex]} and mean, M2, min, max from {@code doubles[doubleIndex]}. */
    void write(long[] counts, int countIndex, double[] doubles, int doubleIndex) {
        counts[countIndex] = count;
        doubles[doubleIndex] = mean;
        doubles[doubleIndex + 1] = m2;
        doubles[doubleIndex + 2] = min;
        doubles[doubleIndex + 3] = max;
    }

    long count() {
        return count;
    }

    /** Population standard deviation: the ranks of a round are the whole population, not a sample of it. */
    double standardDeviation() {
        return count == 0 ? 0.0 : Math.sqrt(Math.max(0.0, m2) / count);
    }

    /** The front-end's view: {count, mean, sd, min, max}. */
    Map<String, Object> toResult() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("count", count);
        out.put("mean", mean);
        out.put("sd", standardDeviation());
        out.put("min", min);
        out.put("max", max);
        return out;
    }
}
