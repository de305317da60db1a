package org.eventspace.comm;

import org.eventspace.comm.path.Condition;
import org.eventspace.comm.path.ReduceOp;

/**
 * What an application rank calls: MPI-like collectives and point-to-point messages over PATHS trees.
 *
 * <p>Every collective runs as one call down the rank's path in one of the job's identical trees; calls rotate
 * over the trees (call i uses tree i mod trees), as gsum does, so consecutive collectives do not meet in the
 * same greds. All ranks must therefore call the same collectives in the same order, as in MPI. Broadcast,
 * gather, scatter and all-to-all place each rank's words in a slot of a larger payload and join with
 * {@link ReduceOp#SLOT}: the PATHS way of building every collective on the allreduce tree.
 *
 * <p>One {@code Comm} per rank; not thread-safe (a rank is one thread). Several ranks may share a process.
 * Every call fails with {@link org.eventspace.comm.path.CommException} instead of hanging when a peer dies or
 * does not arrive within the job's timeout.
 */
public interface Comm {
    int rank();

    int size();

    long allreduce(long value, ReduceOp op);

    double allreduce(double value, ReduceOp op);

    /**
     * A conditional allreduce (dissertation appendix 7.3): whether {@code allreduce(value, op) <condition> constant},
     * for a value used only in that test (a convergence check). On trees a multi-cluster layout made conditional
     * ({@code run --allreduce conditional}) a cluster can often decide it from its own ranks' values and the newest
     * partial results prefetched from the other clusters, without waiting for the WAN; on every other tree it is the
     * plain allreduce followed by the test. The answer is the same either way.
     *
     * <p>Restrictions (§IV): the result is this boolean, not the value (a) ; it is not a barrier, clusters may run
     * ahead of each other (b); the partial results must move one way only (c): SUM of values ≥ 0 or MAX for
     * {@code GREATER[_EQUAL]}, SUM of values ≤ 0 or MIN for {@code LESS[_EQUAL]}. A conditional tree is configured with
     * its condition and constant, as PATHS set them as properties of the tree's nodes; a call with others is refused.
     *
     * @throws IllegalArgumentException if {@code op}, {@code value}, {@code condition} or {@code constant} break those
     *                                  restrictions, naming what was expected.
     */
    default boolean allreduceUntil(double value, ReduceOp op, Condition condition, double constant) {
        condition.checkOp(op);
        condition.checkContribution(op, value);
        return condition.holds(allreduce(value, op), constant);
    }

    /** Reduces {@code values[0..count)} across ranks in place. */
    void allreduce(long[] values, int count, ReduceOp op);

    /** Reduces {@code values[0..count)} across ranks in place. */
    void allreduce(double[] values, int count, ReduceOp op);

    void barrier();

    /** Copies {@code data[0..count)} of rank {@code root} into every rank's {@code data}. */
    void broadcast(long[] data, int count, int root);

    /** Every rank's {@code send[0..count)} lands in {@code recv[rank*count ..)} at {@code root}. */
    void gather(long[] send, int count, long[] recv, int root);

    /** As {@link #gather} with every rank receiving. */
    void allgather(long[] send, int count, long[] recv);

    /** Rank r receives {@code send[r*count .. (r+1)*count)} of rank {@code root}. */
    void scatter(long[] send, int count, long[] recv, int root);

    /** Rank r's {@code send[d*count ..)} lands in rank d's {@code recv[r*count ..)}. */
    void alltoall(long[] send, int count, long[] recv);

    /** Writes {@code data[0..count)} into rank {@code dest}'s element for messages from this rank. */
    void send(int dest, long[] data, int count);

    /** Blocks for the next message from {@code source}; returns its word count. */
    int recv(int source, long[] into);

    /**
     * Marks the start of application phase {@code name} (1 to 64 of A-Z a-z 0-9 _ . : -) for this rank: the traffic
     * counters count its later messages under that phase, and a traffic scope of phases counts only the phases it names
     * (ibprof paper §3.2). Every rank marks the same phases in the same order; at most 7 distinct phases per job. A
     * {@code Comm} that counts no traffic only checks the name.
     */
    default void phase(String name) {
        org.eventspace.comm.traffic.TrafficScope.checkPhaseName(name);
    }
}
