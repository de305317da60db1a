package org.eventspace.wan.cluster;

import org.eventspace.comm.path.Condition;
import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.path.SpinYieldPark;
import org.eventspace.comm.path.ValueType;
import org.eventspace.comm.path.WaitPolicy;

/**
 * A cluster root of cluster 0 of three with no tree below it and caches filled by the caller: what the JMH benchmark
 * ({@code bench.jmh.ClusterRootBenchmark}) measures of a call at the root, apart from the waiting for other clusters.
 * Each method is one call, with its sequence number's tuples put into the caches first as the prefetch threads would.
 * Not thread-safe: one thread, as a cluster root's calls are.
 */
public final class ClusterRootProbe {
    private static final double EPSILON = 10.0;
    private final ClusterState state = new ClusterState(0, 3, 4);
    private final ClusterRoot root = new ClusterRoot("probe", m -> { }, state, Condition.GREATER, EPSILON,
            new SpinYieldPark(new WaitPolicy(100, 1_000, 60_000_000_000L)), 4, () -> { });
    private final Message call = new Message(4);
    private final Message tuple = new Message(4);
    private long seq;

    /** A conditional call the cluster's own value decides (the common case of §VI-C). */
    public long decidedLocally() {
        root.call(call.op(ReduceOp.SUM).type(ValueType.DOUBLE).length(1).word(0, Double.doubleToRawLongBits(11.0))
                .until(Condition.GREATER.code()));
        seq++;
        return call.word(0);
    }

    /** A conditional call decided by the first cached remote value. */
    public long decidedByCache() {
        state.caches[1].put(tuple.length(3).word(0, seq).word(1, -1).word(2, Double.doubleToRawLongBits(20.0)));
        root.call(call.op(ReduceOp.SUM).type(ValueType.DOUBLE).length(1).word(0, Double.doubleToRawLongBits(1.0))
                .until(Condition.GREATER.code()));
        seq++;
        return call.word(0);
    }

    /** A plain 8-byte allreduce: every cluster's partial result combined in cluster order (MagPIe). */
    public long combined() {
        state.caches[1].put(tuple.length(3).word(0, seq).word(1, -1).word(2, 2));
        state.caches[2].put(tuple.length(3).word(0, seq).word(1, -1).word(2, 3));
        root.call(call.op(ReduceOp.SUM).type(ValueType.LONG).length(1).word(0, 1).until((byte) 0));
        seq++;
        return call.word(0);
    }
}
