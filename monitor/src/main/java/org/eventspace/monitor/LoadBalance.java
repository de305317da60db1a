package org.eventspace.monitor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.eventspace.comm.pathmap.Entry;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;

/**
 * The load-balance monitor's answer (EventSpace paper §4.3): the tree weighted by last arrivals, and its heaviest path
 * from the root to a rank, whose end is the slowest rank. Immutable.
 *
 * <p>Each gred's edges are weighted by the share of its calls in which that port arrived last; a path's weight is the
 * product of its edges' shares: the chance that a call's chain of last arrivers, followed from the root down, ends at
 * that rank (taking each gred's choice as independent of the others'). The heaviest path is the path of largest weight.
 * Following the locally heaviest port instead goes wrong where a remote subtree is structurally late: its proxy arrives
 * last at the gred above more often than a slow rank's local subtree does, yet that lateness is spread over all its
 * ranks, while the slow rank's is concentrated in one chain (measured: 32 ranks on 3 simulated hosts, a k-ary tree,
 * one rank 200 µs slow; the greedy walk ended on a remote rank, the heaviest path on the slow one).
 *
 * @param tree        the tree.
 * @param path        the wrappers on the heaviest path, root first.
 * @param weight      the path's weight, 0..1.
 * @param slowestRank the rank at the path's end; -1 if the tree has no gred with metrics on any path.
 */
public record LoadBalance(int tree, List<String> path, double weight, int slowestRank) {
    /**
     * The heaviest path of {@code tree}.
     *
     * @param lastArrivals per gred name, how often each port arrived last; a gred without an entry weighs its ports
     *                     equally (its collectors were not placed, or it was not monitored).
     */
    public static LoadBalance of(Pathmap pathmap, int tree, Map<String, long[]> lastArrivals) {
        Best best = best(pathmap, pathmap.root(tree), tree, lastArrivals, 0);
        List<String> path = new ArrayList<>(best.path.size());
        for (int i = best.path.size() - 1; i >= 0; i--) {
            path.add(best.path.get(i));
        }
        return new LoadBalance(tree, path, best.weight, best.rank);
    }

    /** The heaviest path below {@code n}: its weight, the rank at its end, and its wrappers, leaf first. */
    private record Best(double weight, int rank, List<String> path) {
    }

    private static Best best(Pathmap pathmap, Node n, int tree, Map<String, long[]> lastArrivals, int depth) {
        if (depth > pathmap.nodes().size()) {
            throw new IllegalStateException("tree " + tree + " has a cycle at " + n.name());
        }
        boolean gred = n.kind().equals(PathmapBuilder.GRED);
        long[] counts = gred ? lastArrivals.get(n.name()) : null;
        long calls = 0;
        if (counts != null) {
            for (long c : counts) {
                calls += c;
            }
        }
        Best chosen = null;
        int ports = gred ? n.arity() : 1;
        for (int port = 0; port < ports; port++) {
            double share = !gred ? 1.0 : calls == 0 ? 1.0 / ports : (double) counts[port] / calls;
            Best below = below(pathmap, n, port, tree, lastArrivals, depth);
            if (below == null) {
                continue;
            }
            double weight = share * below.weight;
            if (chosen == null || weight > chosen.weight) {
                chosen = new Best(weight, below.rank, below.path);
            }
        }
        List<String> path = new ArrayList<>(chosen == null ? List.of() : chosen.path);
        path.add(n.name());
        return chosen == null ? new Best(0, -1, path) : new Best(chosen.weight, chosen.rank, path);
    }

    /** What enters {@code n} at {@code port}: a rank (weight 1) or a wrapper's heaviest path; null if nothing does. */
    private static Best below(Pathmap pathmap, Node n, int port, int tree, Map<String, long[]> lastArrivals, int depth) {
        for (Node child : pathmap.children(n.id())) {
            if (child.parentPort() == port) {
                return best(pathmap, child, tree, lastArrivals, depth + 1);
            }
        }
        for (Entry e : pathmap.entriesAt(n.id())) {
            if (e.port() == port && e.tree() == tree) {
                return new Best(1.0, e.rank(), new ArrayList<>());
            }
        }
        return null;
    }
}
