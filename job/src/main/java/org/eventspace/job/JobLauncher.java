package org.eventspace.job;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.eventspace.base.json.Json;
import org.eventspace.comm.launch.LaunchPhases;
import org.eventspace.comm.launch.Launcher;
import org.eventspace.comm.launch.RendezvousProtocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Launches a TCP job's host processes on this machine and gathers what each reported: one process per host of the
 * job's pathmap, each running {@code mainClass} with the encoded {@link JobConfig} as its first argument, which it
 * hands to {@link MonitoredJob#join} (see {@link #config(String[])}). The {@link Launcher} under it gives them the job
 * secret and the rendezvous, copies their output prefixed {@code [host i]}, and aborts the job when one fails. With a
 * trace dump, {@code pathmap.json} is written before any process starts, and each host process writes its own
 * {@code host-<id>/} trace files. A host that fails is reported with its exit code and last lines of output; nothing
 * already reported by the others is dropped. May be called from any thread; blocks until every process ended.
 */
public final class JobLauncher {
    /** Time a host process may take to start (a JVM, class loading, on a loaded machine) beyond the job's timeout. */
    static final Duration REGISTRATION_SLACK = Duration.ofSeconds(20);
    /**
     * CPU time one host process may take to start and register: measured 1.3–1.5 s (a JVM, our classes, its pathmap) on
     * a 2-vCPU VM with 64 of them starting at once. They all start on this machine, so they share its cores.
     */
    static final Duration HOST_START_CPU = Duration.ofSeconds(2);

    private JobLauncher() {
    }

    /**
     * What a launched job's processes reported.
     *
     * @param hosts  every host's report, by host id; absent ({@code null}) where a host reported none.
     * @param errors what went wrong, a line each: a host that died, a malformed report, the launcher's own failure.
     * @param phases how long the job's start, run and end took, as the launcher saw them.
     */
    public record Outcome(List<HostResult> hosts, List<String> errors, LaunchPhases phases) {
        public Outcome {
            hosts = java.util.Collections.unmodifiableList(new ArrayList<>(hosts));
            errors = List.copyOf(errors);
        }

        /** Every host's traces, by host. */
        public List<HostTrace> traces() {
            List<HostTrace> all = new ArrayList<>();
            for (HostResult h : hosts) {
                if (h != null) {
                    all.addAll(h.traces());
                }
            }
            all.sort((a, b) -> Integer.compare(a.host(), b.host()));
            return all;
        }

        /** The scope block the front-end's host reported, or null. */
        public JsonNode scope() {
            for (HostResult h : hosts) {
                if (h != null && h.scope() != null) {
                    return h.scope();
                }
            }
            return null;
        }
    }

    /**
     * Launches {@code config.hosts()} processes of {@code mainClass} with arguments {@code [encoded config] + args} and
     * waits at most {@code limit} for all of them.
     */
    public static Outcome launch(JobConfig config, String mainClass, List<String> args, Duration limit) {
        return launch(config, mainClass, args, limit, Map.of());
    }

    /**
     * As {@link #launch(JobConfig, String, List, Duration)}, with {@code env} added to every process's environment (e.g.
     * a {@link JobObserver}'s request, such as the dashboard's).
     */
    public static Outcome launch(JobConfig config, String mainClass, List<String> args, Duration limit, Map<String, String> env) {
        if (config.transport() != JobTransport.TCP) {
            throw new IllegalArgumentException("launching host processes needs transport tcp, got " + config.transport());
        }
        if (config.traceDump() != null) {
            // Before any process starts (host 0 writes it again when it joins, for jobs mpirun or srun start).
            MonitoredJob.writeLayout(config, config.pathmap());
        }
        List<String> arguments = new ArrayList<>();
        arguments.add(JobConfigCodec.encode(config));
        arguments.addAll(args);
        // A host that never registers, reaches a barrier or finishes (it died or froze) is named by the rendezvous and
        // the job aborted after this, not after the launch limit: the collective timeout plus time to start a JVM.
        Duration register = config.timeout().plus(registrationSlack(config.hosts(), Runtime.getRuntime().availableProcessors()));
        Launcher.Result result = Launcher.launch(config.hosts(), Launcher.javaCommand(mainClass, arguments), env, limit,
                register, config.binding());
        ObjectMapper json = Json.mapper();
        List<HostResult> hosts = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        for (Launcher.HostResult host : result.hosts()) {
            if (host.resultLine() == null) {
                hosts.add(null);
                errors.add("host " + host.host() + " reported no result (exit code " + host.exitCode() + ")"
                        + (host.stderrTail().isEmpty() ? "" : ": " + String.join(" | ", host.stderrTail())));
                continue;
            }
            try {
                HostResult decoded = HostResult.decode(json, host.resultLine());
                hosts.add(decoded);
                if (!decoded.leftOut().isEmpty()) {
                    errors.add("host " + host.host() + " left out of its result, to fit the limit of "
                            + (RendezvousProtocol.MAX_RESULT_BYTES >> 20) + " MiB: "
                            + String.join(", ", decoded.leftOut()));
                }
            } catch (IllegalArgumentException e) {
                hosts.add(null);
                errors.add("host " + host.host() + " sent a malformed result: " + e.getMessage());
            }
        }
        if (!result.succeeded() && result.failure() != null) {
            errors.add(result.failure());
        }
        return new Outcome(hosts, errors, result.phases());
    }

    /**
     * How long beyond the job's timeout {@code hosts} processes started at once on {@code cores} may take to register:
     * {@link #REGISTRATION_SLACK}, or their start's CPU time shared by the cores when that is longer (64 host processes on
     * 2 cores need about 50 s before the last one registers).
     */
    static Duration registrationSlack(int hosts, int cores) {
        Duration shared = HOST_START_CPU.multipliedBy(hosts).dividedBy(Math.max(1, cores));
        return shared.compareTo(REGISTRATION_SLACK) > 0 ? shared : REGISTRATION_SLACK;
    }

    /**
     * In a launched host process: the job configuration its launcher passed as the first argument.
     *
     * @throws IllegalArgumentException if there is none or it is malformed.
     */
    public static JobConfig config(String[] args) {
        if (args.length < 1) {
            throw new IllegalArgumentException("expected the encoded job configuration as the first argument");
        }
        return JobConfigCodec.decode(args[0]);
    }
}
