package org.eventspace.trace;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A whole job's compressed trace: the ranks' traces merged into one (ScalaTrace's inter-node compression, Ratn et al.
 * §2 and §3.2–3.3), with what each rank could not record and the names of the call sites.
 *
 * <p>Two traces merge where their elements match: events of the same op, call site and reduce operator, and loops of
 * the same iteration count whose bodies match element by element (the paper: "when events, parameters, structure and
 * iteration counts match", relaxed so that peers, sizes and roots may differ and are kept as ordered (value, ranklist)
 * pairs). The merge runs in two steps. While the ranks' traces are merged over a binary tree, ranks whose whole traces
 * match join one group ({@link #mergeGroups}): that partition and each group's content depend only on the ranks'
 * traces, never on the tree. When the merged trace is first looked at ({@link #nodes}, a file written) the groups,
 * by lowest rank, are aligned over a binary tree of their own ({@link Alignment}, ScalaTrace's partial match of §3.2):
 * the elements two groups share become one node over both rank sets, the others stay in order with their own
 * ranklists, and a rank skips every node that does not name it. Because the groups are canonical, the aligned trace is
 * the same whatever tree merged the ranks (one JVM, or hosts first over TCP: a property test checks it); a program
 * whose ranks play k roles still aligns k groups, constant in the number of ranks. Ranklists are canonical
 * ({@link RankList}). The inputs are consumed.
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
    public record Call(Op op, int site, int reduce, long peer, long count, long root, long tag, long communicator) {
        /** A call without tag and communicator (our own workloads'). */
        public Call(Op op, int site, int reduce, long peer, long count, long root) {
            this(op, site, reduce, peer, count, root, EventNode.NONE, EventNode.NONE);
        }
    }

    final int ranks;
    final TimeEncoding encoding;
    final int bins;
    /** Canonical groups while merging; after {@link #align}, one group over every rank holding the aligned nodes. */
    List<Group> groups;
    /** Whether {@link #groups} is the aligned sequence (then one group), or groups of whole rank traces still to align. */
    boolean aligned;
    final long eventsRecorded;
    final List<RankTrace.Lost> lost;
    final Map<Integer, String> sites;
    /** The longest rank's recorded span: from when its recording started to the end of its last call. */
    long wallNanos;
    /** The longest rank's timed span (from its timed phase's mark to its last call's end), or -1: not every rank marked one. */
    long timedNanos = -1;
    /** Per rank, calls recorded before its timed phase began, as (value, ranklist) pairs; empty without {@link #timedNanos}. */
    List<TimedFrom> timedFrom = List.of();

    /** Ranks {@code ranks} recorded {@code calls} calls before their timed phase began. */
    public record TimedFrom(long calls, RankList ranks) {
    }

    /**
     * Ranks whose traces match element by element, and their merged trace; or, once aligned, every rank and the aligned
     * sequence, whose nodes name their own ranks.
     */
    record Group(RankList ranks, List<Node> nodes) {
    }

    Trace(int ranks, TimeEncoding encoding, int bins, List<Group> groups, long eventsRecorded, List<RankTrace.Lost> lost,
          Map<Integer, String> sites) {
        this.ranks = ranks;
        this.encoding = encoding;
        this.bins = bins;
        this.groups = groups;
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
        List<Group> groups = top.isEmpty() ? List.of() : List.of(new Group(RankList.of(rank.rank()), top));
        Trace t = new Trace(ranks, rank.config().encoding(), rank.config().bins(), groups, rank.recorded(),
                lost == null ? List.of() : List.of(lost), sitesOf(top));
        t.wallNanos = rank.spanNanos();
        if (rank.timedFrom() >= 0) {
            t.timedNanos = rank.timedSpanNanos();
            t.timedFrom = List.of(new TimedFrom(rank.timedFrom(), RankList.of(rank.rank())));
        }
        return t;
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
        Trace t = new Trace(a.ranks, a.encoding, a.bins, mergeGroups(a.groups, b.groups), a.eventsRecorded + b.eventsRecorded,
                lost, sites);
        t.wallNanos = Math.max(a.wallNanos, b.wallNanos);
        if (a.timedNanos >= 0 && b.timedNanos >= 0) {
            t.timedNanos = Math.max(a.timedNanos, b.timedNanos);
            t.timedFrom = mergeTimedFrom(a.timedFrom, b.timedFrom);
        }
        return t;
    }

    /** The pairs of both, ranks with the same count joined: constant size when ranks mark after the same count. */
    private static List<TimedFrom> mergeTimedFrom(List<TimedFrom> a, List<TimedFrom> b) {
        Map<Long, RankList> byCalls = new TreeMap<>();
        for (List<TimedFrom> side : List.of(a, b)) {
            for (TimedFrom f : side) {
                byCalls.merge(f.calls(), f.ranks(), RankList::union);
            }
        }
        List<TimedFrom> out = new ArrayList<>();
        byCalls.forEach((calls, ranks) -> out.add(new TimedFrom(calls, ranks)));
        return List.copyOf(out);
    }

    /** Timed span (ns) of the longest rank, or -1 if not every rank marked a timed phase. */
    public long timedNanos() {
        return timedNanos;
    }

    /** Calls rank {@code rank} recorded before its timed phase began, or -1 without one. */
    public long timedFrom(int rank) {
        for (TimedFrom f : timedFrom) {
            if (f.ranks().contains(rank)) {
                return f.calls();
            }
        }
        return -1;
    }

    public List<TimedFrom> timedFromPairs() {
        return timedFrom;
    }

    /**
     * Every rank's trace falls in exactly one group: the ranks whose traces match element by element (mergeability
     * is an equivalence: same ops, sites, reduce ops, loop structure and iteration counts). Merging adds each group of
     * {@code b} to the group of {@code a} it matches, or keeps it as a group of its own; groups are ordered by their
     * lowest rank. The partition and each group's content depend only on the ranks' traces, never on the order they
     * were merged in.
     */
    static List<Group> mergeGroups(List<Group> a, List<Group> b) {
        List<Group> out = new ArrayList<>(a);
        for (Group g : b) {
            boolean merged = false;
            for (int i = 0; i < out.size() && !merged; i++) {
                Group h = out.get(i);
                if (sequencesMergeable(h.nodes(), g.nodes())) {
                    List<Node> nodes = new ArrayList<>(h.nodes());
                    for (int j = 0; j < nodes.size(); j++) {
                        nodes.set(j, mergeNodes(nodes.get(j), g.nodes().get(j)));
                    }
                    out.set(i, new Group(h.ranks().union(g.ranks()), nodes));
                    merged = true;
                }
            }
            if (!merged) {
                out.add(g);
            }
        }
        out.sort((x, y) -> Integer.compare(x.ranks().first(), y.ranks().first()));
        return out;
    }

    private static boolean sequencesMergeable(List<Node> a, List<Node> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!mergeable(a.get(i), b.get(i))) {
                return false;
            }
        }
        return true;
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

    static Node mergeNodes(Node x, Node y) {
        x.ranks = x.ranks.union(y.ranks);
        if (x instanceof EventNode a) {
            EventNode b = (EventNode) y;
            a.peerParams = union(a.peerParams, b.peerParams);
            if (a.countRunsParams != null || b.countRunsParams != null) {
                a.countRunsParams = unionRuns(runsOf(a), runsOf(b));
                a.countParams = null;
            } else {
                a.countParams = union(a.countParams, b.countParams);
            }
            a.rootParams = union(a.rootParams, b.rootParams);
            a.tagParams = union(a.tagParams, b.tagParams);
            a.communicatorParams = union(a.communicatorParams, b.communicatorParams);
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

    /** {@code e}'s counts as runs per rank set: a constant count is one run of {@link EventNode#occurrences} calls. */
    private static List<EventNode.RunsEntry> runsOf(EventNode e) {
        if (e.countRunsParams != null) {
            return e.countRunsParams;
        }
        List<EventNode.RunsEntry> out = new ArrayList<>();
        if (e.countParams != null) {
            for (Params.Entry p : e.countParams.entries()) {
                out.add(new EventNode.RunsEntry(CountRuns.constant(p.value(), e.occurrences), p.ranks()));
            }
        }
        return out;
    }

    /** Rank sets with equal runs become one; ordered by lowest rank, so the result does not depend on merge order. */
    private static List<EventNode.RunsEntry> unionRuns(List<EventNode.RunsEntry> a, List<EventNode.RunsEntry> b) {
        List<EventNode.RunsEntry> out = new ArrayList<>(a);
        for (EventNode.RunsEntry e : b) {
            boolean found = false;
            for (int i = 0; i < out.size() && !found; i++) {
                if (out.get(i).runs().equals(e.runs())) {
                    out.set(i, new EventNode.RunsEntry(e.runs(), out.get(i).ranks().union(e.ranks())));
                    found = true;
                }
            }
            if (!found) {
                out.add(e);
            }
        }
        out.sort((x, y) -> Integer.compare(x.ranks().first(), y.ranks().first()));
        return List.copyOf(out);
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
        expand(nodes(), rank, out, new java.util.IdentityHashMap<>());
        return out;
    }

    private static void expand(List<Node> nodes, int rank, List<Call> out,
                               Map<EventNode, CountRuns.Cursor> counts) {
        for (Node n : nodes) {
            if (!n.ranks.contains(rank)) {
                continue;
            }
            if (n instanceof EventNode e) {
                long count;
                if (e.countRunsParams != null) {
                    CountRuns.Cursor c = counts.computeIfAbsent(e, x -> x.counts(rank));
                    count = c == null ? EventNode.NONE : c.next();
                } else {
                    count = value(e.countParams, rank);
                }
                out.add(new Call(e.op, e.site, e.reduce, value(e.peerParams, rank), count, value(e.rootParams, rank),
                        value(e.tagParams, rank), value(e.communicatorParams, rank)));
            } else {
                LoopNode l = (LoopNode) n;
                for (long i = 0; i < l.iters; i++) {
                    expand(l.body, rank, out, counts);
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

    /**
     * The top-level sequence, the groups aligned (done on the first call: it merges their shared nodes in place, so
     * afterwards this trace holds the aligned form only). Each node names the ranks that execute it.
     */
    public List<Node> nodes() {
        align();
        return Collections.unmodifiableList(groups.isEmpty() ? List.of() : groups.get(0).nodes());
    }

    /**
     * Aligns the groups (by lowest rank, over a binary tree) into one sequence, once, and then keeps rank groups of a
     * timing apart only where their difference adds at least {@link DeltaTiming#MATERIAL_SHARE} of the wall time to a
     * rank's run ({@link DeltaTiming#settleGroups}); a trace read from a file was settled when it was written.
     */
    void align() {
        if (aligned) {
            return;
        }
        aligned = true;
        if (groups.size() > 1) {
            alignGroups();
        }
        if (wallNanos > 0 && !groups.isEmpty()) {
            settleGroups(groups.get(0).nodes(), DeltaTiming.MATERIAL_SHARE * wallNanos);
        }
    }

    private static void settleGroups(List<Node> nodes, double floorNanos) {
        for (Node n : nodes) {
            if (n instanceof EventNode e) {
                e.compute.settleGroups(floorNanos);
                e.comm.settleGroups(floorNanos);
            } else {
                settleGroups(((LoopNode) n).body, floorNanos);
            }
        }
    }

    private void alignGroups() {
        List<Group> level = new ArrayList<>(groups);
        while (level.size() > 1) {
            List<Group> next = new ArrayList<>();
            for (int i = 0; i < level.size(); i += 2) {
                if (i + 1 < level.size()) {
                    Group x = level.get(i);
                    Group y = level.get(i + 1);
                    next.add(new Group(x.ranks().union(y.ranks()), Alignment.merge(x.nodes(), y.nodes())));
                } else {
                    next.add(level.get(i));
                }
            }
            level = next;
        }
        groups = List.of(level.get(0));
    }

    /**
     * Whether the groups are still whole rank traces (not aligned, every node over its group's ranks), which a partial
     * trace to be merged further sends as they are ({@link TraceFile#toJsonPartial}).
     */
    boolean wholeRankGroups() {
        for (Group g : groups) {
            if (!uniform(g)) {
                return false;
            }
        }
        return true;
    }

    /** Whether every top-level node of {@code g} executes on all of its ranks (a group of whole rank traces). */
    static boolean uniform(Group g) {
        for (Node n : g.nodes()) {
            if (!n.ranks.equals(g.ranks())) {
                return false;
            }
        }
        return true;
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

    /**
     * The groups the file lists: runs of consecutive top-level nodes over the same ranks, in the aligned sequence
     * (before partial merging this was one group per distinct rank trace).
     */
    public int groupCount() {
        return segments(nodes()).size();
    }

    /** Ranks {@code ranks} execute {@code nodes}, consecutive top-level nodes of the aligned sequence. */
    record Segment(RankList ranks, List<Node> nodes) {
    }

    /** {@code nodes} cut into maximal runs over one ranklist: what the file writes as its groups. */
    static List<Segment> segments(List<Node> nodes) {
        List<Segment> out = new ArrayList<>();
        int start = 0;
        for (int i = 1; i <= nodes.size(); i++) {
            if (i == nodes.size() || !nodes.get(i).ranks.equals(nodes.get(start).ranks)) {
                out.add(new Segment(nodes.get(start).ranks, List.copyOf(nodes.subList(start, i))));
                start = i;
            }
        }
        return out;
    }

    /**
     * The compute and communicate deltas recorded per operation, summed over every call of every rank: for each
     * {@link Op} that occurs, {@code {compute ns, communicate ns}} (from each event's statistics, count × mean, so exact
     * to rounding whatever the time encoding). What a replay's own per-operation times ({@link Replay#communicateNanos})
     * are compared with.
     */
    public java.util.Map<Op, long[]> deltaSums() {
        java.util.Map<Op, double[]> sums = new java.util.EnumMap<>(Op.class);
        addDeltaSums(nodes(), sums);
        java.util.Map<Op, long[]> out = new java.util.EnumMap<>(Op.class);
        sums.forEach((op, v) -> out.put(op, new long[] {Math.round(v[0]), Math.round(v[1])}));
        return out;
    }

    private static void addDeltaSums(List<Node> nodes, java.util.Map<Op, double[]> sums) {
        for (Node n : nodes) {
            if (n instanceof LoopNode l) {
                addDeltaSums(l.body, sums);
            } else {
                EventNode e = (EventNode) n;
                double[] v = sums.computeIfAbsent(e.op(), k -> new double[2]);
                TimeStats c = e.computeDelta().stats();
                TimeStats m = e.communicateDelta().stats();
                v[0] += c.count() * c.mean();
                v[1] += m.count() * m.mean();
            }
        }
    }

    public long wallNanos() {
        return wallNanos;
    }

    /** {@link #eventsRecorded()} × {@link #FLAT_RECORD_BYTES}: what a flat trace of the same events would take. */
    public long flatBytes() {
        return eventsRecorded * FLAT_RECORD_BYTES;
    }
}
