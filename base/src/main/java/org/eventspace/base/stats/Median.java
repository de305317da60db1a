package org.eventspace.base.stats;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The median of a finite sample: what a benchmark reports over its repeats, since one disturbed repeat moves a
 * mean and not a median. Stateless.
 *
 * <p>One definition, two readings. Sort the n values ascending, x(0) ≤ … ≤ x(n−1); the middle ones are
 * x(lo) and x(hi) with lo = ⌊(n−1)/2⌋ and hi = ⌊n/2⌋ (the same one when n is odd).
 * <ul>
 *   <li>{@link #of(double[])} is the sample median, (x(lo) + x(hi)) / 2 — for an even n the mean of the two
 *   middle values (R's quantile type 7 at ½), the figure the comparison with MPI reports;</li>
 *   <li>{@link #lowerOf} is the observation at x(lo), the lower median — for an even n the lower of the two
 *   middle ones — for a report that must quote one real run whole (the offload benchmark takes every figure
 *   from the run whose mean offload time is the median) rather than a value no run had.</li>
 * </ul>
 * For an odd n both are the middle value. A sliding-window median (see {@link StatisticsSummary}) is another
 * thing: it changes as values arrive and leave, and is not computed here.
 */
public final class Median {
    private Median() {
    }

    /**
     * The sample median of {@code values}, the mean of the two middle values for an even count; the array is
     * not changed. NaN sorts above every number ({@link Double#compare}).
     *
     * @throws IllegalArgumentException if there are no values.
     */
    public static double of(double[] values) {
        requireValues(values.length);
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int lo = lowerIndex(sorted.length);
        int hi = upperIndex(sorted.length);
        return lo == hi ? sorted[lo] : (sorted[lo] + sorted[hi]) / 2;
    }

    /**
     * The element of {@code sample} whose {@code key} is the lower median of the keys: the lower of the two
     * middle ones for an even count. Elements with equal keys keep their order in {@code sample} (the sort is
     * stable), so the choice among ties is the earlier element. The list is not changed.
     *
     * @throws IllegalArgumentException if the sample is empty.
     */
    public static <T> T lowerOf(List<T> sample, ToDoubleFunction<? super T> key) {
        requireValues(sample.size());
        List<T> sorted = new ArrayList<>(sample);
        sorted.sort(Comparator.comparingDouble(key));
        return sorted.get(lowerIndex(sorted.size()));
    }

    /** Index of the lower middle value of n sorted values, ⌊(n−1)/2⌋. */
    static int lowerIndex(int n) {
        return (n - 1) / 2;
    }

    /** Index of the upper middle value of n sorted values, ⌊n/2⌋. */
    static int upperIndex(int n) {
        return n / 2;
    }

    private static void requireValues(int n) {
        if (n == 0) {
            throw new IllegalArgumentException("the median of an empty sample is undefined, size=0");
        }
    }
}
