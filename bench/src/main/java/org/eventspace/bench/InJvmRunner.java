package org.eventspace.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.eventspace.comm.Comm;
import org.eventspace.comm.runtime.CommOptions;
import org.eventspace.comm.transport.jvm.InJvmCluster;

/**
 * Runs a benchmark on a simulated cluster in this JVM: one thread per rank, every host with its own elements
 * and service threads. A rank that fails is reported with its error; the run never waits longer than the
 * collective timeout plus the time the iterations may take.
 */
public final class InJvmRunner {
    private InJvmRunner() {
    }

    public static RunReport run(RunConfig config) {
        int ranks = config.ranks();
        int hops = config.hosts() > 1 ? config.hosts() * config.spec().trees() : 0;
        CommOptions options = CommOptions.defaults(ranks + hops).withTimeout(config.timeout());
        ExecutorService pool = Executors.newFixedThreadPool(ranks, r -> {
            Thread t = new Thread(r, "es-rank");
            t.setDaemon(true);
            return t;
        });
        try (InJvmCluster cluster = InJvmCluster.start(config.pathmap(), options)) {
            List<Future<RankResult>> futures = new ArrayList<>();
            for (int r = 0; r < ranks; r++) {
                Comm comm = cluster.comm(r);
                futures.add(pool.submit(() -> RankBenchmarks.run(comm, config)));
            }
            List<RankResult> results = new ArrayList<>();
            long deadline = System.nanoTime() + config.timeout().toNanos() * 4 + TimeUnit.MINUTES.toNanos(30);
            for (int r = 0; r < ranks; r++) {
                results.add(await(futures.get(r), r, deadline));
            }
            return new RunReport(config, results);
        } finally {
            pool.shutdownNow();
        }
    }

    private static RankResult await(Future<RankResult> future, int rank, long deadline) {
        try {
            return future.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            return RankResult.failed(rank, cause.getMessage());
        } catch (TimeoutException e) {
            future.cancel(true);
            return RankResult.failed(rank, "did not finish before the run's deadline");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return RankResult.failed(rank, "interrupted");
        }
    }
}
