package org.eventspace.comm.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import org.eventspace.comm.Comm;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.testing.RankThreads;
import org.eventspace.comm.testing.TestClusters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The GC-free check of the hot path: once warm, an allreduce (gred join, core store, in-JVM hops and their
 * service threads) and a send/recv allocate nothing. Measured per thread with the JVM's allocation counters,
 * so no GC has to happen for a leak to show; a single allocation per call would show as at least 16 bytes x
 * the calls.
 */
@Timeout(120)
class HotPathAllocationTest {
    private static final int WARM = 20_000;
    private static final int CALLS = 10_000;
    /** Slack for one-off JDK internals (a park's first blocker record); a per-call leak is >= 16 x CALLS. */
    private static final long SLACK = 4_096;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void allreduceOnOneHostAllocatesNothing() throws Exception {
        assertThat(ranksAllocate(2, 1, comm -> comm.allreduce(comm.rank() + 1L, ReduceOp.SUM))).allMatch(b -> b < SLACK);
    }

    @Test
    void allreduceAcrossSimulatedHostsAllocatesNothingInRanksOrServiceThreads() throws Exception {
        List<Long> bytes = ranksAllocate(4, 2, comm -> comm.allreduce(comm.rank() + 1L, ReduceOp.SUM));
        // Each rank reports itself and every hop's service agent thread (its AgentRunner's duty cycle included).
        assertThat(bytes).as("the service agents' threads were measured too").hasSizeGreaterThan(4);
        assertThat(bytes).allMatch(b -> b < SLACK);
    }

    /** The butterfly over 3 hosts (one extra host): the exchanges and their in-JVM links allocate nothing either. */
    @Test
    void butterflyAllreduceAcrossSimulatedHostsAllocatesNothing() throws Exception {
        List<Long> bytes = ranksAllocate(TreeShape.butterfly(Integer.MAX_VALUE), 3, 3, WARM, CALLS, null,
                comm -> comm.allreduce(comm.rank() + 1L, ReduceOp.SUM));
        assertThat(bytes).hasSize(3).allMatch(b -> b < SLACK);
    }

    /** More threads than cores: waiters yield and park, and the park/wake-up paths must not allocate either. */
    @Test
    void oversubscribedAllreduceThatParksAllocatesNothing() throws Exception {
        List<Long> bytes = ranksAllocate(8, 2, comm -> comm.allreduce(comm.rank() + 1L, ReduceOp.SUM));
        assertThat(bytes).allMatch(b -> b < SLACK);
    }

    /** Every exchange lets the other rank fall asleep first, so receivers park in the element every time. */
    @Test
    void sendRecvWithParkedReceiversAllocatesNothing() throws Exception {
        List<Long> bytes = ranksAllocate(2, 1, 2_000, 2_000, new Consumer<Comm>() {
            final long[] buffer = new long[1];

            @Override
            public void accept(Comm comm) {
                if (comm.rank() == 0) {
                    java.util.concurrent.locks.LockSupport.parkNanos(20_000);
                    comm.send(1, buffer, 1);
                    comm.recv(1, buffer);
                } else {
                    comm.recv(0, buffer);
                    java.util.concurrent.locks.LockSupport.parkNanos(20_000);
                    comm.send(0, buffer, 1);
                }
            }
        });
        assertThat(bytes).allMatch(b -> b < SLACK);
    }

    @Test
    void arrayAllreduceAndBroadcastAllocateNothing() throws Exception {
        List<Long> bytes = ranksAllocate(2, 2, new Consumer<Comm>() {
            final long[] values = new long[16];

            @Override
            public void accept(Comm comm) {
                comm.allreduce(values, values.length, ReduceOp.MAX);
                comm.broadcast(values, 4, 0);
            }
        });
        assertThat(bytes).allMatch(b -> b < SLACK);
    }

    @Test
    void pingPongAllocatesNothing() throws Exception {
        List<Long> bytes = ranksAllocate(2, 2, new Consumer<Comm>() {
            final long[] buffer = new long[4];

            @Override
            public void accept(Comm comm) {
                if (comm.rank() == 0) {
                    comm.send(1, buffer, 4);
                    comm.recv(1, buffer);
                } else {
                    comm.recv(0, buffer);
                    comm.send(0, buffer, 4);
                }
            }
        });
        assertThat(bytes).allMatch(b -> b < SLACK);
    }

    /** With the transports counting every message (ibprof's counters, §3.2), in a marked phase: still nothing. */
    @Test
    void countedTrafficAcrossHostsAllocatesNothing() throws Exception {
        List<Long> bytes = ranksAllocate(2, 2, WARM, CALLS, org.eventspace.comm.traffic.TrafficScope.parse("phases:solve"),
                new Consumer<Comm>() {
                    final long[] buffer = new long[4];
                    boolean marked;

                    @Override
                    public void accept(Comm comm) {
                        if (!marked) {
                            comm.phase("solve");
                            marked = true;
                        }
                        comm.allreduce(comm.rank() + 1L, ReduceOp.SUM);
                        if (comm.rank() == 0) {
                            comm.send(1, buffer, 4);
                            comm.recv(1, buffer);
                        } else {
                            comm.recv(0, buffer);
                            comm.send(0, buffer, 4);
                        }
                    }
                });
        assertThat(bytes).allMatch(b -> b < SLACK);
    }

    /**
     * Runs {@code call} WARM times then CALLS times on every rank; returns the bytes each rank thread allocated
     * during the CALLS, followed by what every hop service thread allocated over the same span.
     */
    private static List<Long> ranksAllocate(int ranks, int hosts, Consumer<Comm> call) {
        return ranksAllocate(ranks, hosts, WARM, CALLS, call);
    }

    private static List<Long> ranksAllocate(int ranks, int hosts, int warm, int calls, Consumer<Comm> call) {
        return ranksAllocate(ranks, hosts, warm, calls, null, call);
    }

    private static List<Long> ranksAllocate(int ranks, int hosts, int warm, int calls,
                                            org.eventspace.comm.traffic.TrafficScope traffic, Consumer<Comm> call) {
        return ranksAllocate(TreeShape.hier(2), ranks, hosts, warm, calls, traffic, call);
    }

    private static List<Long> ranksAllocate(TreeShape shape, int ranks, int hosts, int warm, int calls,
                                            org.eventspace.comm.traffic.TrafficScope traffic, Consumer<Comm> call) {
        // Counting two busy threads per host (not the pathmap's count) keeps two ranks on one host in the yield
        // policy, so that the parked-receiver case really parks.
        Pathmap pathmap = PathmapBuilder.build(TestClusters.spec(hosts, ranks, 2, shape));
        try (InJvmCluster cluster = InJvmCluster.start(pathmap, CommOptions.defaults(ranks + 2 * hosts).withTraffic(traffic))) {
            List<long[]> perRank = RankThreads.values(cluster, Duration.ofSeconds(100), comm -> {
                for (int i = 0; i < warm; i++) {
                    call.accept(comm);
                }
                comm.barrier();
                long[] service = serviceThreadBytes();
                long before = THREADS.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < calls; i++) {
                    call.accept(comm);
                }
                long mine = THREADS.getCurrentThreadAllocatedBytes() - before;
                comm.barrier();
                long[] serviceAfter = serviceThreadBytes();
                long[] out = new long[1 + service.length];
                out[0] = mine;
                for (int i = 0; i < service.length && i < serviceAfter.length; i++) {
                    out[1 + i] = serviceAfter[i] - service[i];
                }
                return out;
            });
            List<Long> bytes = new ArrayList<>();
            for (long[] rank : perRank) {
                for (long b : rank) {
                    bytes.add(b);
                }
            }
            return bytes;
        }
    }

    /** Allocated bytes of every live hop service thread, in a stable order (by thread id). */
    private static long[] serviceThreadBytes() {
        List<Thread> service = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("es-serve-")) {
                service.add(t);
            }
        }
        service.sort((a, b) -> Long.compare(a.getId(), b.getId()));
        long[] bytes = new long[service.size()];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = THREADS.getThreadAllocatedBytes(service.get(i).getId());
        }
        return bytes;
    }
}
