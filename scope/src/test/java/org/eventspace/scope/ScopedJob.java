package org.eventspace.scope;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.eventspace.comm.Comm;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.Topology;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.runtime.CommOptions;
import org.eventspace.comm.runtime.InJvmCluster;
import org.eventspace.comm.runtime.WrapperKind;
import org.eventspace.comm.runtime.WrapperKinds;
import org.eventspace.events.CollectorKind;
import org.eventspace.events.CollectorPlacement;
import org.eventspace.events.EventSpace;

/**
 * A simulated job for scope tests: ranks block-mapped on one cluster, one {@code hier:2} tree with collectors
 * on every edge, an event scope laid over it, and per host an event space (buffers big enough to lose nothing in
 * these tests) and a push buffer. Rank threads are daemons and every wait is bounded; {@link #close} ends the
 * cluster's service threads and frees the buffers.
 */
final class ScopedJob implements AutoCloseable {
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    final Pathmap pathmap;
    final EventSpace[] spaces;
    final PushBuffer[] pushes;
    final InJvmCluster cluster;

    private ScopedJob(Pathmap pathmap, EventSpace[] spaces, PushBuffer[] pushes, InJvmCluster cluster) {
        this.pathmap = pathmap;
        this.spaces = spaces;
        this.pushes = pushes;
        this.cluster = cluster;
    }

    /** The job's pathmap: collectors placed first, then the scope. */
    static Pathmap pathmap(int hosts, int ranks, ScopeSpec scope) {
        Pathmap job = PathmapBuilder.build(PathmapSpec.of(Topology.simulated(1, hosts, 2), ranks, 1, TreeShape.hier(2)));
        return ScopeBuilder.add(CollectorPlacement.place(job), scope);
    }

    static ScopedJob start(Pathmap pathmap, PushBuffer.Policy policy, int pushCapacity) {
        return start(pathmap, policy, pushCapacity, 4096, leaf -> leaf);
    }

    static ScopedJob start(Pathmap pathmap, PushBuffer.Policy policy, int pushCapacity,
                           Function<ScopeLeafKind, WrapperKind> leafKind) {
        return start(pathmap, policy, pushCapacity, 4096, leafKind);
    }

    /**
     * @param traceCapacity tuples per trace buffer.
     * @param leafKind      the leaf kind to register, given the real one (a test may wrap it to make a leaf fail).
     */
    static ScopedJob start(Pathmap pathmap, PushBuffer.Policy policy, int pushCapacity, int traceCapacity,
                           Function<ScopeLeafKind, WrapperKind> leafKind) {
        int hosts = pathmap.spec().topology().size();
        EventSpace[] spaces = new EventSpace[hosts];
        PushBuffer[] pushes = new PushBuffer[hosts];
        for (int h = 0; h < hosts; h++) {
            spaces[h] = EventSpace.direct("h" + h, 32L << 20, traceCapacity);
            pushes[h] = new PushBuffer("h" + h, pushCapacity, policy, Duration.ofSeconds(2));
        }
        WrapperKinds kinds = WrapperKinds.builtIn()
                .with(new CollectorKind(host -> spaces[host.host()]))
                .with(new ScopeGatherKind())
                .with(leafKind.apply(new ScopeLeafKind(host -> new ScopeHost(spaces[host.host()], pushes[host.host()]))));
        CommOptions options = CommOptions.defaults(pathmap.busyThreads()).withTimeout(TIMEOUT).withKinds(kinds);
        InJvmCluster cluster = InJvmCluster.start(pathmap, options);
        return new ScopedJob(pathmap, spaces, pushes, cluster);
    }

    /** Starts every rank on {@code iterations} sum-allreduces of its rank + 1; the futures give each rank's last result. */
    List<Future<Long>> startRanks(ExecutorService pool, int iterations) {
        List<Future<Long>> futures = new ArrayList<>();
        for (int r = 0; r < pathmap.spec().ranks(); r++) {
            Comm comm = cluster.comm(r);
            futures.add(pool.submit(() -> {
                long result = 0;
                for (int i = 0; i < iterations; i++) {
                    result = comm.allreduce(comm.rank() + 1L, ReduceOp.SUM);
                }
                return result;
            }));
        }
        return futures;
    }

    static ExecutorService daemons(String name, int threads) {
        return Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    static void stop(ExecutorService pool) throws InterruptedException {
        pool.shutdownNow();
        if (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
            throw new AssertionError("threads of " + pool + " did not end within 10 s");
        }
    }

    long tuplesWritten() {
        long total = 0;
        for (EventSpace s : spaces) {
            total += s.tuplesWritten();
        }
        return total;
    }

    /** Names of live threads that belong to scope helpers. */
    static List<String> scopeHelperThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.startsWith("es-scope-")).toList();
    }

    /** Waits up to 5 s for every scope helper thread to end; returns those still alive. */
    static List<String> awaitNoScopeHelpers() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        List<String> alive = scopeHelperThreads();
        while (!alive.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
            alive = scopeHelperThreads();
        }
        return alive;
    }

    @Override
    public void close() {
        cluster.close();
        for (EventSpace s : spaces) {
            s.close();
        }
    }
}
