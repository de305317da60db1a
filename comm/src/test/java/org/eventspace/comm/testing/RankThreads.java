package org.eventspace.comm.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.eventspace.comm.Comm;
import org.eventspace.comm.runtime.InJvmCluster;

/**
 * Runs every rank of an {@link InJvmCluster} in a thread of its own, the way an application of many ranks in
 * one process would, and collects what each rank returned or threw.
 *
 * <p>Every wait is bounded: if a rank has not finished when the bound passes, the run fails with the stacks
 * of every rank thread and every hop's service thread, so a hang shows where the threads were, not just that
 * they were. Rank threads are daemons, so a hung rank cannot keep the test JVM alive.
 */
public final class RankThreads {
    /** What a rank runs; may throw, which is recorded as that rank's outcome. */
    @FunctionalInterface
    public interface RankBody<T> {
        T run(Comm comm) throws Exception;
    }

    /** What one rank returned ({@code error == null}) or threw, and how long after its start it ended. */
    public record Outcome<T>(int rank, T value, Throwable error, long elapsedNanos) {
        public boolean failed() {
            return error != null;
        }
    }

    private RankThreads() {
    }

    /** Runs {@code body} on every rank and requires that every rank returned; the values in rank order. */
    public static <T> List<T> values(InJvmCluster cluster, Duration bound, RankBody<T> body) {
        List<T> values = new ArrayList<>();
        for (Outcome<T> o : run(cluster, bound, body)) {
            if (o.failed()) {
                throw new AssertionError("rank " + o.rank() + " failed: " + o.error(), o.error());
            }
            values.add(o.value());
        }
        return values;
    }

    /** Runs {@code body} on every rank; fails the test if any rank is still running after {@code bound}. */
    public static <T> List<Outcome<T>> run(InJvmCluster cluster, Duration bound, RankBody<T> body) {
        int ranks = cluster.pathmap().spec().ranks();
        List<FutureTask<Outcome<T>>> tasks = new ArrayList<>(ranks);
        List<Thread> threads = new ArrayList<>(ranks);
        for (int r = 0; r < ranks; r++) {
            final int rank = r;
            Comm comm = cluster.comm(rank);
            FutureTask<Outcome<T>> task = new FutureTask<>(() -> {
                long start = System.nanoTime();
                try {
                    return new Outcome<>(rank, body.run(comm), null, System.nanoTime() - start);
                } catch (Throwable t) {
                    return new Outcome<>(rank, null, t, System.nanoTime() - start);
                }
            });
            Thread thread = new Thread(task, "rank-" + rank);
            thread.setDaemon(true);
            tasks.add(task);
            threads.add(thread);
        }
        threads.forEach(Thread::start);
        long deadline = System.nanoTime() + bound.toNanos();
        List<Outcome<T>> outcomes = new ArrayList<>(ranks);
        for (FutureTask<Outcome<T>> task : tasks) {
            try {
                outcomes.add(task.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            } catch (TimeoutException e) {
                throw new AssertionError("rank " + outcomes.size() + " of " + ranks + " still running after " + bound
                        + "; threads:\n" + dumpThreads());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for ranks", e);
            } catch (ExecutionException e) {
                throw new AssertionError("rank body wrapper threw", e.getCause());
            }
        }
        for (Thread thread : threads) {
            try {
                thread.join(TimeUnit.NANOSECONDS.toMillis(Math.max(1_000_000, deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return outcomes;
    }

    /** Stacks of rank threads and hop service threads, for hang reports. */
    public static String dumpThreads() {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            String name = e.getKey().getName();
            if (!name.startsWith("rank-") && !name.startsWith("es-")) {
                continue;
            }
            sb.append('"').append(name).append("\" ").append(e.getKey().getState()).append('\n');
            StackTraceElement[] stack = e.getValue();
            for (int i = 0; i < Math.min(stack.length, 12); i++) {
                sb.append("    at ").append(stack[i]).append('\n');
            }
        }
        return sb.toString();
    }
}
