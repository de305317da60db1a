package org.eventspace.trace;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The delta times of one event in one of the encodings of Ratn et al. §3: statistics always, a dynamically balanced
 * histogram for {@link TimeEncoding#HIST}, one histogram per previous call site for {@link TimeEncoding#PATH} (§3.3:
 * "each histogram has an associated stack signature, which must be the same as the stack signature of the previous
 * operation"). Not thread-safe.
 *
 * <p>Across ranks, the paper merges every rank's deltas into one timing (§3.2: "deltas from one histogram are moved to
 * another while preserving node-imbalance"), keeping only the ranks of the extremes; a replay or a timeline then gives
 * a rank that computed 3× longer the same compute as the others. So a merged timing also keeps, where ranks' timings
 * differ beyond chance ({@link #agree}), one timing per group of ranks that agree ({@link #byRanks}): (timing,
 * ranklist) pairs as {@link Params} keeps (value, ranklist) pairs, at most {@link TraceConfig#timingGroups} of them.
 * The timing of all ranks together stays beside them, unchanged.
 *
 * <p>Adding a sample allocates nothing once the event's histograms exist: the path histograms are found by a linear
 * scan of an {@code int[]} of previous sites (a handful per event), not through the map, whose {@code Integer} keys
 * would box a site id per lookup; the map is kept beside it, sorted, for the readers.
 */
public final class DeltaTiming {
    final TimeStats stats = new TimeStats();
    DeltaHistogram hist;
    final TreeMap<Integer, DeltaHistogram> paths;
    private int[] pathSites = new int[0];
    private DeltaHistogram[] pathHists = new DeltaHistogram[0];
    private final TraceConfig config;
    /** The ranks whose samples this holds (null before the first); {@link #onlyRank} when that is one rank. */
    private RankList ranks;
    private int onlyRank = NO_RANK;
    /** Rank groups whose timings differ ({@link #byRanks}), at least two; null while every rank's agree. */
    private List<DeltaTiming> groups;
    private int mergedEntries = 1;

    private static final int NO_RANK = -1;
    private static final int SEVERAL = -2;
    /** {@link #agree}: the calls per rank below which two groups' timings never differ. */
    static final int MIN_CALLS_PER_RANK = 2;
    /** {@link #agree}: the calls of the slower group that must all be longer than the faster group's mean. */
    static final int MIN_CALLS_LONGER = 20;
    /** {@link #agree}: the fraction of the larger mean beyond which two groups' means may differ. */
    static final double RELATIVE_DIFFERENCE = 0.25;
    /** {@link #agree}: nanoseconds beyond which two groups' means may differ. */
    static final long ABSOLUTE_DIFFERENCE_NS = 1_000;

    DeltaTiming(TraceConfig config) {
        this.config = config;
        this.paths = config.encoding() == TimeEncoding.PATH ? new TreeMap<>() : null;
    }

    void add(long v, int rank, int previousSite) {
        if (rank != onlyRank) {
            noteRank(rank);
        }
        if (groups != null) {
            groupOf(rank).add(v, rank, previousSite);
        }
        stats.add(v, rank);
        switch (config.encoding()) {
            case STATS -> {
            }
            case HIST -> {
                if (hist == null) {
                    hist = DeltaHistogram.create(v, config.bins(), config.smoothInterval());
                } else {
                    hist.add(v);
                }
            }
            case PATH -> {
                DeltaHistogram h = path(previousSite);
                if (h == null) {
                    putPath(previousSite, DeltaHistogram.create(v, config.bins(), config.smoothInterval()));
                } else {
                    h.add(v);
                }
            }
        }
    }

    /**
     * Adds {@code o}'s samples to this timing. Within one rank (a loop absorbing its iterations) that is all; across
     * ranks (the inter-node merge, {@code o}'s ranks apart from these) the ranks' timings are also kept apart where
     * they differ ({@link #byRanks}): each of {@code o}'s rank groups joins the group of these whose timing agrees with
     * it ({@link #agree}), or becomes a group of its own; past {@link TraceConfig#timingGroups} groups the two closest
     * by mean are merged, and the result says how many timings it holds ({@link #mergedEntries}).
     *
     * <p>Unlike the trace's rank groups, these can depend on the merge tree's shape where a group lies between two
     * others, agreeing with each while they differ: it joins whichever it meets first. Ranks that clearly differ (a
     * slow rank, a root) come out apart in any order; the all-ranks timing beside the groups never depends on it.
     */
    void merge(DeltaTiming o) {
        if (o.stats.count() == 0) {
            return;
        }
        if (stats.count() == 0 || overlaps(o)) {
            mergeSamples(o);
            if (groups != null && o.ranks != null) {
                groupOf(o.ranks.first()).mergeSamples(o);
            }
            ranks = ranks == null ? o.ranks : o.ranks == null ? ranks : ranks.union(o.ranks);
            onlyRank = ranks != null && ranks.size() == 1 ? ranks.first() : SEVERAL;
            return;
        }
        List<DeltaTiming> mine = new ArrayList<>();
        if (groups == null) {
            mine.add(copy(this));
        } else {
            mine.addAll(groups);
        }
        for (DeltaTiming g : o.groups == null ? List.of(o) : o.groups) {
            DeltaTiming best = null;
            double closest = Double.POSITIVE_INFINITY;
            for (DeltaTiming h : mine) {
                double d = Math.abs(h.stats.mean() - g.stats.mean());
                if (d < closest && agree(h, g)) {
                    best = h;
                    closest = d;
                }
            }
            if (best == null) {
                mine.add(copy(g));
            } else {
                best.absorb(g, true);
            }
        }
        int bound = config.timingGroups();
        while (mine.size() > bound) {
            mine.sort(Comparator.comparingDouble(d -> d.stats.mean()));
            int pair = 0;
            for (int i = 1; i + 1 < mine.size(); i++) {
                if (mine.get(i + 1).stats.mean() - mine.get(i).stats.mean()
                        < mine.get(pair + 1).stats.mean() - mine.get(pair).stats.mean()) {
                    pair = i;
                }
            }
            DeltaTiming a = mine.get(pair);
            DeltaTiming b = mine.remove(pair + 1);
            a.absorb(b, false);
        }
        mergeSamples(o);
        ranks = ranks.union(o.ranks);
        onlyRank = SEVERAL;
        setGroups(mine);
    }

    /**
     * Rank groups stay apart only where the difference matters to the run: sorted by mean, the two neighbouring groups
     * whose difference adds up to the least per rank ((slower mean − faster mean) × the slower group's calls per rank)
     * become one while that sum is below {@code floorNanos}, until every neighbouring pair is above it or one group
     * is left (then the timing has no groups). The trace calls this once, with {@value #MATERIAL_SHARE} of the run's
     * wall time ({@link Trace#align}): a difference that adds less than that to a rank's run changes no verdict (they
     * name lateness from 5 % of the run on) and no replay (accurate to a few per cent), while its timing costs a
     * group's statistics and histogram in the file. On 2 cores, 256 sor ranks kept 1–5 such groups of a few µs per call
     * that preemption and the order the threads get a core in make, where 8 ranks kept 0–2; the ranks that matter
     * (sor's rank 0 waiting 3 ms a call where the others wait 0.5, 9 % of its run) stay apart.
     */
    void settleGroups(double floorNanos) {
        if (groups == null) {
            return;
        }
        List<DeltaTiming> mine = new ArrayList<>(groups);
        mine.sort(Comparator.comparingDouble(d -> d.stats.mean()));
        while (mine.size() > 1) {
            int pair = -1;
            double least = Double.POSITIVE_INFINITY;
            for (int i = 0; i + 1 < mine.size(); i++) {
                DeltaTiming slow = mine.get(i + 1);
                double adds = (slow.stats.mean() - mine.get(i).stats.mean()) * callsPerRank(slow);
                if (adds < least) {
                    least = adds;
                    pair = i;
                }
            }
            if (least >= floorNanos) {
                break;
            }
            DeltaTiming a = mine.get(pair);
            DeltaTiming b = mine.remove(pair + 1);
            a.absorb(b, true);
        }
        setGroups(mine);
    }

    /**
     * Group {@code g}'s samples and ranks added to this group's. Where the two agreed ({@code agreed}), their merged
     * entries add as one group; where they differed and are merged only to keep the bound, each counts.
     */
    private void absorb(DeltaTiming g, boolean agreed) {
        mergeSamples(g);
        ranks = ranks.union(g.ranks);
        mergedEntries += g.mergedEntries - (agreed ? 1 : 0);
    }

    /** {@code mine} as the timing's rank groups, ordered by lowest rank; none when one group is left. */
    private void setGroups(List<DeltaTiming> mine) {
        mine.sort(Comparator.comparingInt(d -> d.ranks.first()));
        groups = mine.size() == 1 ? null : List.copyOf(mine);
    }

    /** {@link #settleGroups}: the share of the run's wall time a group's difference must add to a rank's run. */
    static final double MATERIAL_SHARE = 0.01;

    /** Whether any rank of {@code o}'s is one of these (always, for two timings of the same rank). */
    private boolean overlaps(DeltaTiming o) {
        if (ranks == null || o.ranks == null || (onlyRank >= 0 && onlyRank == o.onlyRank)) {
            return true;
        }
        for (int r : o.ranks.ranks()) {
            if (ranks.contains(r)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Separation of two timings' means in standard errors of their difference, {@code |m1 − m2| / √(s1²/n1 + s2²/n2)}
     * (Welch's statistic); infinite for different means without spread. A timing of one sample has no spread of its
     * own: it takes the other's variance (the pooled estimate when one group tells it), and two single samples are
     * never apart (0): one call per rank cannot tell a rank's difference from a call's, and the first and last calls of
     * a run, made once per rank, are where start-up and scheduling put their one-off delays. Treats a rank's deltas as
     * independent samples, which successive iterations are not quite (a slow phase lasts several), so it overstates
     * how sure a difference is; and preemption's rare long deltas inflate the standard deviation: {@link #agree} does
     * not use it, {@code trace stats} reports it beside its own verdict.
     */
    static double separation(TimeStats a, TimeStats b) {
        double diff = Math.abs(a.mean() - b.mean());
        if (diff == 0 || (a.count() < 2 && b.count() < 2)) {
            return 0;
        }
        double va = a.count() > 1 ? a.sd() * a.sd() : b.sd() * b.sd();
        double vb = b.count() > 1 ? b.sd() * b.sd() : va;
        double se = Math.sqrt(va / a.count() + vb / b.count());
        return se == 0 ? Double.POSITIVE_INFINITY : diff / se;
    }

    /**
     * Whether two rank groups' deltas are one timing. They differ only when all of these hold, the slower group being
     * the one of the larger mean:
     * <ul>
     * <li>each group's ranks made the call at least {@value #MIN_CALLS_PER_RANK} times: with one call per rank a rank's
     * difference cannot be told from a call's (the one-off first and last calls of a run are where start-up and
     * scheduling put their delays, differently on every rank and every run);
     * <li>every call of the slower group took longer than the faster group's usual call ({@link #signTestReference}:
     * its mean, or the upper end of its median bin where that is lower), over at least {@value #MIN_CALLS_LONGER}
     * calls: a sign test. Were both groups' deltas one distribution, a call would exceed that reference with
     * probability about ½ (at most that where the distribution is skewed to the right, as preemption skews compute
     * deltas: its mean lies above its median), so n calls all above it happen by chance with probability ≤ 2^−n, under
     * 10^−6 at 20. It asks nothing of the spread, which preemption inflates: a
     * standard-error test ({@link #separation}) on a loaded machine misses a rank that computes 3× longer, because a
     * few preempted calls of 30 ms make the standard deviation ten times the difference; and a rank that only was
     * preempted more, whose mean is longer while its usual call is not, does not pass it;
     * <li>the means are apart by more than {@value #RELATIVE_DIFFERENCE} of the larger and by more than
     * {@value #ABSOLUTE_DIFFERENCE_NS} ns: a difference worth a timing of its own, above the tracer's own cost and the
     * clock's resolution.
     * </ul>
     * The slow rank of {@code native/test/es_slow_rank.c} (1200 µs against 400 µs, 150 calls) passes each by far;
     * gsum's ranks, 8 or 256 on two cores, never pass all together (docs/TRACES.md, "Per-rank-group timing").
     */
    static boolean agree(DeltaTiming a, DeltaTiming b) {
        return !differ(a, b);
    }

    private static boolean differ(DeltaTiming a, DeltaTiming b) {
        if (callsPerRank(a) < MIN_CALLS_PER_RANK || callsPerRank(b) < MIN_CALLS_PER_RANK) {
            return false;
        }
        DeltaTiming slowT = a.stats.mean() >= b.stats.mean() ? a : b;
        DeltaTiming fastT = slowT == a ? b : a;
        TimeStats slow = slowT.stats;
        TimeStats fast = fastT.stats;
        double diff = slow.mean() - fast.mean();
        return slow.count() >= MIN_CALLS_LONGER && slow.min() > signTestReference(fastT)
                && diff > RELATIVE_DIFFERENCE * slow.mean() && diff > ABSOLUTE_DIFFERENCE_NS;
    }

    /**
     * What the sign test compares the slower group's calls with: the faster group's mean, or where its histogram says
     * the median lies lower, the upper end of the bin that holds the median. Preemption's rare long deltas pull a mean
     * far above the usual call, so a rank whose every call is longer than the others' usual one went unseen where the
     * others' preempted calls raised their mean (sor's rank 0 at 8 ranks on 2 cores, in 3 runs of 5; docs/TRACES.md). Either bound keeps the test's promise: a call of the same distribution
     * exceeds the median bin's upper end with probability at most ½, as it exceeds a right-skewed mean.
     */
    static double signTestReference(DeltaTiming t) {
        double mean = t.stats.mean();
        DeltaHistogram h = t.hist;
        if (h == null || h.total() == 0) {
            return mean;
        }
        long half = (h.total() + 1) / 2;
        long seen = 0;
        for (int i = 0; i < h.bins(); i++) {
            seen += h.binFreq(i);
            if (seen >= half) {
                return Math.min(mean, h.binMax(i));
            }
        }
        return mean;
    }

    /** How many times each of the timing's ranks made the call (ranks merge only where they made it equally often). */
    static long callsPerRank(DeltaTiming t) {
        return t.ranks == null ? t.stats.count() : t.stats.count() / t.ranks.size();
    }

    /** The samples of {@code o} added to this timing's statistics and histograms (no rank groups). */
    private void mergeSamples(DeltaTiming o) {
        stats.merge(o.stats);
        if (o.hist != null) {
            if (hist == null) {
                hist = copy(o.hist);
            } else {
                hist.merge(o.hist);
            }
        }
        if (o.paths != null && paths != null) {
            for (Map.Entry<Integer, DeltaHistogram> e : o.paths.entrySet()) {
                DeltaHistogram h = path(e.getKey());
                if (h == null) {
                    putPath(e.getKey(), copy(e.getValue()));
                } else {
                    h.merge(e.getValue());
                }
            }
        }
    }

    /** A rank group's own copy of {@code o}'s samples, ranks and merged-entry count (its groups aside). */
    private static DeltaTiming copy(DeltaTiming o) {
        DeltaTiming c = new DeltaTiming(o.config);
        c.mergeSamples(o);
        c.ranks = o.ranks;
        c.onlyRank = o.onlyRank;
        c.mergedEntries = o.mergedEntries;
        return c;
    }

    /** The group holding {@code rank}'s timing: one of {@link #byRanks}, or this timing when the ranks agree. */
    public DeltaTiming forRank(int rank) {
        if (groups != null) {
            for (DeltaTiming g : groups) {
                if (g.ranks.contains(rank)) {
                    return g;
                }
            }
        }
        return this;
    }

    private DeltaTiming groupOf(int rank) {
        DeltaTiming g = forRank(rank);
        if (g == this) {
            throw new IllegalStateException("rank " + rank + " is in none of this timing's rank groups " + groups);
        }
        return g;
    }

    /**
     * The timings of the ranks whose deltas differ, each with its ranks ({@link #ranks}), ordered by lowest rank; empty
     * when every rank's agree (then this timing is theirs). The (timing, ranklist) pairs {@link Params} keeps for values.
     */
    public List<DeltaTiming> byRanks() {
        return groups == null ? List.of() : groups;
    }

    /** The ranks whose samples this timing holds; null before its first. */
    public RankList ranks() {
        return ranks;
    }

    /**
     * How many rank groups of differing timing this one holds: 1, unless more than {@link TraceConfig#timingGroups}
     * differed and the closest were merged into it (its min and max ranks still say where the extremes were).
     */
    public int mergedEntries() {
        return mergedEntries;
    }

    /** A timing read from a file: the event's ranks, and its rank groups (null: every rank's agree). */
    void restore(RankList eventRanks, List<DeltaTiming> byRanks) {
        ranks = eventRanks;
        onlyRank = eventRanks.size() == 1 ? eventRanks.first() : SEVERAL;
        groups = byRanks == null ? null : List.copyOf(byRanks);
    }

    /**
     * The all-ranks timing of a file's rank groups (a timing the file keeps as its groups only): their samples merged in
     * the groups' order, the statistics exactly as the merge over ranks had them, the histogram a merge of the groups'.
     */
    static DeltaTiming ofGroups(TraceConfig config, List<DeltaTiming> groups) {
        DeltaTiming whole = new DeltaTiming(config);
        for (DeltaTiming g : groups) {
            whole.mergeSamples(g);
        }
        return whole;
    }

    /** A rank group's timing as read from a file. */
    void restoreGroup(RankList groupRanks, int merged) {
        restore(groupRanks, null);
        mergedEntries = merged;
    }

    /** The histogram of the calls whose previous call was at {@code previousSite}, or null. */
    DeltaHistogram path(int previousSite) {
        int[] sites = pathSites;
        for (int i = 0; i < sites.length; i++) {
            if (sites[i] == previousSite) {
                return pathHists[i];
            }
        }
        return null;
    }

    /** Adds the histogram of a previous site this event has not seen yet. */
    void putPath(int previousSite, DeltaHistogram h) {
        if (paths == null) {
            throw new IllegalStateException("path histograms belong to time encoding path, this event's is "
                    + config.encoding());
        }
        int n = pathSites.length;
        pathSites = java.util.Arrays.copyOf(pathSites, n + 1);
        pathHists = java.util.Arrays.copyOf(pathHists, n + 1);
        pathSites[n] = previousSite;
        pathHists[n] = h;
        paths.put(previousSite, h);
    }

    static DeltaHistogram copy(DeltaHistogram h) {
        double[] sd = new double[h.k];
        for (int i = 0; i < h.k; i++) {
            sd[i] = h.binSd(i);
        }
        DeltaHistogram c = DeltaHistogram.restore(h.lo.clone(), h.hi.clone(), h.freq.clone(), h.avg.clone(), sd);
        System.arraycopy(h.m2, 0, c.m2, 0, h.k);
        return c;
    }

    public TimeStats stats() {
        return stats;
    }

    /** The histogram of {@link TimeEncoding#HIST}, or null. */
    public DeltaHistogram histogram() {
        return hist;
    }

    /** The histograms by previous call site of {@link TimeEncoding#PATH}; empty otherwise. */
    public Map<Integer, DeltaHistogram> paths() {
        return paths == null ? Map.of() : paths;
    }

    TraceConfig config() {
        return config;
    }

    /** The first sample of a rank, or of another rank (a test's hand-made timing): the rank set grows. */
    private void noteRank(int rank) {
        if (ranks == null) {
            ranks = RankList.of(rank);
            onlyRank = rank;
        } else if (!ranks.contains(rank)) {
            ranks = ranks.union(RankList.of(rank));
            onlyRank = SEVERAL;
            if (groups != null) {
                throw new IllegalStateException("rank " + rank + " added to a timing of rank groups " + groups
                        + " that does not hold it");
            }
        }
    }

    @Override
    public String toString() {
        return "timing of ranks " + ranks + ": n=" + stats.count() + " mean=" + Math.round(stats.mean()) + " ns"
                + (mergedEntries > 1 ? " (" + mergedEntries + " merged)" : "");
    }
}
