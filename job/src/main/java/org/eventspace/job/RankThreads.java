package org.eventspace.job;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs a job's local ranks as threads of this process, one thread each, and collects what each returned. A rank that
 * throws is reported with its error, one that outlives the deadline as {@linkplain Outcome#late() late}; the others'
 * results are kept. Every rank thread is asked to end (interrupted) before {@link #run} returns, and they are daemons,
 * so a late rank never keeps the process alive. Ranks start together, once every thread exists. May be called from any
 * thread.
 */
public final class RankThreads {
    /** The error of a rank that outlived the deadline (its thread may still be running). */
    public static final String LATE = "did not finish before the job's deadline";

    private RankThreads() {
    }

    /** What one rank's thread does: runs the rank's part of the program and returns what it measured or found. */
    @FunctionalInterface
    public interface RankTask<T> {
        T run(int rank) throws Exception;
    }

    /**
     * What became of one rank.
     *
     * @param rank  the rank.
     * @param value what its task returned, or null if it failed.
     * @param error why it failed (its exception's message, or {@link #LATE}), or null.
     */
    public record Outcome<T>(int rank, T value, String error) {
        public boolean ok() {
            return error == null;
        }

        /** Whether the rank outlived the deadline: its thread may still call into the communication system. */
        public boolean late() {
            return LATE.equals(error);
        }
    }

    /** Whether every rank's thread returned (none is late), so nothing of the job can still call a wrapper. */
    public static boolean allReturned(List<? extends Outcome<?>> outcomes) {
        return outcomes.stream().noneMatch(Outcome::late);
    }

    /**
     * Runs {@code task} for every rank of {@code ranks}, each in a thread of its own, and waits at most {@code limit}
     * for all of them.
     *
     * @return one outcome per rank, in the order of {@code ranks}.
     */
    public static <T> List<Outcome<T>> run(List<Integer> ranks, RankTask<T> task, Duration limit) {
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, ranks.size()), r -> {
            Thread t = new Thread(r, "es-rank");
            t.setDaemon(true);
            return t;
        });
        // Every rank waits, parked, until the last thread exists. Starting a thread takes 0.4 to 1.5 ms here (more the
        // more threads the process has): 20 000 ranks took 35 s to start, and the first ranks, already spinning in their
        // first collective, both slowed the start down and timed out (30 s) before the last rank called it.
        CountDownLatch allStarted = new CountDownLatch(1);
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (int rank : ranks) {
                futures.add(pool.submit(() -> {
                    allStarted.await();
                    return task.run(rank);
                }));
            }
            allStarted.countDown();
            long deadline = System.nanoTime() + limit.toNanos();
            List<Outcome<T>> outcomes = new ArrayList<>();
            for (int i = 0; i < ranks.size(); i++) {
                outcomes.add(await(futures.get(i), ranks.get(i), deadline));
            }
            return outcomes;
        } finally {
            pool.shutdownNow();
        }
    }

    private static <T> Outcome<T> await(Future<T> future, int rank, long deadline) {
        try {
            return new Outcome<>(rank, future.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS), null);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            return new Outcome<>(rank, null, cause.getMessage() != null ? cause.getMessage() : cause.toString());
        } catch (TimeoutException e) {
            future.cancel(true);
            return new Outcome<>(rank, null, LATE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Outcome<>(rank, null, "interrupted");
        }
    }
}
