package org.eventspace.base.stats;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * A uniform random sample of at most {@code capacity} of the values added (Vitter's Algorithm R): every value added so
 * far is in it with the same probability, in bounded memory, so its {@link #median} estimates the median of all of
 * them. Seeded, so a run is reproducible. Not thread-safe.
 */
public final class UniformSample {
    private final double[] values;
    private final SplittableRandom random;
    private long seen;

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
    }

    public void add(double x) {
        seen++;
        if (seen <= values.length) {
            values[(int) seen - 1] = x;
        } else {
            long j = random.nextLong(seen);
            if (j < values.length) {
                values[(int) j] = x;
            }
        }
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

    /** An independent copy, for a reader on another thread. */
    public UniformSample copy() {
        return new UniformSample(this);
    }
}
