package org.eventspace.mpi;

import java.util.ArrayList;
import java.util.List;

import org.eventspace.events.TraceTupleFlyweight;
import org.eventspace.trace.EventNode;
import org.eventspace.trace.Op;
import org.eventspace.trace.RankTrace;
import org.eventspace.trace.Trace;
import org.eventspace.trace.TraceConfig;

/**
 * {@code mpirun --trace}: an MPI program's calls, as the node agents read them, recorded into the ScalaTrace recorder
 * ({@link RankTrace}: loop compression as the calls arrive, one per rank) and merged across ranks at the end, so an MPI
 * program gets the same {@code eventspace.trace/1} file as a run of ours. A call's compute delta is the time from the
 * end of the rank's previous call to the start of this one, its communicate delta the call itself, both from the
 * library's timestamps on the rank's own clock (so no clock alignment is needed); its call site is the library's
 * signature (the return address in the executable, the same on every rank; its low 31 bits), its count the bytes, a point-to-point
 * peer relative to the rank (ScalaTrace's encoding: "the next rank" on every rank) and a root as it is; its tag (for a
 * wait or test: the number of requests it was given) and its communicator id (the library's, the same on every member:
 * {@link MpiTuple}), which a replay on MPI needs to re-issue the call ({@link MpiReplayProgram}). A call on a
 * communicator the library could not name keeps {@link #COMM_UNKNOWN}.
 *
 * <p>Fed on the agent thread only; {@link #trace} after the run.
 */
public final class MpiTraceRecorder implements MpiCallListener {
    private final TraceConfig config;
    private final int ranks;
    private final RankTrace[] traces;
    private final long[] first;
    private final long[] lastEnd;
    /** Our op of each MPI code (MpiOp), resolved once: the agent thread records without allocating. */
    private final Op[] opOfCode;
    private long calls;
    /** The communicator id of a call on a communicator the library could not name (its table was full). */
    public static final long COMM_UNKNOWN = MpiTuple.COMM_UNKNOWN_ID & 0xFFFF_FFFFL;

    public MpiTraceRecorder(int ranks, TraceConfig config) {
        this.config = config;
        this.ranks = ranks;
        this.traces = new RankTrace[ranks];
        this.first = new long[ranks];
        this.lastEnd = new long[ranks];
        this.opOfCode = new Op[MpiOp.END - MpiOp.FIRST];
        for (int code = MpiOp.FIRST; code < MpiOp.END; code++) {
            opOfCode[code - MpiOp.FIRST] = Op.ofMpiName(MpiOp.name(code));
        }
    }

    @Override
    public void onCall(int rank, TraceTupleFlyweight t) {
        if (rank < 0 || rank >= ranks) {
            return;
        }
        if (t.opType() == MpiTuple.RECORD_RECEIVE || t.opType() == MpiTuple.RECORD_COLLECTIVE_DONE) {
            // a receive or a collective completed inside the call before it: part of that call, not a call of its own
            return;
        }
        RankTrace trace = traces[rank];
        long start = t.startNs();
        long end = t.endNs();
        if (trace == null) {
            trace = traces[rank] = new RankTrace(rank, config);
            first[rank] = start;
            lastEnd[rank] = start;
        }
        int code = t.opType();
        Op op = code >= MpiOp.FIRST && code < MpiOp.END ? opOfCode[code - MpiOp.FIRST] : Op.MPI_CALL;
        long value = t.value();
        int peer = MpiTuple.peer(value);
        long relative = !op.pointToPoint() ? EventNode.NONE
                : (t.flags() & MpiTuple.FLAG_PROC_NULL) != 0 ? EventNode.PROC_NULL
                : peer >= 0 ? peer - rank : EventNode.NONE;
        long root = op.rooted() && peer >= 0 ? peer : EventNode.NONE;
        long count = op == Op.MPI_CALL ? code : MpiTuple.bytes(value);
        // The trace format's site ids are non-negative: the signature's low 31 bits.
        long sequence = t.sequence();
        long tag = taggedOrCounted(op) ? MpiTuple.low(sequence) : EventNode.NONE;
        long comm = onCommunicator(op) ? MpiTuple.comm(sequence) & 0xFFFF_FFFFL : EventNode.NONE;
        trace.record(op, MpiTuple.site(t) & Integer.MAX_VALUE, -1, relative, count, root, tag, comm,
                Math.max(0, start - lastEnd[rank]), end - start);
        lastEnd[rank] = end;
        trace.span(end - first[rank]);
        calls++;
    }

    /** Whether the tuple's low word is the call's tag (point-to-point) or its request count (a wait or test). */
    static boolean taggedOrCounted(Op op) {
        return op.pointToPoint() && !oneSided(op) || completion(op);
    }

    /** Whether the call names a communicator (not a window: one-sided calls name their window's id there). */
    static boolean onCommunicator(Op op) {
        return op.mpi() && op != Op.MPI_CALL && !oneSided(op) && !completion(op);
    }

    static boolean completion(Op op) {
        return switch (op) {
            case MPI_WAIT, MPI_WAITALL, MPI_WAITANY, MPI_WAITSOME, MPI_TEST, MPI_TESTALL, MPI_TESTANY, MPI_TESTSOME -> true;
            default -> false;
        };
    }

    static boolean oneSided(Op op) {
        return switch (op) {
            case MPI_PUT, MPI_GET, MPI_ACCUMULATE, MPI_WIN_FENCE, MPI_WIN_LOCK, MPI_WIN_UNLOCK, MPI_WIN_CREATE, MPI_WIN_FREE ->
                    true;
            default -> false;
        };
    }

    /** Calls recorded, all ranks together. */
    public long calls() {
        return calls;
    }

    /** Every rank's trace merged over a binary tree (a rank that made no call: an empty trace). */
    public Trace trace() {
        List<RankTrace> all = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            all.add(traces[r] != null ? traces[r] : new RankTrace(r, config));
        }
        return Trace.mergeAll(all);
    }
}
