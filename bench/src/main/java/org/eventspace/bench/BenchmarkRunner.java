package org.eventspace.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;

import org.eventspace.base.json.Json;
import org.eventspace.comm.Comm;

import org.eventspace.comm.launch.JobEnvironment;
import org.eventspace.comm.path.Gred;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.job.HostResult;
import org.eventspace.job.JobLauncher;
import org.eventspace.job.MonitoredJob;
import org.eventspace.job.RankThreads;
import org.eventspace.monitor.Coscheduler;
import org.eventspace.monitor.MonitorSnapshot;
import org.eventspace.monitor.Monitors;
import org.eventspace.net.TrafficMatrix;
import org.eventspace.trace.TraceFile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Runs a benchmark in a monitored job on the transport its configuration names: simulated hosts in this JVM, or one
 * process per host over TCP ({@link #main} is such a host process). The job layer does the wiring; this class only
 * runs {@link RankBenchmarks} on every rank and turns what the ranks and the job reported into a {@link RunReport}.
 */
public final class BenchmarkRunner {
    private static final ObjectMapper JSON = Json.mapper();

    private BenchmarkRunner() {
    }

    public static RunReport run(RunConfig config) {
        return switch (config.transport()) {
            case JVM -> inJvm(config, Watcher.NONE);
            case TCP -> overTcp(config);
        };
    }

    /**
     * Who watches a run in this process while it runs (the dashboard of {@code run --serve}): told of the job and its
     * monitors once both started and before the ranks run, and of the final monitors and scope blocks once the ranks
     * returned. Called on the thread that runs the benchmark; must not block for long.
     */
    public interface Watcher {
        Watcher NONE = new Watcher() {
        };

        /** @param monitors the job's monitors, or null when the run has none. */
        default void started(MonitoredJob job, Monitors monitors) {
        }

        /** @param monitors the run's {@code monitors} block, or null; @param scope its {@code scope} block, or null. */
        default void finished(JsonNode monitors, JsonNode scope) {
        }
    }

    /**
     * As {@link #run}, with {@code watcher} told of the job while it runs. Only a job simulated in this JVM can be watched
     * from here (a TCP job's monitors run in its host processes).
     *
     * @throws IllegalArgumentException for a TCP run.
     */
    public static RunReport run(RunConfig config, Watcher watcher) {
        if (config.transport() != org.eventspace.job.JobTransport.JVM) {
            throw new IllegalArgumentException("only a run in this JVM (--transport jvm) can be watched while it runs");
        }
        return inJvm(config, watcher);
    }

    /** Every host simulated in this JVM, one thread per rank. */
    static RunReport inJvm(RunConfig config, Watcher watcher) {
        return inJvm(config, watcher, (rank, comm) -> comm);
    }

    /** As {@link #inJvm(RunConfig, Watcher)} unwatched, each rank calling through what {@code decorate} makes of its {@code Comm}. */
    static RunReport inJvm(RunConfig config, BiFunction<Integer, Comm, Comm> decorate) {
        return inJvm(config, Watcher.NONE, decorate);
    }

    static RunReport inJvm(RunConfig config, Watcher watcher, BiFunction<Integer, Comm, Comm> decorate) {
        try (MonitoredJob job = MonitoredJob.inJvm(config.job(), listenerFor(config));
             Monitors monitors = startMonitors(job, config)) {
            watcher.started(job, monitors);
            List<RankResult> ranks = runRanks(job, config, decorate);
            ObjectNode share = JSON.createObjectNode();
            putHostMonitors(share, monitors, job);
            HostResult result = job.finish(null);
            ObjectNode report = monitorsReport(List.of(share), job.pathmap());
            watcher.finished(report, result.scope());
            // Read after finish: the simulated hosts' service threads are gone, so every message is counted.
            TrafficMatrix traffic = config.job().traffic() != null ? TrafficMatrix.of(job.trafficCounters(), config.spec()) : null;
            return new RunReport(config, ranks, List.of(), result.traces(), result.scope(), report, traffic);
        }
    }

    /**
     * This host's share of the monitors into {@code into}, once its ranks are done: {@code monitors}, the greds it runs
     * and its ranks' profiles (the launcher merges every host's), and on the scope's front-end {@code monitors_live},
     * what it gathered of every host while the job ran. Nothing without {@code monitors}.
     */
    static void putHostMonitors(ObjectNode into, Monitors monitors, MonitoredJob job) {
        if (monitors == null) {
            return;
        }
        into.set("monitors", monitors.finalPart(JSON));
        JsonNode live = monitors.central() ? null : liveAtEnd(job);
        if (live != null) {
            into.set("monitors_live", live);
        }
    }

    /**
     * The run's {@code monitors} block from the hosts' shares ({@link #putHostMonitors}; null entries and entries
     * without a share are skipped), with the front-end's live view beside; null when no host had a share.
     */
    static ObjectNode monitorsReport(List<JsonNode> shares, Pathmap pathmap) {
        List<JsonNode> parts = new ArrayList<>();
        JsonNode live = null;
        for (JsonNode share : shares) {
            if (share != null && share.has("monitors")) {
                parts.add(share.get("monitors"));
            }
            if (share != null && share.has("monitors_live")) {
                live = share.get("monitors_live");
            }
        }
        if (parts.isEmpty()) {
            return null;
        }
        ObjectNode report = MonitorSnapshot.report(parts, pathmap, JSON);
        if (live != null) {
            report.set("live", MonitorSnapshot.liveSection(live, report, JSON));
        }
        return report;
    }

    /** The run's monitors on this process, or null: none asked for, or a central analysis run by another process. */
    static Monitors startMonitors(MonitoredJob job, RunConfig config) {
        return config.monitoring().enabled()
                ? Monitors.start(job, config.monitoring().kinds(), config.monitoring().analysis()) : null;
    }

    /**
     * On the scope's front-end, once this process's monitors stopped: the monitors as the event scope gathered them
     * while the job ran, after it has every host's last set (bounded wait) and its final pulls; null elsewhere.
     */
    static JsonNode liveAtEnd(MonitoredJob job) {
        if (!job.runsFrontEnd()) {
            return null;
        }
        // After a failure a dead host's last set will never come: keep what the front-end has.
        Monitors.awaitFinal(job, JSON, job.ranksFailed() ? java.time.Duration.ZERO : LIVE_FINAL_BOUND);
        job.stopScope();
        return Monitors.live(job, JSON).orElse(null);
    }

    /** How long the front-end waits for every host's last results before it stops pulling. */
    private static final java.time.Duration LIVE_FINAL_BOUND = java.time.Duration.ofSeconds(3);

    /** What makes the run's gred listener of the job's pathmap: a coscheduler when it runs monitors, else none. */
    private static Function<Pathmap, Gred.ReleaseListener> listenerFor(RunConfig config) {
        return config.monitoring().enabled() ? pathmap -> Coscheduler.of(pathmap, config.monitoring().coschedule())
                : pathmap -> Gred.ReleaseListener.NONE;
    }

    /** One process per host on this machine ({@link #main}), each reporting its ranks' results. */
    static RunReport overTcp(RunConfig config) {
        return overTcp(config, List.of(), new ArrayList<>(), java.util.Map.of());
    }

    /**
     * As {@link #run} for a TCP run, with {@code hostEnvironment} added to every host process's environment: how a
     * launcher asks the job's host 0 for what only it can do while the job runs (the dashboard of {@code run --serve},
     * which its host 0 serves from the monitors its event scope gathers: {@code job.JobObserver}).
     */
    public static RunReport overTcp(RunConfig config, java.util.Map<String, String> hostEnvironment) {
        return overTcp(config, List.of(), new ArrayList<>(), hostEnvironment);
    }

    /**
     * As {@link #overTcp(RunConfig)}, with {@code extraArgs} after the run's own (a trace configuration: {@link TracedRun});
     * every host's {@code program} (null where a host reported none) is added to {@code programs}, by host.
     */
    static RunReport overTcp(RunConfig config, List<String> extraArgs, List<JsonNode> programs) {
        return overTcp(config, extraArgs, programs, java.util.Map.of());
    }

    private static RunReport overTcp(RunConfig config, List<String> extraArgs, List<JsonNode> programs,
                                     java.util.Map<String, String> hostEnvironment) {
        if (config.transport() != org.eventspace.job.JobTransport.TCP) {
            throw new IllegalArgumentException("host processes run a --transport tcp job, got " + config.transport());
        }
        List<String> args = new ArrayList<>();
        args.add(RunConfigCodec.encode(config));
        args.addAll(extraArgs);
        JobLauncher.Outcome outcome = JobLauncher.launch(config.job(), BenchmarkRunner.class.getName(), args,
                config.rankLimit(), hostEnvironment);
        for (HostResult host : outcome.hosts()) {
            programs.add(host == null ? null : host.program());
        }
        List<RankResult> ranks = new ArrayList<>();
        List<String> errors = new ArrayList<>(outcome.errors());
        List<JsonNode> reported = new ArrayList<>();
        List<JsonNode> trafficParts = new ArrayList<>();
        for (int h = 0; h < outcome.hosts().size(); h++) {
            HostResult host = outcome.hosts().get(h);
            if (host == null) {
                continue;
            }
            try {
                ranks.addAll(decodeRanks(host.program()));
            } catch (IllegalArgumentException e) {
                errors.add("host " + h + " sent malformed rank results: " + e.getMessage());
            }
            reported.add(host.program());
            if (host.program() != null && host.program().has("traffic")) {
                trafficParts.add(host.program().get("traffic"));
            }
        }
        ranks.sort((a, b) -> Integer.compare(a.rank(), b.rank()));
        ObjectNode monitors = config.monitoring().enabled() ? monitorsReport(reported, config.pathmap()) : null;
        TrafficMatrix traffic = null;
        if (config.job().traffic() != null && !trafficParts.isEmpty()) {
            if (trafficParts.size() < outcome.hosts().size()) {
                errors.add("traffic: " + (outcome.hosts().size() - trafficParts.size()) + " host(s) sent no counters");
            }
            try {
                traffic = TrafficMatrix.merge(trafficParts, config.spec());
            } catch (IllegalArgumentException e) {
                errors.add("traffic: " + e.getMessage());
            }
        }
        return new RunReport(config, ranks, errors, outcome.traces(), outcome.scope(), monitors, traffic);
    }

    /** Runs the benchmark on every local rank of {@code job}; a rank that failed or was late is reported as such. */
    static List<RankResult> runRanks(MonitoredJob job, RunConfig config) {
        return runRanks(job, config, (rank, comm) -> comm);
    }

    static List<RankResult> runRanks(MonitoredJob job, RunConfig config, BiFunction<Integer, Comm, Comm> decorate) {
        // Where rank 0 runs, a run that lasts more than a few seconds says on stderr what it is doing.
        Progress progress = job.localRanks().contains(0)
                ? Progress.of(config.benchmark().label() + ", " + config.ranks() + " ranks") : Progress.NONE;
        List<RankThreads.Outcome<RankResult>> outcomes;
        try (Progress.Watch watching = progress.watch()) {
            outcomes = job.runRanks(rank -> RankBenchmarks.run(decorate.apply(rank, job.comm(rank)), config, job.timedWindow(), progress),
                    config.rankLimit());
        }
        List<RankResult> results = new ArrayList<>();
        for (RankThreads.Outcome<RankResult> o : outcomes) {
            results.add(o.ok() ? o.value() : RankResult.failed(o.rank(), o.error()));
        }
        return results;
    }

    /** What a host process reports about its ranks: {@code {"ranks": [rank results]}}. */
    static JsonNode encodeRanks(List<RankResult> ranks) {
        ObjectNode program = JSON.createObjectNode();
        ArrayNode list = program.putArray("ranks");
        ranks.forEach(r -> list.add(r.toJson(JSON)));
        return program;
    }

    static List<RankResult> decodeRanks(JsonNode program) {
        if (program == null || !program.path("ranks").isArray()) {
            throw new IllegalArgumentException("expected {\"ranks\": [...]}");
        }
        List<RankResult> ranks = new ArrayList<>();
        program.path("ranks").forEach(r -> ranks.add(RankResult.fromJson(r)));
        return ranks;
    }

    /**
     * One host process of a TCP benchmark run: joins the job named by the environment (our launcher's variables, or
     * mpirun's, Slurm's or PMI's), runs its ranks and reports their results. Exit code 0 when every local rank got
     * the right results, 1 otherwise, 2 for malformed arguments.
     */
    public static void main(String[] args) {
        RunConfig config;
        org.eventspace.trace.TraceConfig traceConfig;
        int alternatingTree;
        try {
            if (args.length != 2 && args.length != 3) {
                throw new IllegalArgumentException("usage: BenchmarkRunner <encoded job configuration> <encoded run configuration> "
                        + "[<trace configuration>]");
            }
            config = RunConfigCodec.decode(args[1]).withJob(JobLauncher.config(args));
            traceConfig = args.length == 3 ? TracedRun.decodeArgument(args[2]) : null;
            alternatingTree = args.length == 3 ? TracedRun.alternatingTree(args[2]) : -1;
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        JobEnvironment env = JobEnvironment.current();
        boolean ok;
        try (MonitoredJob job = MonitoredJob.join(config.job(), env, listenerFor(config));
             Monitors monitors = startMonitors(job, config)) {
            TracedRun.Recorders recorders = traceConfig == null ? null : new TracedRun.Recorders(config.ranks(), traceConfig);
            List<RankResult> results;
            if (recorders == null) {
                results = runRanks(job, config);
            } else if (alternatingTree < 0) {
                results = runRanks(job, config, recorders::decorate);
            } else {
                // The interleaved recording overhead: a rank's calls alternate between a recorder and the bare Comm.
                results = runRanks(job, config, (rank, comm) -> {
                    Comm traced = recorders.decorate(rank, comm);
                    return alternatingTree == 0 ? new AlternatingComm(traced, comm) : new AlternatingComm(comm, traced);
                });
            }
            ok = results.stream().allMatch(RankResult::resultOk);
            ObjectNode program = (ObjectNode) encodeRanks(results);
            if (recorders != null && alternatingTree >= 0) {
                program.put("events_recorded", recorders.recorded(job.localRanks()));
            } else if (recorders != null) {
                // This host's ranks merged into one partial trace (after the timed loop, as ScalaTrace merges at
                // finalize); the launching side merges the hosts' (TracedRun).
                program.set("trace", TraceFile.toJson(recorders.merged(job.localRanks())));
            }
            putHostMonitors(program, monitors, job);
            if (config.job().traffic() != null) {
                // This host's counters. Its service threads may still serve a peer's last reply, which a later host's
                // counters see on their side: sent and received are kept apart for that reason too.
                program.set("traffic", TrafficMatrix.part(job.trafficCounters(), JSON));
            }
            job.finish(program);
        } catch (RuntimeException e) {
            System.err.println("host " + env.host() + ": " + e.getMessage());
            ok = false;
        }
        System.exit(ok ? 0 : 1);
    }
}
