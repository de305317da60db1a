package org.eventspace.trace;

import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Which delta a rank takes for an event's next occurrence, per the trace's time encoding (Ratn et al. §3.4): with
 * statistics, the mean ("we simply replay the average times"); with histograms, bin averages in proportion to the bins'
 * frequencies ("we select replay delays to reflect the distribution across bins"); path-sensitive, the histogram of the
 * previous call's site. Shared by the timed replay and the timeline export, so both put an event at the same time.
 *
 * <p>Which bin, exactly: a histogram merged over the R ranks of an event holds N samples, n = N / R per rank (ranks
 * merge only where their traces match element by element, so each made the event equally often). Occurrence k of the
 * rank at index j of the event's ranklist takes sample position {@code p = (k·R + j)·a mod N} of the bins' cumulative
 * frequencies, with {@code a} the integer nearest {@code φ·N} that is coprime with N. That is a permutation of
 * {@code 0..N−1} over the ranks' occurrences together, so every bin is drawn exactly as often as it was filled and the
 * compute waited over the ranks adds up to what was recorded; and, as multiplication by the golden ratio, it spreads
 * each bin over the iterations and gives the ranks different bins in the same iteration (taking the bins in order
 * made every rank wait its long deltas at the same time).
 *
 * <p>Why a permutation over all ranks rather than a low-discrepancy sequence per rank with a phase each (what this did
 * before): each rank drew from the merged histogram on its own, so the ranks together covered the bins only on
 * average, and an event made once or twice per rank — the first call, a warm-up round's vote, where start-up and JIT
 * put the run's longest compute deltas — was drawn from its short bins on every rank (rank 0's first draw is position
 * 0, the shortest bin, every time). Replays of traced compute-gsum runs over TCP drew 0.26–0.40 s less compute than
 * the 0.85–1.39 s their ranks recorded, in runs of 3–4 s (docs/BENCHMARKS.md, "Replay").
 *
 * <p>Where the ranks' timings differ, an event keeps one timing per rank group ({@link DeltaTiming#byRanks}) and all of
 * the above is per group: a rank draws from its own group's statistics or histogram, the permutation runs over the
 * group's ranks (R is the group's size, j the rank's index in it), so each group re-enacts the deltas it recorded.
 *
 * <p>Not thread-safe: one per rank. Allocation-free once each histogram it drew from has its {@link Draw}.
 */
public final class DeltaSampler {
    private static final double GOLDEN = (Math.sqrt(5) - 1) / 2;

    private final TimeEncoding encoding;
    private final int rank;
    private final Map<DeltaHistogram, Draw> draws = new IdentityHashMap<>();

    DeltaSampler(TimeEncoding encoding, int rank) {
        this.encoding = encoding;
        this.rank = rank;
    }

    /**
     * The delta of the next occurrence, on this rank, of event {@code e} whose timing is {@code t}, after a call at
     * {@code previousSite}: drawn from this rank's own group's timing where the ranks' timings differ
     * ({@link DeltaTiming#byRanks}), so a rank that computed 3× longer waits 3× longer.
     */
    long next(EventNode e, DeltaTiming t, int previousSite) {
        DeltaTiming own = t.forRank(rank);
        DeltaHistogram h = histogram(own, previousSite);
        if (h == null) {
            return Math.round(own.stats().mean());
        }
        return draw(h, ranksOf(e, t, own)).next();
    }

    /** The ranks whose samples {@code own}, the group of {@code t} this rank draws from, holds: the event's if one. */
    static RankList ranksOf(EventNode e, DeltaTiming t, DeltaTiming own) {
        return own == t || own.ranks() == null ? e.ranks() : own.ranks();
    }

    /** The histogram this encoding draws {@code t}'s deltas from after a call at {@code previousSite}; null: the mean. */
    DeltaHistogram histogram(DeltaTiming t, int previousSite) {
        DeltaHistogram h = switch (encoding) {
            case STATS -> null;
            case HIST -> t.histogram();
            case PATH -> t.path(previousSite);
        };
        return h == null || h.total() == 0 ? null : h;
    }

    /** This rank's draws from {@code h}, shared by the events of ranklist {@code ranks} that hold it; made once. */
    Draw draw(DeltaHistogram h, RankList ranks) {
        Draw d = draws.get(h);
        if (d == null) {
            d = new Draw(h, ranks, rank);
            draws.put(h, d);
        }
        return d;
    }

    /**
     * The integer nearest φ·n that is coprime with n (1 for n ≤ 2): the step of the golden-ratio permutation by which a
     * histogram's samples are drawn. Public so that a replayer outside this package (the MPI replay's program) draws
     * exactly as {@code Replay} and the exports do.
     */
    public static long goldenStride(long n) {
        if (n <= 2) {
            return 1;
        }
        long a = Math.max(1, Math.round(GOLDEN * n));
        while (LongMath.gcd(a, n) != 1) {
            a++;
        }
        return a;
    }

    /**
     * One rank's walk through one histogram's sample positions (the permutation of the class comment), by addition:
     * position {@code p} moves by {@code R·a mod N} per occurrence. Not thread-safe.
     */
    static final class Draw {
        private final DeltaHistogram h;
        private final long n;
        private final long step;
        private long position;

        Draw(DeltaHistogram h, RankList ranks, int rank) {
            this.h = h;
            this.n = h.total();
            int[] members = ranks.ranks();
            int r = Math.max(1, members.length);
            int j = Math.max(0, java.util.Arrays.binarySearch(members, rank));
            long a = stride(n);
            this.step = Math.floorMod((long) r % n * a, n);
            this.position = Math.floorMod((long) j % n * a, n);
        }

        static long stride(long n) {
            return goldenStride(n);
        }

        /** The bin average at the current position; then moves to this rank's next position. */
        long next() {
            long sample = position;
            position += step;
            if (position >= n) {
                position -= n;
            }
            for (int b = 0; b < h.bins(); b++) {
                sample -= h.binFreq(b);
                if (sample < 0) {
                    return Math.round(h.binAvg(b));
                }
            }
            return Math.round(h.binAvg(h.bins() - 1));
        }
    }
}
