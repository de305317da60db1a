package org.eventspace.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;

import org.eventspace.comm.Comm;

/**
 * Runs a benchmark's ranks as threads of this process and collects what each measured. A rank that throws is
 * reported with its error, one that outlives the run's deadline as late; the others' results are kept. Every
 * rank thread is ended before {@link #run} returns.
 */
final class RankThreads {
    /** The error of a rank that outlived the run's deadline (its thread may still be running). */
    static final String LATE = "did not finish before the run's deadline";

    private RankThreads() {
    }

    /** Whether every rank's thread returned (none is late), so nothing of the run can still call a wrapper. */
    static boolean allReturned(List<RankResult> results) {
        return results.stream().noneMatch(r -> LATE.equals(r.error()));
    }

    static List<RankResult> run(List<Integer> ranks, IntFunction<Comm> comms, RunConfig config) {
        return run(ranks, comms, config, RankBenchmarks.TimedWindow.NONE);
    }

    static List<RankResult> run(List<Integer> ranks, IntFunction<Comm> comms, RunConfig config,
                                RankBenchmarks.TimedWindow window) {
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, ranks.size()), r -> {
            Thread t = new Thread(r, "es-rank");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<RankResult>> futures = new ArrayList<>();
            for (int rank : ranks) {
                Comm comm = comms.apply(rank);
                futures.add(pool.submit(() -> RankBenchmarks.run(comm, config, window)));
            }
            long deadline = System.nanoTime() + config.timeout().toNanos() * 4 + TimeUnit.MINUTES.toNanos(30);
            List<RankResult> results = new ArrayList<>();
            for (int i = 0; i < ranks.size(); i++) {
                results.add(await(futures.get(i), ranks.get(i), deadline));
            }
            return results;
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
            return RankResult.failed(rank, LATE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return RankResult.failed(rank, "interrupted");
        }
    }
}
