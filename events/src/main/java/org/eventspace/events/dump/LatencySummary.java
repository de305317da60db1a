package org.eventspace.events.dump;

/**
 * Count, mean, min and max of one latency or wait over the joined calls, in ns. A summary of no samples has
 * count 0 and NaN mean, min and max 0.
 */
public record LatencySummary(long count, double meanNs, long minNs, long maxNs) {
    static final LatencySummary EMPTY = new LatencySummary(0, Double.NaN, 0, 0);

    /** Accumulates samples; not thread-safe. */
    static final class Accumulator {
        private long count;
        private double sum;
        private long min = Long.MAX_VALUE;
        private long max = Long.MIN_VALUE;

        void add(long ns) {
            count++;
            sum += ns;
            min = Math.min(min, ns);
            max = Math.max(max, ns);
        }

        LatencySummary summary() {
            return count == 0 ? EMPTY : new LatencySummary(count, sum / count, min, max);
        }
    }
}
