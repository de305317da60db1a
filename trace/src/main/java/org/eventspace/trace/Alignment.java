package org.eventspace.trace;

import java.util.ArrayList;
import java.util.List;

/**
 * The partial merge of two sequences of trace nodes over disjoint rank sets (ScalaTrace's inter-node compression,
 * Ratn et al. §3.2: "matching events are merged, ... unmatched events are inserted" with their own ranklists): a
 * longest common subsequence of nodes that align (events of the same op, call site and reduce operator, but never two
 * calls each made once by one rank with different parameters, {@link #oneCall}; loops of the same iteration count,
 * whose bodies are then aligned the same way) becomes one node over both rank sets; what only one side has stays in
 * place, first side's before the second's. Each rank's own calls are untouched: it
 * executes exactly the nodes that name it, in order.
 *
 * <p>The subsequence is Myers' O((N+M)·D) diff ("An O(ND) Difference Algorithm and Its Variations", 1986) after the
 * common prefix and suffix are taken off, with nodes compared by a hash of what must match first: near-linear when the
 * ranks mostly agree, the common case. Past {@link #MAX_EDITS} differences the middle is left unmerged (both sides in
 * full, in order), which costs size, never correctness. Stateless.
 */
final class Alignment {
    /** Differences (inserted plus deleted nodes) searched before giving up on the middle: bounds time and memory (about D² ints). */
    static final int MAX_EDITS = 2048;

    private Alignment() {
    }

    /** {@code a} and {@code b} merged where they match; consumes both (matched nodes of {@code a} absorb {@code b}'s). */
    static List<Node> merge(List<Node> a, List<Node> b) {
        int n = a.size();
        int m = b.size();
        int[] ha = hashes(a);
        int[] hb = hashes(b);
        int pre = 0;
        while (pre < n && pre < m && matches(a, ha, pre, b, hb, pre)) {
            pre++;
        }
        int suf = 0;
        while (suf < n - pre && suf < m - pre && matches(a, ha, n - 1 - suf, b, hb, m - 1 - suf)) {
            suf++;
        }
        List<Node> out = new ArrayList<>(n + m);
        for (int i = 0; i < pre; i++) {
            out.add(join(a.get(i), b.get(i)));
        }
        middle(a, ha, pre, n - suf, b, hb, pre, m - suf, out);
        for (int i = 0; i < suf; i++) {
            out.add(join(a.get(n - suf + i), b.get(m - suf + i)));
        }
        return out;
    }

    private static boolean matches(List<Node> a, int[] ha, int i, List<Node> b, int[] hb, int j) {
        Node x = a.get(i);
        Node y = b.get(j);
        return ha[i] == hb[j] && alignable(x, y) && !(oneCall(x) && oneCall(y) && !sameParameters(x, y));
    }

    /** Two events with the same peer, count, root, tag and communicator values (as one-off collectives of a regular program have). */
    private static boolean sameParameters(Node x, Node y) {
        EventNode a = (EventNode) x;
        EventNode b = (EventNode) y;
        return a.countRunsParams == null && b.countRunsParams == null && sameValue(a.peerParams, b.peerParams)
                && sameValue(a.countParams, b.countParams) && sameValue(a.rootParams, b.rootParams)
                && sameValue(a.tagParams, b.tagParams) && sameValue(a.communicatorParams, b.communicatorParams);
    }

    private static boolean sameValue(Params a, Params b) {
        if (a == null || b == null) {
            return a == b;
        }
        return a.entries().size() == 1 && b.entries().size() == 1
                && a.entries().get(0).value() == b.entries().get(0).value();
    }

    /** Events that merge ({@link Trace#mergeable}), or loops of the same iteration count (their bodies are aligned in turn). */
    private static boolean alignable(Node x, Node y) {
        if (x instanceof LoopNode a && y instanceof LoopNode b) {
            return a.iters == b.iters;
        }
        return Trace.mergeable(x, y);
    }

    /**
     * Two aligned nodes as one: element by element where they match throughout ({@link Trace#mergeNodes}), else a loop
     * over both rank sets whose body is the two bodies aligned (ScalaTrace's merge of an RSD's members, §3.2), its
     * elements naming the ranks that execute them.
     */
    private static Node join(Node x, Node y) {
        if (Trace.mergeable(x, y)) {
            return Trace.mergeNodes(x, y);
        }
        LoopNode a = (LoopNode) x;
        LoopNode b = (LoopNode) y;
        List<Node> body = merge(new ArrayList<>(a.body), new ArrayList<>(b.body));
        a.body.clear();
        a.body.addAll(body);
        a.ranks = a.ranks.union(b.ranks);
        return a;
    }

    /**
     * A call made once by one rank. Two of them with different parameters are left apart: merged they would hold two
     * samples, statistics and (value, ranklist) pairs, several times what the two take as plain calls
     * ({@link TraceFile}'s packed form), and nothing repeats that the merge could share (an irregular code's one-off
     * calls). With the same parameters (a regular program's one-off collectives) they merge, so that k rank groups
     * keep one copy, not k.
     */
    static boolean oneCall(Node n) {
        return n instanceof EventNode e && e.compute != null && e.compute.stats().count() == 1;
    }

    /** Myers' greedy forward search over {@code a[a0, a1)} and {@code b[b0, b1)}, then the path traced back. */
    private static void middle(List<Node> a, int[] ha, int a0, int a1, List<Node> b, int[] hb, int b0, int b1,
                               List<Node> out) {
        int n = a1 - a0;
        int m = b1 - b0;
        if (n == 0 || m == 0) {
            out.addAll(a.subList(a0, a1));
            out.addAll(b.subList(b0, b1));
            return;
        }
        int max = Math.min(n + m, MAX_EDITS);
        int offset = max + 1;
        int[] v = new int[2 * max + 3];
        List<int[]> trace = new ArrayList<>();
        int found = -1;
        for (int d = 0; d <= max && found < 0; d++) {
            for (int k = -d; k <= d; k += 2) {
                int x = k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1]
                        : v[offset + k - 1] + 1;
                int y = x - k;
                while (x < n && y < m && matches(a, ha, a0 + x, b, hb, b0 + y)) {
                    x++;
                    y++;
                }
                v[offset + k] = x;
                if (x >= n && y >= m) {
                    found = d;
                    break;
                }
            }
            // Only diagonals -d..d can be reached in d steps: keep those (snapshot d is indexed by k + d + 1).
            trace.add(java.util.Arrays.copyOfRange(v, offset - d - 1, offset + d + 2));
        }
        if (found < 0) {
            out.addAll(a.subList(a0, a1));
            out.addAll(b.subList(b0, b1));
            return;
        }
        // Back from (n, m): each step of d is one insertion or deletion preceded by a run of matches (a snake).
        List<int[]> steps = new ArrayList<>(); // {x, y, kind}: kind 0 match, 1 a only, 2 b only; collected backwards
        int x = n;
        int y = m;
        for (int d = found; d > 0; d--) {
            int[] prev = trace.get(d - 1);
            int k = x - y;
            int base = d; // snapshot d - 1 holds diagonal j at j + d
            boolean down = k == -d || (k != d && prev[base + k - 1] < prev[base + k + 1]);
            int pk = down ? k + 1 : k - 1;
            int px = prev[base + pk];
            int py = px - pk;
            int sx = down ? px : px + 1; // where the snake starts after the edit
            while (x > sx) {
                x--;
                y--;
                steps.add(new int[] {x, y, 0});
            }
            steps.add(down ? new int[] {px, py, 2} : new int[] {px, py, 1});
            x = px;
            y = py;
        }
        while (x > 0) {
            x--;
            y--;
            steps.add(new int[] {x, y, 0});
        }
        // Forwards; within a run of unmatched nodes, a's go before b's (a stable, documented order).
        List<Node> onlyB = new ArrayList<>();
        for (int s = steps.size() - 1; s >= 0; s--) {
            int[] st = steps.get(s);
            switch (st[2]) {
                case 0 -> {
                    out.addAll(onlyB);
                    onlyB.clear();
                    out.add(join(a.get(a0 + st[0]), b.get(b0 + st[1])));
                }
                case 1 -> out.add(a.get(a0 + st[0]));
                default -> onlyB.add(b.get(b0 + st[1]));
            }
        }
        out.addAll(onlyB);
    }

    private static int[] hashes(List<Node> nodes) {
        int[] h = new int[nodes.size()];
        for (int i = 0; i < h.length; i++) {
            h[i] = mergeHash(nodes.get(i));
        }
        return h;
    }

    /** A hash of what {@link #alignable} compares: equal for nodes that align. */
    static int mergeHash(Node node) {
        if (node instanceof EventNode e) {
            return (31 * e.op.ordinal() + e.site) * 31 + e.reduce;
        }
        return Long.hashCode(((LoopNode) node).iters) * 31 + 17;
    }
}
