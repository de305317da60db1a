package org.eventspace.trace;

import java.util.List;

import org.eventspace.comm.path.ReduceOp;

/**
 * One communication call of a compressed trace: its op, call site, reduce operator and parameters, and its compute
 * and communicate delta times (Ratn et al. §3: the time since the previous call ended, and the call's own time).
 *
 * <p>While one rank records, a new event holds its parameters and its one sample raw (no objects beyond itself);
 * most are absorbed into a loop body at once and dropped. {@link #seal} turns the survivors into the merged form:
 * parameters as {@link Params} (value, ranklist) pairs. Peers are kept relative to the caller ({@code dest − rank}),
 * the "location-independent end-point encoding" of ScalaTrace, so a halo exchange with rank ± 1 is one value on every
 * rank. Not thread-safe.
 */
public final class EventNode extends Node {
    /** A parameter the op does not have. */
    public static final long NONE = Long.MIN_VALUE;
    /**
     * The peer of an MPI call to or from {@code MPI_PROC_NULL} (a halo exchange's edge on a non-periodic grid): a no-op
     * transfer, kept as a value of its own (never a rank offset) and written {@code "proc_null"} in the file.
     */
    public static final long PROC_NULL = Long.MIN_VALUE + 1;

    final Op op;
    final int site;
    final int reduce;
    final long peer;
    final long count;
    final long root;
    /** An MPI call's tag (a wait's or test's request count), or {@link #NONE}: absent on our own workloads' calls. */
    final long tag;
    /** An MPI call's communicator id (the interposition library's, the same on every member), or {@link #NONE}. */
    final long communicator;
    private final int hash;
    private final int relaxedHash;
    Params peerParams;
    Params countParams;
    Params rootParams;
    /** Merged {@link #tag}, or null (what {@link #rootParams} is to the root). */
    Params tagParams;
    /** Merged {@link #communicator}, or null. */
    Params communicatorParams;
    /**
     * One rank's counts, occurrence by occurrence, once they differ between occurrences (iterations of a loop that
     * folded although their message sizes differed: {@link CountRuns}); null while every occurrence had {@link #count}.
     */
    CountRuns countRuns;
    /** The merged form of varying counts: each rank set's runs, by lowest rank; then {@link #countParams} is null. */
    List<RunsEntry> countRunsParams;
    /** How many times one rank made this call (the product of the enclosing loops' iterations, once folded). */
    long occurrences = 1;
    final long compute0;
    final long comm0;
    final int previousSite0;
    final int rank0;
    DeltaTiming compute;
    DeltaTiming comm;

    EventNode(RankList ranks, Op op, int site, int reduce, long peer, long count, long root, long compute0, long comm0,
              int previousSite0, int rank0) {
        this(ranks, op, site, reduce, peer, count, root, NONE, NONE, compute0, comm0, previousSite0, rank0);
    }

    EventNode(RankList ranks, Op op, int site, int reduce, long peer, long count, long root, long tag, long communicator,
              long compute0, long comm0, int previousSite0, int rank0) {
        super(ranks);
        this.tag = tag;
        this.communicator = communicator;
        this.op = op;
        this.site = site;
        this.reduce = reduce;
        this.peer = peer;
        this.count = count;
        this.root = root;
        this.compute0 = compute0;
        this.comm0 = comm0;
        this.previousSite0 = previousSite0;
        this.rank0 = rank0;
        int h = op.ordinal();
        h = 31 * h + site;
        h = 31 * h + reduce;
        h = 31 * h + Long.hashCode(peer);
        h = 31 * h + Long.hashCode(tag) * 17 + Long.hashCode(communicator);
        this.relaxedHash = 31 * h + Long.hashCode(root);
        h = 31 * h + Long.hashCode(count);
        this.hash = 31 * h + Long.hashCode(root);
    }

    /** The ranks of a merged event whose counts vary, with their counts occurrence by occurrence. */
    public record RunsEntry(CountRuns runs, RankList ranks) {
    }

    /** A merged event as a trace file holds it; {@code occurrences} per rank, {@code countRuns} null unless counts vary. */
    static EventNode restored(RankList ranks, Op op, int site, int reduce, Params peer, Params count, Params root,
                              List<RunsEntry> countRuns, long occurrences, DeltaTiming compute, DeltaTiming comm) {
        EventNode e = new EventNode(ranks, op, site, reduce, NONE, NONE, NONE, 0, 0, 0, -1);
        e.peerParams = peer;
        e.countParams = count;
        e.countRunsParams = countRuns == null ? null : List.copyOf(countRuns);
        e.rootParams = root;
        e.occurrences = occurrences;
        e.compute = compute;
        e.comm = comm;
        return e;
    }

    @Override
    int shapeHash() {
        return hash;
    }

    @Override
    int relaxedHash() {
        return relaxedHash;
    }

    /** Exactly the same call: its count too, and neither side's counts varying. */
    @Override
    boolean sameShape(Node other) {
        return other instanceof EventNode e && e.hash == hash && e.op == op && e.site == site && e.reduce == reduce
                && e.peer == peer && e.count == count && e.root == root && e.tag == tag && e.communicator == communicator
                && e.countRuns == null && countRuns == null;
    }

    @Override
    boolean sameShapeRelaxed(Node other) {
        return other instanceof EventNode e && e.relaxedHash == relaxedHash && e.op == op && e.site == site
                && e.reduce == reduce && e.peer == peer && e.root == root && e.tag == tag && e.communicator == communicator;
    }

    /**
     * Whether a call with these parameters is this event (what {@link #sameShape} compares, without an object); an event
     * whose counts already vary takes any count.
     */
    boolean matches(Op op, int site, int reduce, long peer, long count, long root, long tag, long communicator) {
        return this.op == op && this.site == site && this.reduce == reduce && this.peer == peer
                && (this.count == count || countRuns != null) && this.root == root && this.tag == tag
                && this.communicator == communicator;
    }

    /**
     * Adds one occurrence of this rank's (its deltas and its count), as absorbing an event that held it would; returns
     * the runs of counts that started (0 or 1).
     */
    int addSample(long computeNanos, long commNanos, int rank, int previousSite, long count, TraceConfig config) {
        materialise(config);
        compute.add(computeNanos, rank, previousSite);
        comm.add(commNanos, rank, previousSite);
        return appendCounts(count, null, 1);
    }

    @Override
    int absorb(Node other, TraceConfig config) {
        EventNode e = (EventNode) other;
        materialise(config);
        if (e.compute == null) {
            compute.add(e.compute0, e.rank0, e.previousSite0);
            comm.add(e.comm0, e.rank0, e.previousSite0);
        } else {
            compute.merge(e.compute);
            comm.merge(e.comm);
        }
        return appendCounts(e.count, e.countRuns, e.occurrences);
    }

    /**
     * Adds {@code n} later occurrences (their counts: {@code c} each, or {@code runs}): nothing is allocated while
     * every count equals {@link #count}; the first that differs starts the runs. Returns the runs that started.
     */
    private int appendCounts(long c, CountRuns runs, long n) {
        if (countRuns == null && runs == null && c == count) {
            occurrences += n;
            return 0;
        }
        // Until now one run, the constant count's, held in count and occurrences all along: only later runs are new.
        int before = countRuns == null ? 1 : countRuns.runCount();
        if (countRuns == null) {
            countRuns = CountRuns.constant(count, occurrences);
        }
        if (runs == null) {
            countRuns.append(c, n);
        } else {
            countRuns.appendAll(runs);
        }
        occurrences += n;
        return countRuns.runCount() - before;
    }

    private void materialise(TraceConfig config) {
        if (compute == null) {
            compute = new DeltaTiming(config);
            comm = new DeltaTiming(config);
            compute.add(compute0, rank0, previousSite0);
            comm.add(comm0, rank0, previousSite0);
        }
    }

    @Override
    int nodeCount() {
        return 1;
    }

    @Override
    void seal(TraceConfig config) {
        materialise(config);
        if (peerParams == null && countParams == null && countRunsParams == null && rootParams == null
                && tagParams == null && communicatorParams == null) {
            tagParams = tag == NONE ? null : Params.single(tag, ranks);
            communicatorParams = communicator == NONE ? null : Params.single(communicator, ranks);
            peerParams = peer == NONE ? null : Params.single(peer, ranks);
            if (countRuns != null) {
                countRunsParams = List.of(new RunsEntry(countRuns, ranks));
            } else {
                countParams = count == NONE ? null : Params.single(count, ranks);
            }
            rootParams = root == NONE ? null : Params.single(root, ranks);
        }
    }

    public Op op() {
        return op;
    }

    public int site() {
        return site;
    }

    /** The reduce operator, or null if the op has none. */
    public ReduceOp reduceOp() {
        return reduce < 0 ? null : ReduceOp.values()[reduce];
    }

    /** Peer offsets (dest − rank), or null if the op has no peer. */
    public Params peer() {
        return peerParams;
    }

    /** Words per rank, or null: the op has none, or its counts vary between occurrences ({@link #countRuns()}). */
    public Params count() {
        return countParams;
    }

    /** Counts that vary between occurrences: each rank set's, occurrence by occurrence; null if they do not. */
    public List<RunsEntry> countRuns() {
        return countRunsParams;
    }

    /** How many times one rank makes this call. */
    public long occurrences() {
        return occurrences;
    }

    /**
     * The counts {@code rank} passes, occurrence by occurrence, for whoever walks this event in order (an expansion, a
     * replay, an export), when they vary ({@link #countRuns()}); null if they do not (then {@link #count()} holds them)
     * or the rank is not in the event.
     */
    public CountRuns.Cursor counts(int rank) {
        if (countRunsParams != null) {
            for (RunsEntry e : countRunsParams) {
                if (e.ranks().contains(rank)) {
                    return e.runs().cursor();
                }
            }
        }
        return null;
    }

    /** Root rank, or null. */
    public Params root() {
        return rootParams;
    }

    /**
     * An MPI call's tag as the program passed it (−1: MPI_ANY_TAG), for a wait or test the number of requests it was
     * given; null on our own workloads' calls and on MPI traces recorded before tags were kept.
     */
    public Params tag() {
        return tagParams;
    }

    /** An MPI call's communicator id (0: MPI_COMM_WORLD, 1: MPI_COMM_SELF, docs/MPI.md), or null: the call has none. */
    public Params communicator() {
        return communicatorParams;
    }

    /** Sets the tag and communicator parameters of an event read from a file (absent: null). */
    void restoreChannel(Params tag, Params communicator) {
        this.tagParams = tag;
        this.communicatorParams = communicator;
    }

    public DeltaTiming computeDelta() {
        return compute;
    }

    public DeltaTiming communicateDelta() {
        return comm;
    }
}
