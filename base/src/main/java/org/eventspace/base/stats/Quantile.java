package org.eventspace.base.stats;

import java.util.Arrays;

/**
 * The q-quantile of a finite sample, interpolated linearly between the closest ranks: Hyndman and Fan's definition 7
 * (1996, "Sample quantiles in statistical packages", §2), R's and NumPy's default. Stateless.
 *
 * <p>Sort the n values ascending, x(0) ≤ … ≤ x(n−1); with h = (n−1)·q, lo = ⌊h⌋ and hi = min(lo + 1, n − 1) the
 * quantile is x(lo) + (h − lo)·(x(hi) − x(lo)). q = 0 is the minimum, q = 1 the maximum, q = ½ the median (up to the
 * last bit: {@link Median#of} averages the two middle values instead). The benchmarks report their spread with it:
 * the interquartile range of paired overheads and of replay errors.
 */
public final class Quantile {
    private Quantile() {
    }

    /**
     * The {@code q}-quantile (type 7) of {@code values}; the array is not changed.
     *
     * @throws IllegalArgumentException if there are no values or {@code q} is outside [0, 1].
     */
    public static double of(double[] values, double q) {
        if (values.length == 0) {
            throw new IllegalArgumentException("the quantile of an empty sample is undefined, size=0");
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return ofSorted(sorted, q);
    }

    /**
     * The {@code q}-quantile (type 7) of {@code sorted}, which the caller has sorted ascending: several quantiles of
     * one sample then cost one sort.
     *
     * @throws IllegalArgumentException if there are no values or {@code q} is outside [0, 1].
     */
    public static double ofSorted(double[] sorted, double q) {
        if (sorted.length == 0) {
            throw new IllegalArgumentException("the quantile of an empty sample is undefined, size=0");
        }
        if (!(q >= 0 && q <= 1)) {
            throw new IllegalArgumentException("q must be in [0, 1], q=" + q);
        }
        double h = (sorted.length - 1) * q;
        int lo = (int) Math.floor(h);
        int hi = Math.min(lo + 1, sorted.length - 1);
        return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
    }
}
