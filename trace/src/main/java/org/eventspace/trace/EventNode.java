package org.eventspace.trace;

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

    final Op op;
    final int site;
    final int reduce;
    final long peer;
    final long count;
    final long root;
    private final int hash;
    Params peerParams;
    Params countParams;
    Params rootParams;
    final long compute0;
    final long comm0;
    final int previousSite0;
    final int rank0;
    DeltaTiming compute;
    DeltaTiming comm;

    EventNode(RankList ranks, Op op, int site, int reduce, long peer, long count, long root, long compute0, long comm0,
              int previousSite0, int rank0) {
        super(ranks);
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
        h = 31 * h + Long.hashCode(count);
        this.hash = 31 * h + Long.hashCode(root);
    }

    /** A merged event as a trace file holds it. */
    static EventNode restored(RankList ranks, Op op, int site, int reduce, Params peer, Params count, Params root,
                              DeltaTiming compute, DeltaTiming comm) {
        EventNode e = new EventNode(ranks, op, site, reduce, NONE, NONE, NONE, 0, 0, 0, -1);
        e.peerParams = peer;
        e.countParams = count;
        e.rootParams = root;
        e.compute = compute;
        e.comm = comm;
        return e;
    }

    @Override
    int shapeHash() {
        return hash;
    }

    @Override
    boolean sameShape(Node other) {
        return other instanceof EventNode e && e.hash == hash && e.op == op && e.site == site && e.reduce == reduce
                && e.peer == peer && e.count == count && e.root == root;
    }

    /** Whether a call with these parameters is this event (what {@link #sameShape} compares, without an object). */
    boolean matches(Op op, int site, int reduce, long peer, long count, long root) {
        return this.op == op && this.site == site && this.reduce == reduce && this.peer == peer && this.count == count
                && this.root == root;
    }

    /** Adds one sample of this rank's, as absorbing an event that held it would. */
    void addSample(long computeNanos, long commNanos, int rank, int previousSite, TraceConfig config) {
        materialise(config);
        compute.add(computeNanos, rank, previousSite);
        comm.add(commNanos, rank, previousSite);
    }

    @Override
    void absorb(Node other, TraceConfig config) {
        EventNode e = (EventNode) other;
        materialise(config);
        if (e.compute == null) {
            compute.add(e.compute0, e.rank0, e.previousSite0);
            comm.add(e.comm0, e.rank0, e.previousSite0);
        } else {
            compute.merge(e.compute);
            comm.merge(e.comm);
        }
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
        if (peerParams == null) {
            peerParams = peer == NONE ? null : Params.single(peer, ranks);
            countParams = count == NONE ? null : Params.single(count, ranks);
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

    /** Words per rank, or null. */
    public Params count() {
        return countParams;
    }

    /** Root rank, or null. */
    public Params root() {
        return rootParams;
    }

    public DeltaTiming computeDelta() {
        return compute;
    }

    public DeltaTiming communicateDelta() {
        return comm;
    }
}
