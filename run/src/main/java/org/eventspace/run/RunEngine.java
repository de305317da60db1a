package org.eventspace.run;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;

import org.eventspace.comm.Comm;
import org.eventspace.comm.launch.JobEnvironment;
import org.eventspace.comm.launch.LaunchPhases;
import org.eventspace.comm.path.Gred;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.job.HostResult;
import org.eventspace.job.HostTrace;
import org.eventspace.job.JobLauncher;
import org.eventspace.job.JobTransport;
import org.eventspace.job.MonitoredJob;
import org.eventspace.monitor.Coscheduler;
import org.eventspace.monitor.MonitorSnapshot;
import org.eventspace.monitor.Monitors;
import org.eventspace.net.TrafficMatrix;
import org.eventspace.base.json.Json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The one run engine: runs any {@link HostWork} — a built-in workload, the multi-cluster workloads, a trace's replay —
 * in a monitored job on the transport its configuration names: simulated hosts in this JVM, or one process per host over
 * TCP ({@link #main} is such a host process, whatever the work). Around the work it does the same for every run: the job
 * and its collectors and scope (the job layer's wiring), the monitors and their coscheduler, the traffic counters, each
 * host's report and their merge into the run's {@code monitors} block and traffic matrix.
 */
public final class RunEngine {
    private static final ObjectMapper JSON = Json.mapper();
    /** How long the front-end waits for every host's last results before it stops pulling. */
    private static final Duration LIVE_FINAL_BOUND = Duration.ofSeconds(3);

    private RunEngine() {
    }

    /**
     * Who watches a run in this process while it runs (the dashboard of {@code run --serve}): told of the job and its
     * monitors once both started and before the ranks run, and of the final monitors and scope blocks once the ranks
     * returned. Called on the thread that runs the job; must not block for long.
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
     * What a job's hosts reported, merged.
     *
     * @param local    in one JVM, what the work's ranks produced; null over TCP (decode {@code programs} there).
     * @param programs over TCP, each host's part of the report ({@link HostWork.Part#program}, with its share of the
     *                 monitors), by host, null where a host reported nothing; empty in one JVM (read {@code local}).
     * @param errors   what went wrong outside the ranks: hosts that died or sent malformed reports, missing counters.
     * @param monitors the run's {@code monitors} block, or null without monitors.
     * @param traffic  the run's communication matrix, or null without {@code --traffic}.
     * @param launch   over TCP, how long the job's start, run, end and the merge of its results took; null in one JVM.
     */
    public record JobRun<T>(T local, List<JsonNode> programs, List<String> errors, List<HostTrace> traces, JsonNode scope,
                            ObjectNode monitors, TrafficMatrix traffic, LaunchPhases launch) {
        public JobRun {
            programs = java.util.Collections.unmodifiableList(new ArrayList<>(programs));
            errors = List.copyOf(errors);
        }
    }

    /** Runs {@code work} in the job {@code config} describes, unwatched, host processes in the default environment. */
    public static <T> JobRun<T> run(RunConfig config, HostWork<T> work, Duration limit) {
        return run(config, work, limit, Watcher.NONE, Map.of());
    }

    /**
     * Runs {@code work} in the job {@code config} describes, bounded by {@code limit}.
     *
     * @param watcher         told of the job while it runs; only a job in this JVM can be watched from here (a TCP job's
     *                        monitors run in its host processes).
     * @param hostEnvironment added to every host process's environment over TCP: how a launcher asks the job's host 0
     *                        for what only it can do while the job runs (the dashboard of {@code run --serve}).
     */
    public static <T> JobRun<T> run(RunConfig config, HostWork<T> work, Duration limit, Watcher watcher,
                                    Map<String, String> hostEnvironment) {
        // Checked here, before any host starts, not only where a host reads it: one clear error instead of a host's.
        Progress.periodSeconds(System.getenv(Progress.PERIOD_ENV));
        if (config.transport() == JobTransport.JVM) {
            return inJvm(config, work, watcher);
        }
        if (watcher != Watcher.NONE) {
            throw new IllegalArgumentException("only a run in this JVM (--transport jvm) can be watched while it runs");
        }
        return overTcp(config, work, limit, hostEnvironment);
    }

    /** A built-in workload's run: its report. */
    public static RunReport run(RunConfig config) {
        return report(config, run(config, WorkloadRanks.plain(config), config.rankLimit()));
    }

    /**
     * As {@link #run(RunConfig)} in this JVM, with {@code watcher} told of the job while it runs.
     *
     * @throws IllegalArgumentException for a TCP run.
     */
    public static RunReport run(RunConfig config, Watcher watcher) {
        if (config.transport() != JobTransport.JVM) {
            throw new IllegalArgumentException("only a run in this JVM (--transport jvm) can be watched while it runs");
        }
        return inJvm(config, watcher);
    }

    /** A built-in workload in this JVM, whatever {@code config}'s transport: every host simulated, one thread per rank. */
    static RunReport inJvm(RunConfig config, Watcher watcher) {
        return report(config, inJvm(config, WorkloadRanks.plain(config), watcher));
    }

    /** As {@link #inJvm(RunConfig, Watcher)} unwatched, each rank calling through what {@code decorate} makes of its {@code Comm}. */
    public static RunReport inJvm(RunConfig config, BiFunction<Integer, Comm, Comm> decorate) {
        return report(config, inJvm(config, WorkloadRanks.decorated(config, decorate), Watcher.NONE));
    }

    /** A built-in workload over TCP with {@code hostEnvironment} added to every host process's environment. */
    public static RunReport overTcp(RunConfig config, Map<String, String> hostEnvironment) {
        requireTcp(config);
        return report(config, overTcp(config, WorkloadRanks.plain(config), config.rankLimit(), hostEnvironment));
    }

    /**
     * A built-in workload over TCP, every host recording its ranks as {@code traceArgument} says ({@link TracedRun});
     * every host's part of the report (null where a host reported none) is added to {@code programs}, by host.
     */
    public static RunReport overTcp(RunConfig config, String traceArgument, List<JsonNode> programs) {
        requireTcp(config);
        JobRun<List<RankResult>> run = overTcp(config, WorkloadRanks.traced(config, traceArgument), config.rankLimit(), Map.of());
        programs.addAll(run.programs());
        return report(config, run);
    }

    private static void requireTcp(RunConfig config) {
        if (config.transport() != JobTransport.TCP) {
            throw new IllegalArgumentException("host processes run a --transport tcp job, got " + config.transport());
        }
    }

    /** The run report of a built-in workload's job: its ranks' results (decoded from the hosts' parts over TCP). */
    private static RunReport report(RunConfig config, JobRun<List<RankResult>> run) {
        List<RankResult> ranks = new ArrayList<>();
        List<String> errors = new ArrayList<>(run.errors());
        if (run.local() != null) {
            ranks.addAll(run.local());
        } else {
            for (int h = 0; h < run.programs().size(); h++) {
                JsonNode program = run.programs().get(h);
                if (program == null) {
                    continue;
                }
                try {
                    ranks.addAll(WorkloadRanks.decodeRanks(program));
                } catch (IllegalArgumentException e) {
                    errors.add("host " + h + " sent malformed rank results: " + e.getMessage());
                }
            }
            ranks.sort((a, b) -> Integer.compare(a.rank(), b.rank()));
        }
        return new RunReport(config, ranks, errors, run.traces(), run.scope(), run.monitors(), run.traffic(), run.launch());
    }

    private static <T> JobRun<T> inJvm(RunConfig config, HostWork<T> work, Watcher watcher) {
        try (MonitoredJob job = MonitoredJob.inJvm(config.job(), listenerFor(config));
             Monitors monitors = startMonitors(job, config)) {
            watcher.started(job, monitors);
            HostWork.Part<T> part = work.run(job);
            ObjectNode share = JSON.createObjectNode();
            putHostMonitors(share, monitors, job);
            HostResult result = job.finish(null);
            ObjectNode report = monitorsReport(List.of(share), job.pathmap());
            watcher.finished(report, result.scope());
            // Read after finish: the simulated hosts' service threads are gone, so every message is counted.
            TrafficMatrix traffic = config.job().traffic() != null ? TrafficMatrix.of(job.trafficCounters(), config.spec()) : null;
            return new JobRun<>(part.value(), List.of(), List.of(), result.traces(), result.scope(), report, traffic, null);
        }
    }

    /** One process per host on this machine ({@link #main}), each reporting its part. */
    private static <T> JobRun<T> overTcp(RunConfig config, HostWork<T> work, Duration limit,
                                         Map<String, String> hostEnvironment) {
        List<String> args = new ArrayList<>();
        args.add(RunConfigCodec.encode(config));
        args.addAll(work.arguments());
        JobLauncher.Outcome outcome = JobLauncher.launch(config.job(), RunEngine.class.getName(), args, limit, hostEnvironment);
        List<String> errors = new ArrayList<>(outcome.errors());
        List<JsonNode> programs = new ArrayList<>();
        List<JsonNode> trafficParts = new ArrayList<>();
        for (HostResult host : outcome.hosts()) {
            JsonNode program = host == null ? null : host.program();
            programs.add(program);
            if (program != null && program.has("traffic")) {
                trafficParts.add(program.get("traffic"));
            }
        }
        ObjectNode monitors = config.monitoring().enabled() ? monitorsReport(programs, config.pathmap()) : null;
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
        return new JobRun<>(null, programs, errors, outcome.traces(), outcome.scope(), monitors, traffic,
                outcome.phases() == null ? null : outcome.phases().then(LaunchPhases.MERGE));
    }

    /**
     * This host's share of the monitors into {@code into}, once its ranks are done: {@code monitors}, the greds it runs
     * and its ranks' profiles (the launcher merges every host's), and on the scope's front-end {@code monitors_live},
     * what it gathered of every host while the job ran. Nothing without {@code monitors}.
     */
    private static void putHostMonitors(ObjectNode into, Monitors monitors, MonitoredJob job) {
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
    private static ObjectNode monitorsReport(List<JsonNode> shares, Pathmap pathmap) {
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
    private static Monitors startMonitors(MonitoredJob job, RunConfig config) {
        return config.monitoring().enabled()
                ? Monitors.start(job, config.monitoring().kinds(), config.monitoring().analysis()) : null;
    }

    /**
     * On the scope's front-end, once this process's monitors stopped: the monitors as the event scope gathered them
     * while the job ran, after it has every host's last set (bounded wait) and its final pulls; null elsewhere.
     */
    private static JsonNode liveAtEnd(MonitoredJob job) {
        if (!job.runsFrontEnd()) {
            return null;
        }
        // After a failure a dead host's last set will never come: keep what the front-end has.
        Monitors.awaitFinal(job, JSON, job.ranksFailed() ? Duration.ZERO : LIVE_FINAL_BOUND);
        job.stopScope();
        return Monitors.live(job, JSON).orElse(null);
    }

    /** What makes the run's gred listener of the job's pathmap: a coscheduler when it runs monitors, else none. */
    private static Function<Pathmap, Gred.ReleaseListener> listenerFor(RunConfig config) {
        return config.monitoring().enabled() ? pathmap -> Coscheduler.of(pathmap, config.monitoring().coschedule())
                : pathmap -> Gred.ReleaseListener.NONE;
    }

    /** In a host process: the work its arguments name, after the job's and the run's configurations. */
    private static HostWork<?> decodeWork(RunConfig config, List<String> arguments) {
        if (arguments.isEmpty()) {
            throw new IllegalArgumentException("expected the work's kind after the run configuration: " + WorkloadRanks.KIND
                    + ", " + MultiClusterRun.KIND + " or " + TraceReplay.KIND);
        }
        return switch (arguments.get(0)) {
            case WorkloadRanks.KIND -> WorkloadRanks.decode(config, arguments);
            case MultiClusterRun.KIND -> MultiClusterRun.decode(config, arguments);
            case TraceReplay.KIND -> TraceReplay.decode(arguments);
            default -> throw new IllegalArgumentException("unknown work '" + arguments.get(0) + "': expected "
                    + WorkloadRanks.KIND + ", " + MultiClusterRun.KIND + " or " + TraceReplay.KIND);
        };
    }

    /**
     * One host process of a TCP run: joins the job named by the environment (our launcher's variables, or mpirun's,
     * Slurm's or PMI's), runs its part of the work with the run's monitors and counters, and reports it. Arguments: the
     * encoded job configuration, the encoded run configuration ({@link RunConfigCodec}), the work's kind and its
     * arguments ({@link HostWork#arguments()}). Exit code 0 when every local rank got the right results, 1 otherwise,
     * 2 for malformed arguments.
     */
    public static void main(String[] args) {
        System.exit(host(args));
    }

    /** The host process's work, its exit code returned: {@link #main} without the exit. */
    static int host(String[] args) {
        RunConfig config;
        HostWork<?> work;
        try {
            if (args.length < 3) {
                throw new IllegalArgumentException("usage: RunEngine <encoded job configuration> <encoded run configuration> "
                        + "<work> [<work's arguments>...]");
            }
            config = RunConfigCodec.decode(args[1]).withJob(JobLauncher.config(args));
            work = decodeWork(config, List.of(args).subList(2, args.length));
        } catch (RuntimeException e) {
            System.err.println("RunEngine: " + e.getMessage());
            return 2;
        }
        JobEnvironment env = JobEnvironment.current();
        try (MonitoredJob job = MonitoredJob.join(config.job(), env, listenerFor(config));
             Monitors monitors = startMonitors(job, config)) {
            HostWork.Part<?> part = work.run(job);
            ObjectNode program = part.program().get();
            putHostMonitors(program, monitors, job);
            if (config.job().traffic() != null) {
                // This host's counters. Its service threads may still serve a peer's last reply, which a later host's
                // counters see on their side: sent and received are kept apart for that reason too.
                program.set("traffic", TrafficMatrix.part(job.trafficCounters(), JSON));
            }
            job.finish(program);
            return part.ok() ? 0 : 1;
        } catch (RuntimeException e) {
            System.err.println("host " + env.host() + ": " + e.getMessage());
            return 1;
        }
    }
}
