package org.eventspace.base.stats;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * A uniform random sample of at most {@code capacity} of the values added: every value added so far is in it with the
 * same probability, in bounded memory, so its {@link #median} estimates the median of all of them. Seeded, so a run is
 * reproducible. Not thread-safe.
 *
 * <p>The sample is the one Vitter's Algorithm R keeps, drawn the way Li's Algorithm L (ACM TOMS 20(4), 1994) draws it:
 * instead of a random number per value, the number of values to skip until the next one enters the sample is drawn
 * once per entry, so once the sample is full a value costs a count and a compare (a monitor adds one per call).
 */
public final class UniformSample {
    private final double[] values;
    private final SplittableRandom random;
    private long seen;
    /** Algorithm L's W: the largest of the capacity uniform keys the sample holds, as the algorithm tracks it. */
    private double w;
    /** Which value (1-based) enters the sample next, once it is full. */
    private long next;

    public UniformSample(int capacity, long seed) {
        if (capacity < 1) {
            throw new IllegalArgumentException("a sample holds at least one value, capacity=" + capacity);
        }
        this.values = new double[capacity];
        this.random = new SplittableRandom(seed);
    }

    private UniformSample(UniformSample other) {
        this.values = other.values.clone();
        this.random = other.random.split();
        this.seen = other.seen;
        this.w = other.w;
        this.next = other.next;
    }

    public void add(double x) {
        long n = ++seen;
        int k = values.length;
        if (n <= k) {
            values[(int) n - 1] = x;
            if (n == k) {
                w = Math.exp(Math.log(uniform()) / k);
                next = n + skip() + 1;
            }
        } else if (n == next) {
            values[random.nextInt(k)] = x;
            w *= Math.exp(Math.log(uniform()) / k);
            next = n + skip() + 1;
        }
    }

    /** A uniform number in (0, 1]: its logarithm is finite. */
    private double uniform() {
        return 1.0 - random.nextDouble();
    }

    /** How many values to pass over before the next one enters: geometric with success probability 1 − W. */
    private long skip() {
        double s = Math.floor(Math.log(uniform()) / Math.log1p(-w));
        // W at 1 (a uniform of exactly 1) gives -0; a W near 0 a skip too large to count: never again, in practice.
        return !(s >= 0) ? 0 : s >= Long.MAX_VALUE / 2.0 ? Long.MAX_VALUE / 2 : (long) s;
    }

    /** The values added so far (not only those kept). */
    public long seen() {
        return seen;
    }

    /** The median of the values kept; NaN before any was added. */
    public double median() {
        int n = (int) Math.min(seen, values.length);
        return n == 0 ? Double.NaN : Median.of(Arrays.copyOf(values, n));
    }

    /** The values kept now, a copy (tests check the sample's distribution). */
    double[] valuesForTest() {
        return Arrays.copyOf(values, (int) Math.min(seen, values.length));
    }

    /** An independent copy, for a reader on another thread. */
    public UniformSample copy() {
        return new UniformSample(this);
    }
}
