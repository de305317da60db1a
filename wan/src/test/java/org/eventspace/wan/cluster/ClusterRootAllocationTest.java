package org.eventspace.wan.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;

import org.eventspace.comm.path.Condition;
import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.path.SpinYieldPark;
import org.eventspace.comm.path.ValueType;
import org.eventspace.comm.path.WaitPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The GC-free check of a cluster root's call: once warm, a conditional call decided on the local value, one decided by
 * a cache read, and a plain call combining every cluster's partial (publish, cache reads, combine) allocate nothing in
 * the calling thread, and neither does a remote root's fetch of the published tuple. Measured with the JVM's
 * per-thread allocation counter, as {@code LongcutAllocationTest} does; one allocation per call would show as at least
 * 16 bytes × the calls.
 */
@Timeout(60)
class ClusterRootAllocationTest {
    private static final int WARM = 20_000;
    private static final int CALLS = 20_000;
    private static final long SLACK = 4_096;
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void aCallAllocatesNothingOnceWarm() {
        ClusterState state = new ClusterState(0, 3, 4);
        ClusterRoot root = new ClusterRoot("root", m -> { }, state, Condition.GREATER, 10.0,
                new SpinYieldPark(new WaitPolicy(100, 1_000, 1_000_000_000L)), 4, () -> { });
        Message call = new Message(4);
        Message tuple = new Message(4);
        Message fetched = new Message(4);
        long[] sums = new long[1];
        Runnable round = new Runnable() {
            long s;

            @Override
            public void run() {
                // Decided on the local value.
                root.call(call.op(ReduceOp.SUM).type(ValueType.DOUBLE).length(1).word(0, Double.doubleToRawLongBits(11.0))
                        .until(Condition.GREATER.code()));
                s++;
                // Decided by the first cache read.
                state.caches[1].put(tuple.length(3).word(0, s).word(1, -1).word(2, Double.doubleToRawLongBits(20.0)));
                root.call(call.op(ReduceOp.SUM).type(ValueType.DOUBLE).length(1).word(0, Double.doubleToRawLongBits(1.0))
                        .until(Condition.GREATER.code()));
                s++;
                // A plain call: every cluster's partial, combined in cluster order.
                state.caches[1].put(tuple.length(3).word(0, s).word(1, -1).word(2, 2));
                state.caches[2].put(tuple.length(3).word(0, s).word(1, -1).word(2, 3));
                root.call(call.op(ReduceOp.SUM).type(ValueType.LONG).length(1).word(0, 1).until((byte) 0));
                sums[0] += call.word(0);
                try {
                    state.fetch(s, fetched);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                s++;
            }
        };
        for (int i = 0; i < WARM; i++) {
            round.run();
        }
        long id = Thread.currentThread().getId();
        long before = THREADS.getThreadAllocatedBytes(id);
        for (int i = 0; i < CALLS; i++) {
            round.run();
        }
        long allocated = THREADS.getThreadAllocatedBytes(id) - before;
        assertThat(sums[0]).isEqualTo(6L * (WARM + CALLS));
        assertThat(fetched.word(0)).isEqualTo(3L * (WARM + CALLS) - 1);
        assertThat(root.decided).containsExactly(WARM + CALLS, WARM + CALLS, 0, 0);
        assertThat(allocated).as("bytes allocated by %d rounds", CALLS).isBetween(0L, SLACK);
    }
}
