package org.eventspace.trace;

/**
 * The communication calls a trace records: one per {@link org.eventspace.comm.Comm} method (the long and double,
 * scalar and array allreduces apart, since a replay must issue the same one). The lower-case name is the one the
 * trace file uses.
 */
public enum Op {
    ALLREDUCE_LONG(true, false, false),
    ALLREDUCE_DOUBLE(true, false, false),
    ALLREDUCE_LONGS(true, false, false),
    ALLREDUCE_DOUBLES(true, false, false),
    BARRIER(true, false, false),
    BROADCAST(true, false, true),
    GATHER(true, false, true),
    ALLGATHER(true, false, false),
    SCATTER(true, false, true),
    ALLTOALL(true, false, false),
    SEND(false, true, false),
    RECV(false, true, false),
    // An MPI program's calls (mpirun --trace), as the interposition library names them (MpiOp): a point-to-point
    // call's peer and a one-sided call's target are relative to the caller, a rooted collective's root is kept; the
    // count is the call's bytes.
    MPI_INIT(false, false, false, true),
    MPI_INIT_THREAD(false, false, false, true),
    MPI_FINALIZE(false, false, false, true),
    MPI_SEND(false, true, false, true),
    MPI_BSEND(false, true, false, true),
    MPI_SSEND(false, true, false, true),
    MPI_RSEND(false, true, false, true),
    MPI_ISEND(false, true, false, true),
    MPI_IBSEND(false, true, false, true),
    MPI_ISSEND(false, true, false, true),
    MPI_IRSEND(false, true, false, true),
    MPI_RECV(false, true, false, true),
    MPI_IRECV(false, true, false, true),
    MPI_SENDRECV(false, true, false, true),
    MPI_SENDRECV_REPLACE(false, true, false, true),
    MPI_WAIT(false, false, false, true),
    MPI_WAITALL(false, false, false, true),
    MPI_WAITANY(false, false, false, true),
    MPI_WAITSOME(false, false, false, true),
    MPI_TEST(false, false, false, true),
    MPI_TESTALL(false, false, false, true),
    MPI_TESTANY(false, false, false, true),
    MPI_TESTSOME(false, false, false, true),
    MPI_PROBE(false, true, false, true),
    MPI_IPROBE(false, true, false, true),
    MPI_BARRIER(true, false, false, true),
    MPI_BCAST(true, false, true, true),
    MPI_REDUCE(true, false, true, true),
    MPI_ALLREDUCE(true, false, false, true),
    MPI_GATHER(true, false, true, true),
    MPI_GATHERV(true, false, true, true),
    MPI_SCATTER(true, false, true, true),
    MPI_SCATTERV(true, false, true, true),
    MPI_ALLGATHER(true, false, false, true),
    MPI_ALLGATHERV(true, false, false, true),
    MPI_ALLTOALL(true, false, false, true),
    MPI_ALLTOALLV(true, false, false, true),
    MPI_ALLTOALLW(true, false, false, true),
    MPI_REDUCE_SCATTER(true, false, false, true),
    MPI_REDUCE_SCATTER_BLOCK(true, false, false, true),
    MPI_SCAN(true, false, false, true),
    MPI_EXSCAN(true, false, false, true),
    MPI_IBARRIER(true, false, false, true),
    MPI_IBCAST(true, false, true, true),
    MPI_IREDUCE(true, false, true, true),
    MPI_IALLREDUCE(true, false, false, true),
    MPI_IGATHER(true, false, true, true),
    MPI_IGATHERV(true, false, true, true),
    MPI_ISCATTER(true, false, true, true),
    MPI_ISCATTERV(true, false, true, true),
    MPI_IALLGATHER(true, false, false, true),
    MPI_IALLGATHERV(true, false, false, true),
    MPI_IALLTOALL(true, false, false, true),
    MPI_IALLTOALLV(true, false, false, true),
    MPI_IALLTOALLW(true, false, false, true),
    MPI_IREDUCE_SCATTER(true, false, false, true),
    MPI_IREDUCE_SCATTER_BLOCK(true, false, false, true),
    MPI_ISCAN(true, false, false, true),
    MPI_IEXSCAN(true, false, false, true),
    MPI_COMM_DUP(true, false, false, true),
    MPI_COMM_SPLIT(true, false, false, true),
    MPI_COMM_SPLIT_TYPE(true, false, false, true),
    MPI_COMM_CREATE(true, false, false, true),
    MPI_COMM_CREATE_GROUP(true, false, false, true),
    MPI_CART_CREATE(true, false, false, true),
    MPI_CART_SUB(true, false, false, true),
    MPI_COMM_FREE(false, false, false, true),
    MPI_COMM_IDUP(true, false, false, true),
    MPI_COMM_DUP_WITH_INFO(true, false, false, true),
    MPI_NEIGHBOR_ALLGATHER(true, false, false, true),
    MPI_NEIGHBOR_ALLGATHERV(true, false, false, true),
    MPI_NEIGHBOR_ALLTOALL(true, false, false, true),
    MPI_NEIGHBOR_ALLTOALLV(true, false, false, true),
    MPI_NEIGHBOR_ALLTOALLW(true, false, false, true),
    MPI_INEIGHBOR_ALLGATHER(true, false, false, true),
    MPI_INEIGHBOR_ALLGATHERV(true, false, false, true),
    MPI_INEIGHBOR_ALLTOALL(true, false, false, true),
    MPI_INEIGHBOR_ALLTOALLV(true, false, false, true),
    MPI_INEIGHBOR_ALLTOALLW(true, false, false, true),
    MPI_PUT(false, true, false, true),
    MPI_GET(false, true, false, true),
    MPI_ACCUMULATE(false, true, false, true),
    MPI_WIN_FENCE(true, false, false, true),
    MPI_WIN_LOCK(false, false, false, true),
    MPI_WIN_UNLOCK(false, false, false, true),
    MPI_WIN_CREATE(true, false, false, true),
    MPI_WIN_FREE(true, false, false, true),
    /** An MPI call this version has no name for; its code ({@code MpiOp}) is kept as the call's count. */
    MPI_CALL(false, false, false, true);

    private static final Op[] VALUES = values();

    private final boolean collective;
    private final boolean pointToPoint;
    private final boolean rooted;
    private final String fileName;
    private final boolean mpi;

    Op(boolean collective, boolean pointToPoint, boolean rooted) {
        this(collective, pointToPoint, rooted, false);
    }

    Op(boolean collective, boolean pointToPoint, boolean rooted, boolean mpi) {
        this.collective = collective;
        this.pointToPoint = pointToPoint;
        this.rooted = rooted;
        this.mpi = mpi;
        this.fileName = name().toLowerCase(java.util.Locale.ROOT);
    }

    /** An MPI program's call (recorded through the interposition library), not one of our {@code Comm}'s. */
    public boolean mpi() {
        return mpi;
    }

    /** The op of an MPI function's name ({@code MPI_Allreduce}), or {@link #MPI_CALL} for one this version lacks. */
    public static Op ofMpiName(String name) {
        Op op = ofFileName(name.toLowerCase(java.util.Locale.ROOT));
        return op != null && op.mpi ? op : MPI_CALL;
    }

    public boolean collective() {
        return collective;
    }

    /** Has a peer (recorded relative to the caller's rank). */
    public boolean pointToPoint() {
        return pointToPoint;
    }

    /** Has a root rank (recorded as is). */
    public boolean rooted() {
        return rooted;
    }

    /** Carries a reduce operator. */
    public boolean reduces() {
        return ordinal() <= ALLREDUCE_DOUBLES.ordinal();
    }

    public String fileName() {
        return fileName;
    }

    /** The op of a trace file's name, or null. */
    public static Op ofFileName(String name) {
        for (Op op : VALUES) {
            if (op.fileName.equals(name)) {
                return op;
            }
        }
        return null;
    }
}
