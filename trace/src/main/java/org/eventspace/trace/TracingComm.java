package org.eventspace.trace;

import org.eventspace.comm.Comm;
import org.eventspace.comm.path.ReduceOp;

/**
 * A {@link Comm} that records every call of the rank into a {@link RankTrace} before returning.
 *
 * <p>Why a {@code Comm} decorator rather than a wrapper on the path: ScalaTrace records the application's calls
 * (the PMPI layer, Ratn et al. §2), one event per call with its parameters. A path's entry sees a call after
 * {@code Comm} has already turned it into a payload (a gather is a slot allreduce there, a send a store into the
 * peer's element), so parameters the replay needs (root, peer, words) would have to be recovered; the decorator sees
 * them as the program passed them, costs no extra hop and touches no other wrapper kind. The event collectors on the
 * paths stay as they are, so the two views (calls here, hops there) can be read side by side.
 *
 * <p>Per call: two clock reads, before and after the delegate call (compute delta = start − end of the previous call,
 * communicate delta = end − start), then the compression. The recorder's own time after a call (tens of ns once a
 * loop is established) is counted in the next compute delta: a third clock read to leave it out cost more than it
 * removed, and counted in, a timed replay re-enacts it and so re-creates the traced run's wall time. The call site
 * is whatever {@link #at} set before the call, then reset. In a loop the call is compared with the loop body's next
 * element and its deltas are held in place until the iteration completes ({@link RankTrace}): nothing is allocated
 * (TracingAllocationTest, the JMH benchmark {@code TraceRecordBenchmark}).
 *
 * <p>Not thread-safe: one per rank, like the {@code Comm} it wraps.
 */
public final class TracingComm implements Comm {
    private final Comm delegate;
    private final RankTrace trace;
    private final int rank;
    private long lastEnd;
    private final long created;
    private int site = CallSite.UNMARKED;

    public TracingComm(Comm delegate, TraceConfig config) {
        this.delegate = delegate;
        this.rank = delegate.rank();
        this.trace = new RankTrace(rank, config);
        this.lastEnd = System.nanoTime();
        this.created = lastEnd;
    }

    /** Marks the next call as made at {@code callSite}; returns this, for {@code comm.at(SITE).allreduce(...)}. */
    public TracingComm at(CallSite callSite) {
        this.site = callSite.id();
        return this;
    }

    /** Marks the next call as made at the call site numbered {@code site} (a replay re-issuing a recorded call). */
    void site(int site) {
        this.site = site;
    }

    /**
     * When the last call returned, as the recorder measured it (before its own work on the call): where a recorded
     * replay counts its next compute delta from, as the original's was counted.
     */
    long lastEnd() {
        return lastEnd;
    }

    /**
     * Marks the next call on {@code comm} as made at {@code callSite} if {@code comm} records, and returns
     * {@code comm}: how a program that may or may not be traced names its call sites
     * ({@code TracingComm.at(comm, HALO).send(...)}); one type check when it is not traced.
     */
    public static Comm at(Comm comm, CallSite callSite) {
        if (comm instanceof TracingComm traced) {
            traced.site = callSite.id();
        }
        return comm;
    }

    /**
     * Marks where the program's timed phase begins on {@code comm}, if it records (else does nothing): the calls before
     * it (a benchmark's warm-up) stay in the trace, and the trace also keeps the span from the end of the last of them
     * to the end of the run ({@code timed} in the file), so a replay can be timed over the same calls once its own JIT
     * has warmed up on the ones before (ScalaTrace marks phases with {@code MPI_Pcontrol}). Once per rank, every rank.
     */
    public static void markTimed(Comm comm) {
        if (comm instanceof TracingComm traced) {
            if (traced.trace.timedFrom >= 0) {
                throw new IllegalStateException("rank " + traced.rank + " marked its timed phase twice");
            }
            traced.trace.timedFrom = traced.trace.recorded(); // calls kept: what a replay re-issues
            // Where the timed span starts, as an offset into the whole span: the per-call path then writes one span
            // and takes no branch on the mark (a branch never taken in the warm-up is compiled out, and taking it at
            // the mark deoptimised the recorder at the start of the timed phase).
            traced.trace.timedStartNanos = traced.lastEnd - traced.created;
            traced.trace.spanNanos = traced.lastEnd - traced.created;
        }
    }

    public RankTrace trace() {
        return trace;
    }

    private void record(Op op, int reduce, long peer, long count, long root, long start, long end) {
        int s = site;
        site = CallSite.UNMARKED;
        trace.record(op, s, reduce, peer, count, root, start - lastEnd, end - start);
        trace.spanNanos = end - created;
        lastEnd = end;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return delegate.size();
    }

    @Override
    public long allreduce(long value, ReduceOp op) {
        long start = System.nanoTime();
        long r = delegate.allreduce(value, op);
        record(Op.ALLREDUCE_LONG, op.ordinal(), EventNode.NONE, 1, EventNode.NONE, start, System.nanoTime());
        return r;
    }

    @Override
    public double allreduce(double value, ReduceOp op) {
        long start = System.nanoTime();
        double r = delegate.allreduce(value, op);
        record(Op.ALLREDUCE_DOUBLE, op.ordinal(), EventNode.NONE, 1, EventNode.NONE, start, System.nanoTime());
        return r;
    }

    @Override
    public void allreduce(long[] values, int count, ReduceOp op) {
        long start = System.nanoTime();
        delegate.allreduce(values, count, op);
        record(Op.ALLREDUCE_LONGS, op.ordinal(), EventNode.NONE, count, EventNode.NONE, start, System.nanoTime());
    }

    @Override
    public void allreduce(double[] values, int count, ReduceOp op) {
        long start = System.nanoTime();
        delegate.allreduce(values, count, op);
        record(Op.ALLREDUCE_DOUBLES, op.ordinal(), EventNode.NONE, count, EventNode.NONE, start, System.nanoTime());
    }

    @Override
    public void barrier() {
        long start = System.nanoTime();
        delegate.barrier();
        record(Op.BARRIER, -1, EventNode.NONE, EventNode.NONE, EventNode.NONE, start, System.nanoTime());
    }

    @Override
    public void broadcast(long[] data, int count, int root) {
        long start = System.nanoTime();
        delegate.broadcast(data, count, root);
        record(Op.BROADCAST, -1, EventNode.NONE, count, root, start, System.nanoTime());
    }

    @Override
    public void gather(long[] send, int count, long[] recv, int root) {
        long start = System.nanoTime();
        delegate.gather(send, count, recv, root);
        record(Op.GATHER, -1, EventNode.NONE, count, root, start, System.nanoTime());
    }

    @Override
    public void allgather(long[] send, int count, long[] recv) {
        long start = System.nanoTime();
        delegate.allgather(send, count, recv);
        record(Op.ALLGATHER, -1, EventNode.NONE, count, EventNode.NONE, start, System.nanoTime());
    }

    @Override
    public void scatter(long[] send, int count, long[] recv, int root) {
        long start = System.nanoTime();
        delegate.scatter(send, count, recv, root);
        record(Op.SCATTER, -1, EventNode.NONE, count, root, start, System.nanoTime());
    }

    @Override
    public void alltoall(long[] send, int count, long[] recv) {
        long start = System.nanoTime();
        delegate.alltoall(send, count, recv);
        record(Op.ALLTOALL, -1, EventNode.NONE, count, EventNode.NONE, start, System.nanoTime());
    }

    @Override
    public void send(int dest, long[] data, int count) {
        long start = System.nanoTime();
        delegate.send(dest, data, count);
        record(Op.SEND, -1, dest - rank, count, EventNode.NONE, start, System.nanoTime());
    }

    @Override
    public int recv(int source, long[] into) {
        long start = System.nanoTime();
        int n = delegate.recv(source, into);
        record(Op.RECV, -1, source - rank, n, EventNode.NONE, start, System.nanoTime());
        return n;
    }

    /** Passed through unrecorded: a phase mark is not a communication call (the traffic counters use it). */
    @Override
    public void phase(String name) {
        delegate.phase(name);
    }
}
