package org.eventspace.examples;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.eventspace.base.json.Json;
import org.eventspace.comm.Comm;
import org.eventspace.comm.launch.JobEnvironment;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.job.HostResult;
import org.eventspace.job.JobConfig;
import org.eventspace.job.JobFootprint;
import org.eventspace.job.JobTransport;
import org.eventspace.job.MonitoredJob;
import org.eventspace.job.RankThreads;
import org.eventspace.job.ScopeSettings;
import org.eventspace.job.ScopeSummary;
import org.eventspace.monitor.Coschedule;
import org.eventspace.monitor.Coscheduler;
import org.eventspace.monitor.MonitorKind;
import org.eventspace.monitor.MonitorSummary;
import org.eventspace.monitor.Monitors;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The smallest real EventSpace program: each process is one host of the job and runs {@code ranksPerHost} rank
 * threads that allreduce {@code iterations} times and check every sum. It starts under {@code eventspace launch},
 * {@code mpirun} or {@code srun} alike: {@link JobEnvironment} reads whichever launcher's variables are set, and a
 * {@code --rendezvous host:port} argument wins over {@code ES_RENDEZVOUS}. With {@code --monitor} the job is monitored:
 * a collector on every edge of every tree, an event space in every process, and a {@code stats} event scope that
 * process 0 pulls every 100 ms while the ranks run, printing what it sees once a second and a summary at the end. With
 * {@code --monitors} it runs the load-balance and statistics monitors instead: an analysis thread in every process,
 * coscheduled by the communication system (strategy ii), whose results the job's event scope gathers; process 0 prints
 * their headline (the slowest rank, the stage the time goes to) once a second and the whole summary at the end.
 *
 * <pre>
 *   ./eventspace launch -n 3 -- org.eventspace.examples.JobExample 2 1000 [--monitor]
 *   mpirun -np 3 java $(./eventspace java-opts) org.eventspace.examples.JobExample 2 1000 --monitor
 *   srun -n 3 env ES_SECRET=... java $(./eventspace java-opts) org.eventspace.examples.JobExample 2 1000 --rendezvous node0:47000
 * </pre>
 *
 * Exit code 0 when every sum was exact, 1 when a sum was wrong or the job failed (the message says why), 2 for bad
 * arguments or a job this machine cannot hold (too many ranks per process: refused before it starts).
 */
public final class JobExample {
    private JobExample() {
    }

    public static void main(String[] args) {
        List<String> positional = new ArrayList<>();
        String rendezvous = null;
        boolean monitor = false;
        boolean monitors = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rendezvous" -> rendezvous = i + 1 < args.length ? args[++i] : usage("--rendezvous needs host:port");
                case "--monitor" -> monitor = true;
                case "--monitors" -> monitors = true;
                default -> positional.add(args[i]);
            }
        }
        int ranksPerHost = positional.size() > 0 ? count(positional.get(0), "ranksPerHost") : 2;
        int iterations = positional.size() > 1 ? count(positional.get(1), "iterations") : 1_000;

        // 1. Who am I, and where is everybody? (our launcher's, mpirun's, Slurm's or PMI's variables)
        JobEnvironment env = JobEnvironment.from(System.getenv(), rendezvous);
        // 2. The job: ranks block-mapped over the processes, hierarchy-aware trees; monitored or not.
        PathmapSpec spec = JobConfig.shortcut(env.hosts() * ranksPerHost, env.hosts(), 1, TreeShape.hier(8));
        if (monitor && monitors) {
            usage("--monitor (a stats scope) and --monitors (the monitors) each lay the job's one event scope: choose one");
        }
        JobConfig config = JobConfig.of(spec, JobTransport.TCP).withCollectors(monitor || monitors)
                .withScope(monitor ? ScopeSettings.parse("flat", "seq", "stats", 100)
                        : monitors ? ScopeSettings.parse("flat", "seq", "newest", 100) : null);
        // 3. Join it (with the monitors: the communication system releases their threads), run the ranks, finish; the
        //    job layer wires collectors, event spaces and the scope.
        boolean withMonitors = monitors;
        try (MonitoredJob job = withMonitors ? MonitoredJob.join(config, env, pathmap -> Coscheduler.of(pathmap, Coschedule.II))
                : MonitoredJob.join(config, env);
             Monitors analysis = withMonitors ? Monitors.start(job, EnumSet.allOf(MonitorKind.class)) : null) {
            ScheduledExecutorService live = withMonitors ? watchMonitors(job) : watch(job);
            long start = System.nanoTime();
            List<RankThreads.Outcome<Boolean>> ranks = job.runRanks(rank -> allreduces(job.comm(rank), iterations),
                    Duration.ofMinutes(10));
            double us = (System.nanoTime() - start) / 1e3 / iterations;
            live.shutdownNow();
            if (analysis != null) {
                // Every process publishes its last results; process 0 waits for them before its scope stops.
                analysis.stop();
                if (job.runsFrontEnd()) {
                    Monitors.awaitFinal(job, JSON, Duration.ofSeconds(3));
                    job.stopScope();
                    Monitors.live(job, JSON).ifPresent(m -> System.out.print(MonitorSummary.of(m, job.pathmap(), 20)));
                }
            }
            HostResult result = job.finish(null);
            boolean exact = true;
            for (RankThreads.Outcome<Boolean> rank : ranks) {
                if (!rank.ok()) {
                    System.err.printf(Locale.ROOT, "host %d: rank %d failed: %s%n", env.host(), rank.rank(), rank.error());
                }
                exact &= rank.ok() && rank.value();
            }
            // 4. What the scope saw (process 0 runs its front-end).
            if (result.scope() != null) {
                System.out.print(ScopeSummary.of(result.scope()));
                exact &= !result.scope().has("error");
            }
            System.out.printf(Locale.ROOT, "host %d of %d (%s): ranks %s, %d allreduces, %.2f µs each, sums %s%n", env.host(),
                    env.hosts(), env.source(), job.localRanks(), iterations, us, exact ? "exact" : "WRONG");
            System.exit(exact ? 0 : 1);
        } catch (JobFootprint.TooLargeException e) {
            // Refused before anything started: a configuration this machine cannot hold, like a bad argument.
            System.err.printf(Locale.ROOT, "host %d: %s%n", env.host(), e.getMessage());
            System.exit(2);
        } catch (RuntimeException e) {
            System.err.printf(Locale.ROOT, "host %d: the job failed: %s%n", env.host(), e.getMessage());
            System.exit(1);
        }
    }

    /** One rank: rank r contributes r + i in iteration i, so every rank knows the exact sum. */
    private static boolean allreduces(Comm comm, int iterations) {
        boolean exact = true;
        long ranks = comm.size();
        for (int i = 0; i < iterations; i++) {
            exact &= comm.allreduce((long) comm.rank() + i, ReduceOp.SUM) == ranks * (ranks - 1) / 2 + ranks * i;
        }
        return exact;
    }

    private static final ObjectMapper JSON = Json.mapper();

    /** On the front-end's process, prints the monitors' headline, as the scope has gathered it, once a second. */
    private static ScheduledExecutorService watchMonitors(MonitoredJob job) {
        ScheduledExecutorService live = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "job-example-watch");
            t.setDaemon(true);
            return t;
        });
        if (job.runsFrontEnd()) {
            live.scheduleAtFixedRate(() -> Monitors.live(job, JSON).ifPresent(m -> System.out.println("live "
                    + MonitorSummary.of(m).lines().findFirst().orElse("").trim())), 1, 1, TimeUnit.SECONDS);
        }
        return live;
    }

    /** On the front-end's process, prints what the scope has gathered so far once a second. */
    private static ScheduledExecutorService watch(MonitoredJob job) {
        ScheduledExecutorService live = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "job-example-watch");
            t.setDaemon(true);
            return t;
        });
        if (job.runsFrontEnd()) {
            live.scheduleAtFixedRate(() -> job.snapshot().ifPresent(s -> System.out.println("live: " + s)), 1, 1,
                    TimeUnit.SECONDS);
        }
        return live;
    }

    private static int count(String text, String name) {
        try {
            int n = Integer.parseInt(text);
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        return usage(name + " must be a whole number >= 1, got '" + text + "'");
    }

    private static <T> T usage(String message) {
        System.err.println("JobExample: " + message
                + "\nusage: JobExample [ranksPerHost] [iterations] [--monitor | --monitors] [--rendezvous host:port]");
        System.exit(2);
        return null;
    }
}
