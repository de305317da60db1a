package org.eventspace.mpi;

import java.util.List;
import java.util.Map;

import org.eventspace.events.TraceTupleFlyweight;

/**
 * An MPI program's point-to-point traffic counted from the interposition library's own records, for an MPI without
 * Open MPI's PML monitoring ({@link PmlTraffic}), such as MPICH: every send call's tuple carries its destination's
 * MPI_COMM_WORLD rank and its payload bytes, so summing them per (source, destination) gives the program's own
 * sends exactly. What a collective's algorithm sends inside the library is not visible to PMPI and is not in it (the
 * ibprof paper §3.2's point); a send that failed, or went to MPI_PROC_NULL, moved nothing and is not counted.
 * Listens on the agent thread ({@link MpiRun#listen}); read {@link #counts} after the run.
 */
public final class PeerTraffic implements MpiCallListener {
    /** Says in the traffic file where the counts come from and what they leave out. */
    public static final String COUNTED_BY = "EventSpace's interposition library: the program's point-to-point sends "
            + "as its wrappers recorded them, at each sender (point-to-point only, collectives' internal traffic not "
            + "visible); bytes_received repeats what the sender counted";
    /** The one line's name of the source, as the command's output says it. */
    public static final String SOURCE = "interposition library counts (point-to-point only, collectives' internal "
            + "traffic not visible)";

    /** [field: bytes sent, messages sent][source][destination]. */
    private final long[][][] sent;
    private final int ranks;

    public PeerTraffic(int ranks) {
        this.ranks = ranks;
        this.sent = new long[2][ranks][ranks];
    }

    @Override
    public void onCall(int rank, TraceTupleFlyweight tuple) {
        int op = tuple.opType();
        if (rank < 0 || rank >= ranks || !MpiOp.known(op) || !MpiOp.sends(op)
                || (tuple.flags() & MpiTuple.FLAG_FAILED) != 0) {
            return;
        }
        int peer = MpiTuple.peer(tuple.value());
        if (peer < 0 || peer >= ranks) {
            return;
        }
        sent[0][rank][peer] += MpiTuple.bytes(tuple.value());
        sent[1][rank][peer]++;
    }

    /** The counts as {@link PmlTraffic#read} gives them: the program's sends only, received as the sender counted. */
    public PmlTraffic.Counts counts() {
        long[][][] m = new long[4][][];
        for (int f = 0; f < 4; f++) {
            m[f] = new long[ranks][];
            for (int s = 0; s < ranks; s++) {
                m[f][s] = sent[f % 2][s].clone();
            }
        }
        return new PmlTraffic.Counts(Map.of(PmlTraffic.POINT_TO_POINT, m), List.of());
    }
}
