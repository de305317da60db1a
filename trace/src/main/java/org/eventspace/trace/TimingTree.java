package org.eventspace.trace;

import java.util.ArrayList;
import java.util.List;

/**
 * The timing tree of Ratn et al., ICS 2008, §3.5 and Figure 2: search in time over a compressed trace without
 * expanding it. Leaves are events with their delta time (here a rank's mean compute plus communicate delta, its rank
 * group's where the event's ranks timed differently: {@link DeltaTiming#forRank}); inner
 * nodes are loops with their iteration counts; the root is the program, one iteration.
 *
 * <p>Each inner node keeps the end time of each child within one iteration (prefix sums). A search for time t at a
 * loop whose iteration lasts d takes iteration {@code i = ⌈t/d⌉ − 1} (the paper's
 * {@code start + i·d ≤ t ≤ start + (i+1)·d}), then binary-searches the children for the one whose interval
 * {@code (start, end]} holds the rest, and descends: O(v · log h) for v nesting levels and h children per level,
 * independent of the length of the flat trace. (The paper states O(h × log v) with h and v as it defines them; a
 * per-level binary search is what its example does.) Immutable once built.
 */
public final class TimingTree {
    /** A leaf (event) or an inner node (loop); {@code event} is null for loops, {@code label} names either. */
    public static final class TNode {
        final String label;
        final EventNode event;
        final long iters;
        final List<TNode> children;
        final double[] ends;
        final double duration; // of one iteration for loops, of the event for leaves

        private TNode(String label, EventNode event, long iters, List<TNode> children, double duration) {
            this.label = label;
            this.event = event;
            this.iters = iters;
            this.children = children;
            this.ends = new double[children.size()];
            double t = 0;
            for (int i = 0; i < children.size(); i++) {
                t += children.get(i).total();
                ends[i] = t;
            }
            this.duration = children.isEmpty() ? duration : t;
        }

        double total() {
            return children.isEmpty() ? duration : duration * iters;
        }
    }

    /** What is running at the searched time: the event, the iteration of every enclosing loop, its interval. */
    public record Hit(String label, EventNode event, List<Long> iterations, double start, double end) {
    }

    private final TNode root;

    private TimingTree(TNode root) {
        this.root = root;
    }

    /** A leaf of the paper's example: event {@code label} lasting {@code delta}. */
    public static TNode event(String label, double delta) {
        return new TNode(label, null, 1, List.of(), delta);
    }

    /** An inner node: {@code iters} iterations of {@code children}. */
    public static TNode loop(String label, long iters, TNode... children) {
        return new TNode(label, null, iters, List.of(children), 0);
    }

    /** The tree of {@code root}'s children as the program's one iteration. */
    public static TimingTree of(TNode... children) {
        return new TimingTree(new TNode("program", null, 1, List.of(children), 0));
    }

    /** The timing tree of what {@code rank} ran in {@code trace}, each event lasting its mean compute + communicate delta. */
    public static TimingTree of(Trace trace, int rank) {
        return new TimingTree(new TNode("program", null, 1, build(trace.nodes(), rank, new int[] {0}), 0));
    }

    private static List<TNode> build(List<Node> nodes, int rank, int[] counter) {
        List<TNode> out = new ArrayList<>();
        for (Node n : nodes) {
            if (!n.ranks().contains(rank)) {
                continue;
            }
            int id = counter[0]++;
            if (n instanceof EventNode e) {
                double d = e.computeDelta().forRank(rank).stats().mean() + e.communicateDelta().forRank(rank).stats().mean();
                out.add(new TNode(e.op().fileName() + "#" + id, e, 1, List.of(), d));
            } else {
                LoopNode l = (LoopNode) n;
                out.add(new TNode("loop#" + id, null, l.iterations(), build(l.body, rank, counter), 0));
            }
        }
        return out;
    }

    /** The whole run's length in the tree's time unit. */
    public double total() {
        return root.total();
    }

    /** The event at time {@code t} (in {@code (start, end]}; t = 0 is the first event), or null if t is outside the run. */
    public Hit search(double t) {
        if (t < 0 || t > root.total()) {
            return null;
        }
        List<Long> iterations = new ArrayList<>();
        TNode node = root;
        double base = 0;
        while (!node.children.isEmpty()) {
            double rest = t - base;
            long i = 0;
            if (node != root) {
                i = node.duration <= 0 ? 0 : Math.max(0, (long) Math.ceil(rest / node.duration) - 1);
                i = Math.min(i, node.iters - 1);
                iterations.add(i);
                rest -= i * node.duration;
                base += i * node.duration;
            }
            int c = firstEndAtLeast(node.ends, rest);
            base += c == 0 ? 0 : node.ends[c - 1];
            node = node.children.get(c);
        }
        return new Hit(node.label, node.event, iterations, base, base + node.duration);
    }

    private static int firstEndAtLeast(double[] ends, double t) {
        int lo = 0, hi = ends.length - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (ends[mid] >= t) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }
}
