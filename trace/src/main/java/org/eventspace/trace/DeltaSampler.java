package org.eventspace.trace;

import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Which delta a rank takes for an event's next occurrence, per the trace's time encoding (Ratn et al. §3.4): with
 * statistics, the mean ("we simply replay the average times"); with histograms, bin averages in proportion to the bins'
 * frequencies ("we select replay delays to reflect the distribution across bins"); path-sensitive, the histogram of the
 * previous call's site. Shared by the timed replay and the timeline export, so both put an event at the same time.
 *
 * <p>The k-th occurrence takes the sample at position frac(k·φ + rank·√2) of the bins' cumulative frequencies: a
 * low-discrepancy sequence, so each bin comes up in proportion to its frequency and spread over the iterations, and a
 * different phase per rank, so the ranks' long delays do not all fall on the same iterations (taking the bins in order
 * made every rank wait its long deltas at the same time). Not thread-safe: one per rank.
 */
final class DeltaSampler {
    private static final double GOLDEN = (Math.sqrt(5) - 1) / 2;
    private static final double SQRT2 = Math.sqrt(2);

    private final TimeEncoding encoding;
    private final int rank;
    private final Map<DeltaTiming, long[]> counters = new IdentityHashMap<>();

    DeltaSampler(TimeEncoding encoding, int rank) {
        this.encoding = encoding;
        this.rank = rank;
    }

    /** The delta of the next occurrence of the event that holds {@code t}, after a call at {@code previousSite}. */
    long next(DeltaTiming t, int previousSite) {
        if (encoding == TimeEncoding.STATS) {
            return Math.round(t.stats().mean());
        }
        long[] k = counters.computeIfAbsent(t, x -> new long[1]);
        return sample(t, previousSite, k[0]++);
    }

    /** The delta of occurrence {@code k} (from 0) of the event that holds {@code t}: for a caller that counts itself. */
    long sample(DeltaTiming t, int previousSite, long k) {
        DeltaHistogram h = switch (encoding) {
            case STATS -> null;
            case HIST -> t.histogram();
            case PATH -> t.path(previousSite);
        };
        if (h == null || h.total() == 0) {
            return Math.round(t.stats().mean());
        }
        double u = (k * GOLDEN + rank * SQRT2) % 1.0;
        long sample = Math.min(h.total() - 1, (long) (u * h.total()));
        for (int b = 0; b < h.bins(); b++) {
            sample -= h.binFreq(b);
            if (sample < 0) {
                return Math.round(h.binAvg(b));
            }
        }
        return Math.round(t.stats().mean());
    }
}
