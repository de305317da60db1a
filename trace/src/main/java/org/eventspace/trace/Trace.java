package org.eventspace.trace;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A whole job's compressed trace: the ranks' traces merged into one (ScalaTrace's inter-node compression, Ratn et al.
 * §2 and §5.5), with what each rank could not record and the names of the call sites.
 *
 * <p>Two traces merge where their elements match: events of the same op, call site and reduce operator, and loops of
 * the same iteration count whose bodies match element by element (the paper: "when events, parameters, structure and
 * iteration counts match", relaxed as in §5.5 so that peers, sizes and roots may differ and are kept as ordered
 * (value, ranklist) pairs). Elements are aligned by a longest common subsequence; unmatched runs between two matches
 * are kept in order, the run of the lower rank first. Ranklists are canonical ({@link RankList}), so merging the
 * same ranks in any tree gives the same trace (a property test checks it). The inputs are consumed.
 *
 * <p>Not thread-safe.
 */
public final class Trace {
    /**
     * Bytes one event would take in a flat trace: rank (4), op (2), reduce (2), site (4), peer (4), count (4),
     * root (4), start time (8), end time (8) = 40. What {@code flat_bytes} counts.
     */
    public static final int FLAT_RECORD_BYTES = 40;

    /** One call as a rank made it, for expansion and tests. */
    public record Call(Op op, int site, int reduce, long peer, long count, long root) {
    }

    final int ranks;
    final TimeEncoding encoding;
    final int bins;
    final List<Node> top;
    final long eventsRecorded;
    final List<RankTrace.Lost> lost;
    final Map<Integer, String> sites;

    Trace(int ranks, TimeEncoding encoding, int bins, List<Node> top, long eventsRecorded, List<RankTrace.Lost> lost,
          Map<Integer, String> sites) {
        this.ranks = ranks;
        this.encoding = encoding;
        this.bins = bins;
        this.top = top;
        this.eventsRecorded = eventsRecorded;
        this.lost = lost;
        this.sites = sites;
    }

    /** One rank's trace as a mergeable trace of a job of {@code ranks} ranks. Consumes {@code rank}. */
    public static Trace of(RankTrace rank, int ranks) {
        List<Node> top = new ArrayList<>(rank.nodes());
        for (Node n : top) {
            n.seal(rank.config());
        }
        RankTrace.Lost lost = rank.lost();
        return new Trace(ranks, rank.config().encoding(), rank.config().bins(), top, rank.recorded(),
                lost == null ? List.of() : List.of(lost), sitesOf(top));
    }

    /** Merges every rank's trace over a binary tree (ranks paired 0+1, 2+3, ..., then the pairs, as ScalaTrace does). */
    public static Trace mergeAll(List<RankTrace> rankTraces) {
        int n = rankTraces.size();
        List<Trace> level = new ArrayList<>();
        for (RankTrace r : rankTraces) {
            level.add(of(r, n));
        }
        while (level.size() > 1) {
            List<Trace> next = new ArrayList<>();
            for (int i = 0; i < level.size(); i += 2) {
                next.add(i + 1 < level.size() ? merge(level.get(i), level.get(i + 1)) : level.get(i));
            }
            level = next;
        }
        return level.get(0);
    }

    public static Trace merge(Trace a, Trace b) {
        if (a.encoding != b.encoding || a.bins != b.bins || a.ranks != b.ranks) {
            throw new IllegalArgumentException("cannot merge traces of different encodings or jobs: " + a.encoding + "/"
                    + a.bins + " bins/" + a.ranks + " ranks vs " + b.encoding + "/" + b.bins + " bins/" + b.ranks + " ranks");
        }
        List<RankTrace.Lost> lost = new ArrayList<>(a.lost);
        lost.addAll(b.lost);
        lost.sort((x, y) -> Integer.compare(x.rank(), y.rank()));
        Map<Integer, String> sites = new TreeMap<>(a.sites);
        sites.putAll(b.sites);
        return new Trace(a.ranks, a.encoding, a.bins, mergeSequences(a.top, b.top), a.eventsRecorded + b.eventsRecorded,
                lost, sites);
    }

    static List<Node> mergeSequences(List<Node> a, List<Node> b) {
        int n = a.size(), m = b.size();
        int[][] lcs = new int[n + 1][m + 1];
        for (int i = n - 1; i >= 0; i--) {
            for (int j = m - 1; j >= 0; j--) {
                lcs[i][j] = mergeable(a.get(i), b.get(j)) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
            }
        }
        List<Node> out = new ArrayList<>();
        List<Node> onlyA = new ArrayList<>();
        List<Node> onlyB = new ArrayList<>();
        int i = 0, j = 0;
        while (i < n || j < m) {
            if (i < n && j < m && mergeable(a.get(i), b.get(j)) && lcs[i][j] == lcs[i + 1][j + 1] + 1) {
                flush(out, onlyA, onlyB);
                out.add(mergeNodes(a.get(i++), b.get(j++)));
            } else if (j >= m || (i < n && lcs[i + 1][j] >= lcs[i][j + 1])) {
                onlyA.add(a.get(i++));
            } else {
                onlyB.add(b.get(j++));
            }
        }
        flush(out, onlyA, onlyB);
        return out;
    }

    private static void flush(List<Node> out, List<Node> onlyA, List<Node> onlyB) {
        boolean aFirst = onlyB.isEmpty() || (!onlyA.isEmpty() && onlyA.get(0).ranks.first() <= onlyB.get(0).ranks.first());
        out.addAll(aFirst ? onlyA : onlyB);
        out.addAll(aFirst ? onlyB : onlyA);
        onlyA.clear();
        onlyB.clear();
    }

    static boolean mergeable(Node x, Node y) {
        if (x instanceof EventNode a && y instanceof EventNode b) {
            return a.op == b.op && a.site == b.site && a.reduce == b.reduce;
        }
        if (x instanceof LoopNode a && y instanceof LoopNode b) {
            if (a.iters != b.iters || a.body.size() != b.body.size()) {
                return false;
            }
            for (int i = 0; i < a.body.size(); i++) {
                if (!mergeable(a.body.get(i), b.body.get(i))) {
                    return false;
                }
            }
            return true;
        }
        return false;
    }

    private static Node mergeNodes(Node x, Node y) {
        x.ranks = x.ranks.union(y.ranks);
        if (x instanceof EventNode a) {
            EventNode b = (EventNode) y;
            a.peerParams = union(a.peerParams, b.peerParams);
            a.countParams = union(a.countParams, b.countParams);
            a.rootParams = union(a.rootParams, b.rootParams);
            a.compute.merge(b.compute);
            a.comm.merge(b.comm);
        } else {
            LoopNode a = (LoopNode) x;
            LoopNode b = (LoopNode) y;
            for (int i = 0; i < a.body.size(); i++) {
                a.body.set(i, mergeNodes(a.body.get(i), b.body.get(i)));
            }
        }
        return x;
    }

    private static Params union(Params a, Params b) {
        return a == null ? b : b == null ? a : a.union(b);
    }

    private static Map<Integer, String> sitesOf(List<Node> top) {
        Map<Integer, String> names = CallSite.names();
        Map<Integer, String> used = new TreeMap<>();
        collectSites(top, names, used);
        return used;
    }

    private static void collectSites(List<Node> nodes, Map<Integer, String> names, Map<Integer, String> used) {
        for (Node n : nodes) {
            if (n instanceof EventNode e) {
                if (e.site != CallSite.UNMARKED && names.containsKey(e.site)) {
                    used.put(e.site, names.get(e.site));
                }
                if (e.compute != null) {
                    for (Integer prev : e.compute.paths().keySet()) {
                        if (prev != CallSite.UNMARKED && names.containsKey(prev)) {
                            used.put(prev, names.get(prev));
                        }
                    }
                }
            } else {
                collectSites(((LoopNode) n).body, names, used);
            }
        }
    }

    /** The calls {@code rank} made, in order: the inverse of the compression and the merge. */
    public List<Call> expand(int rank) {
        List<Call> out = new ArrayList<>();
        expand(top, rank, out);
        return out;
    }

    private static void expand(List<Node> nodes, int rank, List<Call> out) {
        for (Node n : nodes) {
            if (!n.ranks.contains(rank)) {
                continue;
            }
            if (n instanceof EventNode e) {
                out.add(new Call(e.op, e.site, e.reduce, value(e.peerParams, rank), value(e.countParams, rank),
                        value(e.rootParams, rank)));
            } else {
                LoopNode l = (LoopNode) n;
                for (long i = 0; i < l.iters; i++) {
                    expand(l.body, rank, out);
                }
            }
        }
    }

    private static long value(Params p, int rank) {
        return p == null ? EventNode.NONE : p.valueFor(rank);
    }

    public int ranks() {
        return ranks;
    }

    public TimeEncoding encoding() {
        return encoding;
    }

    public int bins() {
        return bins;
    }

    public List<Node> nodes() {
        return Collections.unmodifiableList(top);
    }

    public long eventsRecorded() {
        return eventsRecorded;
    }

    public List<RankTrace.Lost> lost() {
        return Collections.unmodifiableList(lost);
    }

    public Map<Integer, String> sites() {
        return Collections.unmodifiableMap(sites);
    }

    /** {@link #eventsRecorded()} × {@link #FLAT_RECORD_BYTES}: what a flat trace of the same events would take. */
    public long flatBytes() {
        return eventsRecorded * FLAT_RECORD_BYTES;
    }
}
