package org.eventspace.base.stats;

import java.util.Arrays;

/**
 * A distribution-free confidence interval for the median of the distribution a sample was drawn from: the order
 * statistics x(l) and x(n+1−l) (1-based) with l the largest index for which P(B < l) ≤ (1 − level) / 2, B binomial
 * (n, ½) — the number of sample values below the true median. It asks nothing of the distribution's shape, so it holds
 * where a benchmark's repeats are not normal: a machine that runs some repeats 25 % slower than the rest (a bimodal
 * sample), or a repeat preemption stretched. Its coverage is at least the level asked for (the binomial is discrete),
 * and the method's exact coverage is reported with it.
 *
 * <p>Fewer than 6 values cannot give 95 % (all 5 on one side of the median happens with probability 2 · 2⁻⁵ = 6.25 %):
 * {@link #of} then says so ({@link #known()} false) rather than widening to the extremes and calling it 95 %.
 *
 * @param lower    the interval's lower end, NaN when not known
 * @param upper    the interval's upper end, NaN when not known
 * @param coverage the probability that an interval made this way holds the true median, 1 − 2·P(B < l); 0 when not known
 */
public record MedianInterval(double lower, double upper, double coverage) {

    /** Whether the sample was large enough for the level asked. */
    public boolean known() {
        return !Double.isNaN(lower);
    }

    /**
     * The interval for the median of {@code values} at confidence {@code level} (0.95 for 95 %), or an unknown one when
     * no pair of order statistics reaches it. The array is not changed.
     *
     * @throws IllegalArgumentException if {@code level} is not in (0, 1).
     */
    public static MedianInterval of(double[] values, double level) {
        if (!(level > 0 && level < 1)) {
            throw new IllegalArgumentException("confidence level must be in (0, 1), got " + level);
        }
        int n = values.length;
        double alpha = (1 - level) / 2;
        // P(B < l) for l = 1, 2, ...: the cumulative binomial (n, ½), accumulated term by term.
        double term = Math.pow(0.5, n);
        double below = 0;
        int l = 0;
        for (int k = 0; k < n / 2; k++) {
            if (below + term > alpha) {
                break;
            }
            below += term;
            l = k + 1;
            term = term * (n - k) / (k + 1);
        }
        if (l == 0) {
            return new MedianInterval(Double.NaN, Double.NaN, 0);
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        // below is now P(B < l): the chance the true median lies beyond either end
        return new MedianInterval(sorted[l - 1], sorted[n - l], 1 - 2 * below);
    }
}
