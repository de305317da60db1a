package org.eventspace.trace;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code trace stats}: the collectives whose compute-delta distributions show load imbalance, with the ranks at the
 * extremes — what Ratn et al. read off Figure 12 ("the nodes falling into two distinct groups ... a sign of imbalance
 * in computation immediately preceding the collective. The trace also indicates the nodes responsible for minimum
 * and maximum times"). A collective is reported when its compute deltas spread by more than {@code threshold} times
 * their mean ({@code (max − min) / mean}), over at least two ranks; any call, collective or not, when its ranks'
 * compute timings differ (the event keeps a timing per rank group, {@link DeltaTiming#byRanks}): a rank that computes
 * longer before a point-to-point exchange makes its neighbours wait there, not at the next collective.
 *
 * <p>The extremes are single samples: one preempted call makes a spread. So each finding also gives a verdict on the
 * ranks' means: which rank group computed longer than the others and by how much, with how sure that is (the
 * merge's sign test, each of the group's calls longer than the others' usual call, and the separation of the two means in
 * standard errors of their difference, {@link DeltaTiming#separation}); or that no group stood apart beyond chance and
 * the merge's thresholds ({@link DeltaTiming#agree}). The verdict is the merge's: a
 * difference it did not keep apart is not named here either.
 */
public final class Imbalance {
    /**
     * One imbalanced call: where, how much, the extreme ranks, and the verdict on the ranks' means ({@code longer}:
     * null when every rank's compute timing agreed).
     */
    public record Finding(String path, EventNode event, double spread, TimeStats compute, Longer longer) {
        /** One line: the group that computed longer, by how much and how surely; or that none did beyond chance. */
        public String verdict() {
            if (longer == null) {
                return String.format(Locale.ROOT, "no rank group computed longer beyond chance (none whose every call, "
                                + "%d or more, took longer than another group's mean, by %.0f %% and %.0f µs, at %d or "
                                + "more calls per rank)", DeltaTiming.MIN_CALLS_LONGER,
                        DeltaTiming.RELATIVE_DIFFERENCE * 100, DeltaTiming.ABSOLUTE_DIFFERENCE_NS / 1e3,
                        DeltaTiming.MIN_CALLS_PER_RANK);
            }
            return longer.toString();
        }
    }

    /**
     * The rank group whose compute before a call was longest on average, against all the others' together.
     *
     * @param ranks           the group's ranks.
     * @param meanNanos       their mean compute delta.
     * @param minNanos        their shortest.
     * @param calls           their calls (samples).
     * @param others          every other rank of the event.
     * @param othersMeanNanos their mean compute delta.
     * @param othersUsualNanos their usual call, what the merge's sign test compares with: their mean, or the upper end
     *                        of their median bin where a histogram puts it lower ({@link DeltaTiming#agree}).
     * @param separationSe    how many standard errors of the difference the two means are apart (Welch): above about
     *                        4 no accident of sampling if deltas were independent and of moderate spread; a rank's
     *                        successive deltas are not quite independent and preemption's long ones inflate the
     *                        spread, so the sign test ({@link #everyCallLonger}) is the verdict and this a second view.
     * @param mergedEntries   how many groups of differing timing the bound on groups merged into this one (1: none);
     *                        above 1 its mean is theirs together.
     */
    public record Longer(RankList ranks, double meanNanos, long minNanos, long calls, RankList others,
                         double othersMeanNanos, double othersUsualNanos, double separationSe, int mergedEntries) {
        /** How many times longer: the group's mean over the others'. */
        public double ratio() {
            return othersMeanNanos <= 0 ? Double.POSITIVE_INFINITY : meanNanos / othersMeanNanos;
        }

        /**
         * Whether each of the group's calls took longer than the others' usual call ({@code othersUsualNanos}: their
         * mean, or the upper end of their median bin where that is lower, the merge's reference): by chance, were they
         * one timing, with probability at most 2^−{@link #calls} ({@link DeltaTiming#agree}).
         */
        public boolean everyCallLonger() {
            return minNanos > othersUsualNanos;
        }

        @Override
        public String toString() {
            String sure = everyCallLonger()
                    ? String.format(Locale.ROOT, "each of its %d calls took longer than the others' usual call (%.3f µs;"
                            + " by chance: probability <= 2^-%d)", calls, othersUsualNanos / 1e3, calls)
                    : String.format(Locale.ROOT, "not each of its %d calls took longer than the others' usual call "
                            + "(%.3f µs; its shortest %.3f µs)", calls, othersUsualNanos / 1e3, minNanos / 1e3);
            return String.format(Locale.ROOT, "ranks %s computed longer: mean %.3f µs vs %.3f µs on ranks %s (%.2f×, "
                            + "+%.3f µs); %s; means %s standard errors apart%s", ranks, meanNanos / 1e3,
                    othersMeanNanos / 1e3, others, ratio(), (meanNanos - othersMeanNanos) / 1e3, sure,
                    Double.isInfinite(separationSe) ? "infinitely many (no spread)"
                            : String.format(Locale.ROOT, "%.1f", separationSe),
                    mergedEntries > 1 ? " (" + mergedEntries + " differing groups merged into it by the bound)" : "");
        }
    }

    private Imbalance() {
    }

    public static List<Finding> find(Trace trace, double threshold) {
        List<Finding> out = new ArrayList<>();
        walk(trace.nodes(), "", threshold, out);
        out.sort((a, b) -> Double.compare(b.spread, a.spread));
        return out;
    }

    /** The slowest of {@code t}'s rank groups against the rest, or null if its ranks' timings agree. */
    public static Longer longer(DeltaTiming t) {
        List<DeltaTiming> groups = t.byRanks();
        if (groups.isEmpty()) {
            return null;
        }
        DeltaTiming slow = groups.get(0);
        for (DeltaTiming g : groups) {
            if (g.stats().mean() > slow.stats().mean()) {
                slow = g;
            }
        }
        List<DeltaTiming> rest = new ArrayList<>();
        RankList others = null;
        for (DeltaTiming g : groups) {
            if (g != slow) {
                rest.add(g);
                others = others == null ? g.ranks() : others.union(g.ranks());
            }
        }
        DeltaTiming together = DeltaTiming.ofGroups(slow.config(), rest);
        return new Longer(slow.ranks(), slow.stats().mean(), slow.stats().min(), slow.stats().count(), others,
                together.stats().mean(), DeltaTiming.signTestReference(together),
                DeltaTiming.separation(slow.stats(), together.stats()), slow.mergedEntries());
    }

    private static void walk(List<Node> nodes, String path, double threshold, List<Finding> out) {
        for (int i = 0; i < nodes.size(); i++) {
            Node n = nodes.get(i);
            String here = path + "/" + i;
            if (n instanceof LoopNode l) {
                walk(l.body, here, threshold, out);
            } else {
                EventNode e = (EventNode) n;
                TimeStats s = e.computeDelta().stats();
                if (e.ranks().size() < 2 || s.count() < 2 || s.mean() <= 0) {
                    continue;
                }
                double spread = (s.max() - s.min()) / s.mean();
                Longer longer = longer(e.computeDelta());
                if (longer != null || e.op().collective() && spread > threshold && s.minRank() != s.maxRank()) {
                    out.add(new Finding(here, e, spread, s, longer));
                }
            }
        }
    }
}
