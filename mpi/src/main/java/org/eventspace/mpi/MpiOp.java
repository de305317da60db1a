package org.eventspace.mpi;

/**
 * The op-type codes the native library writes for MPI calls (native/es_mpi_layout.h, {@code ES_OPS}): 256 and up,
 * after {@link org.eventspace.events.TraceOp}'s codes for our own collectives. Part of the trace format: never
 * renumber, only add (at the end, in both files; {@code MpiLayoutHeaderTest} compares them).
 */
public final class MpiOp {
    /** The first MPI code. */
    public static final int FIRST = 256;
    private static final String[] NAMES = {
            "MPI_Init",
            "MPI_Init_thread",
            "MPI_Finalize",
            "MPI_Send",
            "MPI_Bsend",
            "MPI_Ssend",
            "MPI_Rsend",
            "MPI_Isend",
            "MPI_Ibsend",
            "MPI_Issend",
            "MPI_Irsend",
            "MPI_Recv",
            "MPI_Irecv",
            "MPI_Sendrecv",
            "MPI_Sendrecv_replace",
            "MPI_Wait",
            "MPI_Waitall",
            "MPI_Waitany",
            "MPI_Waitsome",
            "MPI_Test",
            "MPI_Testall",
            "MPI_Testany",
            "MPI_Testsome",
            "MPI_Probe",
            "MPI_Iprobe",
            "MPI_Barrier",
            "MPI_Bcast",
            "MPI_Reduce",
            "MPI_Allreduce",
            "MPI_Gather",
            "MPI_Gatherv",
            "MPI_Scatter",
            "MPI_Scatterv",
            "MPI_Allgather",
            "MPI_Allgatherv",
            "MPI_Alltoall",
            "MPI_Alltoallv",
            "MPI_Alltoallw",
            "MPI_Reduce_scatter",
            "MPI_Reduce_scatter_block",
            "MPI_Scan",
            "MPI_Exscan",
            "MPI_Ibarrier",
            "MPI_Ibcast",
            "MPI_Ireduce",
            "MPI_Iallreduce",
            "MPI_Igather",
            "MPI_Igatherv",
            "MPI_Iscatter",
            "MPI_Iscatterv",
            "MPI_Iallgather",
            "MPI_Iallgatherv",
            "MPI_Ialltoall",
            "MPI_Ialltoallv",
            "MPI_Ialltoallw",
            "MPI_Ireduce_scatter",
            "MPI_Ireduce_scatter_block",
            "MPI_Iscan",
            "MPI_Iexscan",
            "MPI_Comm_dup",
            "MPI_Comm_split",
            "MPI_Comm_split_type",
            "MPI_Comm_create",
            "MPI_Comm_create_group",
            "MPI_Cart_create",
            "MPI_Cart_sub",
            "MPI_Comm_free",
            "MPI_Comm_idup",
            "MPI_Comm_dup_with_info",
            "MPI_Neighbor_allgather",
            "MPI_Neighbor_allgatherv",
            "MPI_Neighbor_alltoall",
            "MPI_Neighbor_alltoallv",
            "MPI_Neighbor_alltoallw",
            "MPI_Ineighbor_allgather",
            "MPI_Ineighbor_allgatherv",
            "MPI_Ineighbor_alltoall",
            "MPI_Ineighbor_alltoallv",
            "MPI_Ineighbor_alltoallw",
            "MPI_Put",
            "MPI_Get",
            "MPI_Accumulate",
            "MPI_Win_fence",
            "MPI_Win_lock",
            "MPI_Win_unlock",
            "MPI_Win_create",
            "MPI_Win_free",
            "MPI_Abort"
    };
    /** One past the last code this version knows. */
    public static final int END = FIRST + NAMES.length;

    public static final int INIT = code("MPI_Init");
    public static final int INIT_THREAD = code("MPI_Init_thread");
    public static final int FINALIZE = code("MPI_Finalize");
    public static final int RECV = code("MPI_Recv");
    public static final int IRECV = code("MPI_Irecv");
    public static final int SENDRECV = code("MPI_Sendrecv");
    public static final int SENDRECV_REPLACE = code("MPI_Sendrecv_replace");
    public static final int SSEND = code("MPI_Ssend");

    private MpiOp() {
    }

    /** Whether {@code op} is a code of this table. */
    public static boolean known(int op) {
        return op >= FIRST && op < END;
    }

    /** {@code MPI_Allreduce}, or {@code op<N>} for a code this version does not know. */
    public static String name(int op) {
        return known(op) ? NAMES[op - FIRST] : "op" + op;
    }

    /** The code of {@code MPI_<name>}. */
    public static int code(String name) {
        for (int i = 0; i < NAMES.length; i++) {
            if (NAMES[i].equals(name)) {
                return FIRST + i;
            }
        }
        throw new IllegalArgumentException("no MPI op named " + name + " in this version's table of " + NAMES.length);
    }

    /** Point-to-point calls whose bytes are payload this rank sends (the report's {@code bytes_sent}). */
    public static boolean sends(int op) {
        return switch (name(op)) {
            case "MPI_Send", "MPI_Bsend", "MPI_Ssend", "MPI_Rsend", "MPI_Isend", "MPI_Ibsend", "MPI_Issend",
                    "MPI_Irsend", "MPI_Sendrecv", "MPI_Sendrecv_replace" -> true;
            default -> false;
        };
    }

    /**
     * Neighbourhood collectives: collective over their communicator (so they hold a place in its sequence), but a
     * rank waits only for its topology's neighbours, so they are not joined as wait at N×N.
     */
    public static boolean neighbourhood(int op) {
        return op >= NEIGHBOURHOOD_FIRST && op <= NEIGHBOURHOOD_LAST;
    }

    private static final int NEIGHBOURHOOD_FIRST = code("MPI_Neighbor_allgather");
    private static final int NEIGHBOURHOOD_LAST = code("MPI_Ineighbor_alltoallw");

    /** Receives that consume one matching send in MPI's non-overtaking order. */
    public static boolean receives(int op) {
        return op == RECV || op == IRECV;
    }
}
