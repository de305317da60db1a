package org.eventspace.trace;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code trace stats}: the collectives whose compute-delta distributions show load imbalance, with the ranks at the
 * extremes — what Ratn et al. read off Figure 12 ("the nodes falling into two distinct groups ... a sign of imbalance
 * in computation immediately preceding the collective. The trace also indicates the nodes responsible for minimum
 * and maximum times"). A collective is reported when its compute deltas spread by more than {@code threshold} times
 * their mean ({@code (max − min) / mean}), over at least two ranks.
 */
public final class Imbalance {
    /** One imbalanced collective: where, how much, and the extreme ranks. */
    public record Finding(String path, EventNode event, double spread, TimeStats compute) {
    }

    private Imbalance() {
    }

    public static List<Finding> find(Trace trace, double threshold) {
        List<Finding> out = new ArrayList<>();
        walk(trace.nodes(), "", threshold, out);
        out.sort((a, b) -> Double.compare(b.spread, a.spread));
        return out;
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
                if (!e.op().collective() || e.ranks().size() < 2 || s.count() < 2 || s.mean() <= 0) {
                    continue;
                }
                double spread = (s.max() - s.min()) / s.mean();
                if (spread > threshold && s.minRank() != s.maxRank()) {
                    out.add(new Finding(here, e, spread, s));
                }
            }
        }
    }
}
