package org.eventspace.ui;

import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

import org.eventspace.base.json.Json;
import org.eventspace.comm.Comm;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.job.JobConfig;
import org.eventspace.job.JobTransport;
import org.eventspace.job.MonitoredJob;
import org.eventspace.job.RankThreads;
import org.eventspace.job.ScopeSettings;
import org.eventspace.monitor.MonitorKind;
import org.eventspace.monitor.MonitorSnapshot;
import org.eventspace.monitor.Monitors;
import org.eventspace.net.Fabric;
import org.eventspace.net.FatTree;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The dashboard's demonstration: compute-gsum (each iteration sorts an array, then allreduces a sum) on a simulated
 * cluster in this JVM, with the load-balance and statistics monitors and an event scope running ToM's histogram filter,
 * while one rank is made slow now and then (slow for {@value #SLOW_ON_S} s, then normal for {@value #SLOW_OFF_S} s) so
 * the dashboard has something to find. The ranks run until {@link #stop()}: rank 0 adds a stop mark to the sum, so every
 * rank leaves after the same iteration. Start with {@link #start}; {@link #stop()} and {@link #close()} from any thread.
 */
public final class DemoJob implements AutoCloseable {
    /** An episode: the slow rank is slow this long ... */
    public static final int SLOW_ON_S = 3;
    /** ... then normal this long. */
    public static final int SLOW_OFF_S = 1;
    /** The mark rank 0 adds to the sum when asked to stop: far above any sum of ranks. */
    private static final long STOP_MARK = 1L << 40;
    private static final ObjectMapper JSON = Json.mapper();

    /**
     * What the demo runs.
     *
     * @param ranks       ranks (threads).
     * @param hosts       simulated hosts; ranks block-mapped over them.
     * @param tree        tree shape, {@code hier:2} by default.
     * @param slowRank    the rank made slow.
     * @param slowMicros  how much slower, µs per iteration, during a slow episode.
     * @param sortLength  ints each iteration sorts (the compute part).
     * @param bins        bins of ToM's histogram filter.
     * @param scopeMs     the event scope's pull interval.
     */
    public record Settings(int ranks, int hosts, String tree, int slowRank, long slowMicros, int sortLength, int bins,
                           int scopeMs) {
        public static final Settings DEFAULT = new Settings(8, 4, "hier:2", 5, 1000, 2000, 16, 200);

        public Settings {
            if (slowRank < 0 || slowRank >= ranks) {
                throw new IllegalArgumentException("the slow rank must be a rank 0.." + (ranks - 1) + ", slowRank=" + slowRank);
            }
            if (slowMicros < 0 || slowMicros > 1_000_000) {
                throw new IllegalArgumentException("the slow rank's delay must be 0..1000000 µs, slowMicros=" + slowMicros);
            }
            if (sortLength < 1 || sortLength > 10_000_000) {
                throw new IllegalArgumentException("sortLength must be 1..10000000, sortLength=" + sortLength);
            }
        }

        public JobConfig job() {
            return JobConfig.of(JobConfig.shortcut(ranks, hosts, 1, TreeShape.parse(tree)), JobTransport.JVM)
                    .withScope(ScopeSettings.parse("hier:2", "seq", "hist:" + bins, scopeMs)).withTraffic("all");
        }

        /**
         * The network the demo's simulated hosts are drawn on: the smallest 2-ary n-tree fat tree with a node per host
         * (D-mod-k routing), so the dashboard's network pane shows where the allreduces' hops go.
         */
        public Fabric network() {
            int levels = 1;
            while ((1 << levels) < hosts) {
                levels++;
            }
            return FatTree.build(2, levels, 1);
        }
    }

    private final Settings settings;
    private final MonitoredJob job;
    private final Monitors monitors;
    private final LiveJobSource source;
    private final Thread runner;
    private final long startNanos = System.nanoTime();
    private volatile boolean stopping;
    private volatile String failure;
    private volatile long iterations;

    private DemoJob(Settings settings) {
        this.settings = settings;
        this.job = MonitoredJob.inJvm(settings.job());
        Monitors m = null;
        try {
            m = Monitors.start(job, EnumSet.of(MonitorKind.LOADBALANCE, MonitorKind.STATS));
        } catch (RuntimeException e) {
            job.close();
            throw e;
        }
        this.monitors = m;
        this.source = new LiveJobSource(job, monitors, new DashboardSource.RunInfo("demo",
                "compute-gsum, " + settings.ranks() + " ranks on " + settings.hosts() + " simulated hosts, " + settings.tree()
                        + " trees; rank " + settings.slowRank() + " is " + settings.slowMicros() + " µs slow for "
                        + SLOW_ON_S + " s of every " + (SLOW_ON_S + SLOW_OFF_S) + " s",
                settings.ranks(), settings.hosts(), settings.tree(), job.pathmap().spec().trees(), "hist:" + settings.bins(),
                settings.slowRank(), Double.NaN)).withNetwork(settings.network());
        this.runner = new Thread(this::runRanks, "es-demo-ranks");
        runner.setDaemon(true);
    }

    /** Starts the job, its monitors and its ranks. */
    public static DemoJob start(Settings settings) {
        DemoJob demo = new DemoJob(settings);
        demo.runner.start();
        return demo;
    }

    public DashboardSource source() {
        return source;
    }

    public Settings settings() {
        return settings;
    }

    /** Iterations rank 0 finished so far. */
    public long iterations() {
        return iterations;
    }

    /** Why the ranks failed (a wrong sum, a timeout), or null. */
    public String failure() {
        return failure;
    }

    private void runRanks() {
        JsonNode lastMonitors = null;
        JsonNode lastScope = null;
        try {
            List<RankThreads.Outcome<Long>> outcomes = job.runRanks(rank -> rank(job.comm(rank)), Duration.ofDays(1));
            for (RankThreads.Outcome<Long> o : outcomes) {
                if (!o.ok() && failure == null) {
                    failure = "rank " + o.rank() + ": " + o.error();
                }
            }
            lastMonitors = MonitorSnapshot.report(List.of(monitors.stop().toJson(JSON)), job.pathmap(), JSON);
            lastScope = job.finish(null).scope();
        } catch (RuntimeException e) {
            failure = failure != null ? failure : e.toString();
        } finally {
            source.finished(lastMonitors, lastScope);
        }
    }

    /** One rank: sort, maybe wait (the fault), allreduce; until rank 0's stop mark comes back in the sum. */
    private long rank(Comm comm) {
        int rank = comm.rank();
        int size = comm.size();
        long expected = (long) size * (size + 1) / 2;
        SplittableRandom random = new SplittableRandom(rank * 7919L + 1);
        int[] data = new int[settings.sortLength()];
        long done = 0;
        while (true) {
            for (int i = 0; i < data.length; i++) {
                data[i] = random.nextInt();
            }
            Arrays.sort(data);
            if (rank == settings.slowRank() && slowNow()) {
                park(settings.slowMicros());
            }
            long mine = rank + 1 + (rank == 0 && stopping ? STOP_MARK : 0);
            long sum = comm.allreduce(mine, ReduceOp.SUM);
            long plain = sum % STOP_MARK;
            if (plain != expected) {
                throw new IllegalStateException("rank " + rank + " got sum " + plain + " in iteration " + done
                        + ", expected " + expected);
            }
            done++;
            if (rank == 0) {
                iterations = done;
            }
            if (sum >= STOP_MARK) {
                return done;
            }
        }
    }

    /** Whether the slow rank is in a slow episode now. */
    private boolean slowNow() {
        long s = (System.nanoTime() - startNanos) / 1_000_000_000L;
        return s % (SLOW_ON_S + SLOW_OFF_S) < SLOW_ON_S;
    }

    /** Waits by parking, giving the core away (as bench's faults do: a spinning rank would slow its core's others too). */
    private static void park(long micros) {
        long deadline = System.nanoTime() + micros * 1_000;
        for (long left = micros * 1_000; left > 0; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    /** Asks the ranks to leave after the next iteration. */
    public void stop() {
        stopping = true;
    }

    /** Whether the ranks left and the job finished. */
    public boolean finished() {
        return !source.running();
    }

    /** Stops the ranks and waits (bounded) for the job to finish; then releases it. */
    @Override
    public void close() {
        stop();
        try {
            runner.join(job.config().timeout().toMillis() + 5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!runner.isAlive()) {
            job.close();
        }
    }
}
