package org.eventspace.monitor.model;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The run model in lines for people, the same for every kind of run: the verdict first (a fault, a culprit with its
 * certainty, or "within chance"), the machine's load when it makes lateness by itself, the ranks that waited and were
 * late, and what the tool did not see. Units on every number; at most {@value #RANKS_SHOWN} ranks, so the summary fits
 * one screen at any scale (the JSON has them all).
 */
public final class RunText {
    public static final int RANKS_SHOWN = 8;

    private RunText() {
    }

    public static List<String> lines(RunModel model) {
        List<String> lines = new ArrayList<>();
        Verdict v = model.verdict();
        lines.add(v.headline());
        if (v.heaviestPath() != null && !v.heaviestPath().agrees()) {
            lines.add("heaviest path: " + String.join(" → ", v.heaviestPath().path()) + String.format(Locale.ROOT,
                    " (weight %.2f); it does not end at the slowest rank's candidate", v.heaviestPath().weight()));
        }
        if (v.load() != null && v.load().oversubscribed()) {
            lines.add("warning: " + v.load().warning());
        }
        List<RankRecord> judged = model.perRank().stream().filter(r -> r.latenessUs() != null).toList();
        if (!judged.isEmpty()) {
            List<RankRecord> shown = judged.size() <= RANKS_SHOWN ? judged : judged.stream()
                    .sorted(Comparator.comparingDouble(RankRecord::latenessUs).reversed()).limit(RANKS_SHOWN).toList();
            StringBuilder b = new StringBuilder(judged.size() <= RANKS_SHOWN ? "per rank, wait at collectives / lateness (µs):"
                    : "the " + RANKS_SHOWN + " latest of " + judged.size() + " ranks, wait at collectives / lateness (µs):");
            for (RankRecord r : shown) {
                b.append(String.format(Locale.ROOT, " %d: %.0f / %+.0f", r.rank(),
                        r.collectiveWaitUs() == null ? 0 : r.collectiveWaitUs(), r.latenessUs()));
            }
            lines.add(b.toString());
        }
        lines.add(coverage(model.coverage()));
        return lines;
    }

    /** What was seen, and each thing that was not, counted. */
    public static String coverage(Coverage c) {
        List<String> lost = new ArrayList<>();
        if (c.tuplesMissed() > 0) {
            lost.add(c.tuplesMissed() + " tuples overwritten before they were read");
        }
        if (c.untracedCalls() > 0) {
            lost.add(c.untracedCalls() + " calls on untraced threads");
        }
        if (c.unknownCommunicatorCalls() > 0) {
            lost.add(c.unknownCommunicatorCalls() + " collective calls on communicators the library could not name");
        }
        if (c.incompleteInstances() > 0) {
            lost.add(c.incompleteInstances() + " collective instances some member never reached");
        }
        if (c.unmatchedPointToPoint() > 0) {
            lost.add(c.unmatchedPointToPoint() + " point-to-point calls unmatched");
        }
        if (c.callsDropped() > 0) {
            lost.add(c.callsDropped() + " calls not joined (a collector's tuple was lost)");
        }
        if (!c.unfinishedRanks().isEmpty()) {
            lost.add(c.unfinishedRanks().size() + " rank(s) did not finish");
        }
        String seen = String.format(Locale.ROOT, "coverage: %d of %d tuples read (gather rate %.1f %%)", c.tuplesRead(),
                c.tuplesRead() + c.tuplesMissed(), 100 * c.gatherRate());
        return lost.isEmpty() ? seen + "; nothing else unseen" : seen + "; not seen: " + String.join(", ", lost);
    }
}
