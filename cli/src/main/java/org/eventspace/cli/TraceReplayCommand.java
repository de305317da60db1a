package org.eventspace.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

import org.eventspace.run.TraceReplay;
import org.eventspace.comm.launch.CpuBinding;
import org.eventspace.job.JobConfig;
import org.eventspace.job.JobTransport;
import org.eventspace.job.PollMode;
import org.eventspace.mpi.MpiReplayProgram;
import org.eventspace.trace.Replay;
import org.eventspace.trace.RunConditions;
import org.eventspace.trace.Trace;
import org.eventspace.trace.TraceConfig;
import org.eventspace.trace.TraceFile;
import org.eventspace.base.json.Json;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code eventspace trace replay FILE}: timed replay of a compressed trace on our communication system (Ratn et al.
 * §3.4), every rank interpreting its part of the trace without expanding it; compares the replay's wall time with
 * the original's. In one JVM or over TCP ({@code --transport tcp}: one process per host, {@link TraceReplay#main});
 * the layout flags shape the job (its rank count is the trace's). A trace that records its run's conditions
 * ({@link RunConditions}) gives the defaults of the flags not given: the replay runs as the original ran, and says
 * which conditions a flag changed. An MPI program's trace ({@code mpirun --trace}) is replayed on MPI itself under
 * {@code mpirun} ({@link MpiTraceReplay}).
 */
@Command(name = "replay", mixinStandardHelpOptions = true,
        description = "Re-issue every call of a trace (run --trace FILE) on a job of the same rank count, waiting the "
                + "compute deltas, and compare the wall time with the original run's; an MPI program's trace (mpirun "
                + "--trace) is re-issued on MPI under mpirun; --json writes eventspace.trace-replay/1. "
                + "The original's conditions recorded in the trace (transport, hosts, clusters, tree, collectors, --poll, "
                + "--bind-to, --socket-buffer) are the defaults of the flags not given; the output names any that differ.")
final class TraceReplayCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "A trace file, eventspace.trace/1 to /3 (run --trace or mpirun --trace).")
    Path file;

    @Mixin
    LayoutOptions layout = new LayoutOptions();

    @Option(names = "--compute", description = "How compute deltas are emulated: spin (busy-wait on the clock) or sleep "
            + "(park). Default: ${DEFAULT-VALUE}.", defaultValue = "spin")
    String compute = "spin";

    @Option(names = "--timeout", description = "Seconds a collective waits for a missing rank (an MPI trace's replay: "
            + "seconds the whole replay may take; unless given, 60 + 3 × the trace's time by its mean deltas). "
            + "Default: ${DEFAULT-VALUE}.",
            defaultValue = "60")
    double timeoutSeconds = 60;

    // A TCP allreduce's cost depends on where the host processes run and how a hop waits for a frame: to compare with
    // the original, a replay runs as the original ran (run --poll, --bind-to, --socket-buffer; the same defaults).
    @Option(names = "--poll", description = "TCP hops: spin, yield, block or auto, as the original run's --poll. Default: the original's (recorded in the "
            + "trace), else ${DEFAULT-VALUE}.",
            defaultValue = "auto")
    String poll = "auto";

    @Option(names = "--bind-to", paramLabel = "none|core", description = "TCP host processes: none or core (host h on CPU h mod "
            + "cpus; needs taskset), as the original run's --bind-to. Default: the original's (recorded in the trace), else "
            + "${DEFAULT-VALUE}.", defaultValue = "none")
    String bind = "none";

    @Option(names = "--socket-buffer", description = "SO_SNDBUF and SO_RCVBUF of every TCP hop in bytes, as the original run's; "
            + "0 keeps the OS default. Default: the original's (recorded in the trace), else ${DEFAULT-VALUE}.", defaultValue = "0")
    int socketBufferBytes;

    @Option(names = "--json", description = "Write eventspace.trace-replay/1 (replay_wall_s, original_wall_s, error_pct).")
    Path json;

    // A traced run pays its recorder on every call; a replay recorded the same way pays it too, so the two compare like
    // with like (ScalaTrace measured application and replay under the same instrumentation).
    @Option(names = "--record", paramLabel = "OUT", description = "Record the replay's own calls into a trace file OUT, as "
            + "run --trace records a program (the original's time encoding): the replay then pays the recorder the "
            + "traced original paid, and OUT can be read like any trace (trace show, trace stats).")
    Path record;

    /** The default of {@code --max-calls}: about a minute of re-issued calls on this machine's in-JVM transport. */
    static final long DEFAULT_MAX_CALLS = 100_000_000;

    @Option(names = "--max-calls", paramLabel = "N", description = "Refuse (exit 2) a trace whose replay would re-issue "
            + "more than N calls over all ranks (its loops' iterations times their calls, counted from the trace before "
            + "anything runs: a few bytes of trace can hold a loop of 2^62 iterations). Default: ${DEFAULT-VALUE}.",
            defaultValue = "" + DEFAULT_MAX_CALLS)
    long maxCalls = DEFAULT_MAX_CALLS;

    // An MPI program's trace (mpirun --trace) is replayed on MPI itself: es_replay under the system's launcher.
    @Option(names = "--mpi", paramLabel = "IMPL", description = "An MPI trace's replay: openmpi, mpich or auto (the "
            + "launcher's). Default: ${DEFAULT-VALUE}.", defaultValue = "auto")
    String mpi = "auto";

    @Option(names = "--mpirun", description = "An MPI trace's replay: the system's mpirun or mpiexec. Default: mpirun, or "
            + "--mpi's launcher.")
    String mpirun;

    @Option(names = "--mpicc", description = "An MPI trace's replay: builds the replayer on first use; it must belong to "
            + "the launcher's MPI. Default: the mpicc beside the launcher.")
    String mpicc;

    @Option(names = "--mpirun-arg", paramLabel = "ARG", description = "An MPI trace's replay: one more argument for "
            + "mpirun, before the replayer (repeat it: --mpirun-arg --mca --mpirun-arg btl --mpirun-arg self,vader).")
    java.util.List<String> mpirunArgs = new java.util.ArrayList<>();

    @Override
    public Integer call() throws IOException {
        Replay.Compute mode = switch (compute) {
            case "spin" -> Replay.Compute.SPIN;
            case "sleep" -> Replay.Compute.SLEEP;
            default -> throw new UsageError("--compute must be spin or sleep, got " + compute);
        };
        PrintWriter out = spec.commandLine().getOut();
        TraceFile.Recorded recorded = TraceFileCommands.readRecorded(file, spec.commandLine().getErr(), "replay");
        if (recorded == null) {
            return EventSpaceCommand.EXIT_FAILURE;
        }
        Trace trace = recorded.trace();
        RunConditions original = recorded.conditions();
        boolean mpiTrace = MpiReplayProgram.isMpi(trace);
        if (mpiTrace) {
            for (String flag : new String[] {"--transport", "--poll", "--bind-to", "--socket-buffer"}) {
                if (spec.commandLine().getParseResult().hasMatchedOption(flag)) {
                    throw new UsageError(flag + ": an MPI program's trace is replayed on MPI under mpirun, not on our transports");
                }
            }
            if (mode != Replay.Compute.SPIN) {
                throw new UsageError("--compute " + compute + ": the MPI replayer waits compute deltas by spinning only");
            }
            if (record != null) {
                throw new UsageError("--record: an MPI program's trace is replayed by es_replay under mpirun, which does not record");
            }
        } else {
            try {
                Replay.checkReplayable(trace);
            } catch (IllegalArgumentException e) {
                throw new UsageError(file + ": " + e.getMessage());
            }
        }
        if (spec.commandLine().getParseResult().hasMatchedOption("--ranks") && layout.ranks != trace.ranks()) {
            throw new UsageError("--ranks " + layout.ranks + ": the trace is of " + trace.ranks() + " ranks; a replay runs as many");
        }
        layout.ranks = trace.ranks();
        List<String> taken = original == null ? List.of() : takeConditions(original, trace.ranks());
        if (maxCalls < 1) {
            throw new UsageError("--max-calls must be >= 1, got " + maxCalls);
        }
        Replay.Plan plan = Replay.plan(trace);
        String size = (plan.calls() == Long.MAX_VALUE ? "more than " + Long.MAX_VALUE : Long.toString(plan.calls()))
                + " calls on " + trace.ranks() + " ranks, about " + duration(plan.longestNanos())
                + " by the trace's mean times";
        if (plan.calls() > maxCalls) {
            throw new UsageError("trace replay: " + file + ": a replay would re-issue " + size + ", over --max-calls "
                    + maxCalls + " (raise it to replay this trace)");
        }
        spec.commandLine().getErr().println("eventspace: trace replay: " + file + ": " + size);
        spec.commandLine().getErr().flush();
        if (mpiTrace) {
            // the whole replay's bound: given, or the trace's own time by its means with room for a loaded machine
            double bound = spec.commandLine().getParseResult().hasMatchedOption("--timeout") ? timeoutSeconds
                    : 60 + 3 * plan.longestNanos() / 1e9;
            return new MpiTraceReplay(spec, file, trace, json).run(mpi, mpirun, mpicc, mpirunArgs, bound);
        }
        if (json != null) {
            OutputFiles.checkWritable(json, "--json");
        }
        if (record != null) {
            OutputFiles.checkWritable(record, "--record");
        }
        if (socketBufferBytes < 0) {
            throw new UsageError("--socket-buffer must be >= 0 bytes (0 keeps the OS default), got " + socketBufferBytes);
        }
        JobConfig job;
        try {
            PollMode pollMode;
            try {
                pollMode = PollMode.parse(poll);
            } catch (IllegalArgumentException e) {
                throw new UsageError("--poll: " + e.getMessage());
            }
            CpuBinding binding = RunOptions.binding(bind);
            job = layout.toJob(RunOptions.seconds("--timeout", timeoutSeconds, 0.001, JobConfig.MAX_TIMEOUT.toSeconds()),
                    pollMode, socketBufferBytes, null).withBinding(binding);
            if (binding != CpuBinding.NONE && job.transport() != JobTransport.TCP) {
                throw new UsageError("--bind-to " + bind + " binds host processes: it needs --transport tcp");
            }
        } catch (UsageError e) {
            // Name the condition the error is about where the message names its flag, else every one taken.
            List<String> about = taken.stream().filter(t -> e.getMessage().contains(t.substring(0, t.indexOf(' ')))).toList();
            throw taken.isEmpty() ? e : new UsageError(e.getMessage() + " (" + String.join(", ", about.isEmpty() ? taken : about)
                    + " taken from " + file + "'s recorded conditions; give the flag to override)");
        }
        List<String> differences = original == null ? List.of() : original.differences(TraceReplay.conditionsOf(job));
        TraceReplay.Result result = TraceReplay.run(job, trace, file, mode, Duration.ofHours(1),
                record == null ? null : TraceConfig.of(trace.encoding()));
        boolean ok = result.errors().isEmpty();
        for (String error : result.errors()) {
            spec.commandLine().getErr().println("eventspace: trace replay: " + error);
        }
        long calls = result.calls();
        // A replay that failed (a host lost, a call refused) or re-issued fewer calls than recorded has no wall time to
        // set against the original's: its figures would be of a different, shorter run (it printed "error -100 %").
        boolean complete = ok && calls == trace.eventsRecorded();
        long replayWall = result.wallNanos();
        double replayS = replayWall / 1e9;
        double originalS = trace.wallNanos() / 1e9;
        double errorPct = originalS > 0 ? (replayS - originalS) / originalS * 100 : 0;
        out.printf("replay of %s: %d ranks over %s, %d calls re-issued (recorded %d), compute %s%n", file, trace.ranks(),
                job.transport().label(), calls, trace.eventsRecorded(), compute);
        if (original == null) {
            out.printf("  conditions: the trace does not record the original's; the replay ran on %s%n",
                    TraceReplay.conditionsOf(job).summary());
        } else if (differences.isEmpty()) {
            out.printf("  conditions: as the original ran (%s)%n", original.summary());
        } else {
            out.printf("  conditions DIFFER from the original's: %s; the errors below compare different runs%n",
                    String.join(", ", differences));
        }
        if (complete) {
            out.printf("  wall time: replay %.3f s, original %.3f s, error %+.1f %%%n", replayS, originalS, errorPct);
        } else {
            out.printf("  wall time: not compared, the replay did not complete (%d of %d calls re-issued); original %.3f s%n",
                    calls, trace.eventsRecorded(), originalS);
        }
        boolean timed = complete && trace.timedNanos() >= 0 && result.timedNanos() >= 0;
        double timedReplayS = result.timedNanos() / 1e9;
        double timedOriginalS = trace.timedNanos() / 1e9;
        double timedErrorPct = timed && timedOriginalS > 0 ? (timedReplayS - timedOriginalS) / timedOriginalS * 100 : 0;
        if (timed) {
            out.printf("  timed phase (after the warm-up calls, re-issued first): replay %.3f s, original %.3f s, error %+.1f %%%n",
                    timedReplayS, timedOriginalS, timedErrorPct);
        }
        long recordedBytes = -1;
        if (record != null && result.recorded() != null) {
            // Written whenever every host sent its part, even if the replay failed (its trace shows where it stopped);
            // with a host lost there is no whole trace to write, and the errors above name the host.
            Trace replayTrace = result.recorded();
            long[] bytes = {0};
            OutputFiles.write(record, "--record", f -> bytes[0] = TraceFile.write(replayTrace, TraceReplay.conditionsOf(job), f));
            recordedBytes = bytes[0];
            out.printf("  recorded: %s, %d bytes, %d calls%s%n", record, recordedBytes, replayTrace.eventsRecorded(),
                    replayTrace.timedNanos() >= 0 ? String.format(java.util.Locale.ROOT, ", timed phase as its recorder "
                            + "measured it %.3f s", replayTrace.timedNanos() / 1e9) : "");
        } else if (record != null) {
            spec.commandLine().getErr().println("eventspace: trace replay: --record " + record + ": no trace of the replay "
                    + "arrived (a host sent none)");
            ok = false;
        }
        out.flush();
        if (json != null) {
            ObjectMapper mapper = Json.mapper();
            ObjectNode o = mapper.createObjectNode();
            o.put("schema", "eventspace.trace-replay/1");
            o.put("trace", file.toString());
            o.put("ranks", trace.ranks());
            o.put("transport", job.transport().label());
            o.put("compute", compute);
            o.put("time_encoding", trace.encoding().fileName());
            o.put("calls", calls);
            o.put("complete", complete);
            o.put("original_wall_s", originalS);
            o.put("original_conditions_recorded", original != null);
            differences.forEach(o.putArray("conditions_differ")::add);
            if (complete) {
                o.put("replay_wall_s", replayS);
                o.put("error_pct", errorPct);
            }
            if (timed) {
                o.put("timed_replay_s", timedReplayS);
                o.put("timed_original_s", timedOriginalS);
                o.put("timed_error_pct", timedErrorPct);
            }
            if (recordedBytes >= 0) {
                o.put("recorded", record.toString());
                o.put("recorded_bytes", recordedBytes);
            }
            OutputFiles.write(json, "--json", file -> Json.pretty().writeValue(file.toFile(), o));
        }
        if (ok && calls != trace.eventsRecorded()) {
            spec.commandLine().getErr().println("eventspace: trace replay: re-issued " + calls + " calls, the trace recorded "
                    + trace.eventsRecorded());
            ok = false;
        }
        return ok ? EventSpaceCommand.EXIT_OK : EventSpaceCommand.EXIT_FAILURE;
    }

    /**
     * Takes the original run's conditions as the defaults of the flags not given (a flag still overrides): its hosts,
     * clusters and tree (when its pathmap was the shortcut one), transport, collectors, polling, binding and socket
     * buffers. A replay's error only means something under the original's conditions: two ranks in one host process
     * reduce in a few µs where the original's two host processes took tens (docs/TRACES.md). Returns the flags taken.
     */
    private List<String> takeConditions(RunConditions c, int ranks) {
        CommandLine.ParseResult given = spec.commandLine().getParseResult();
        List<String> taken = new java.util.ArrayList<>();
        if (c.layout().equals(RunConditions.SHORTCUT) && c.ranks() == ranks && !given.hasMatchedOption("--config")) {
            if (!given.hasMatchedOption("--hosts")) {
                layout.hosts = c.hosts();
                taken.add("--hosts " + c.hosts());
            }
            if (!given.hasMatchedOption("--clusters")) {
                layout.clusters = c.clusters();
                taken.add("--clusters " + c.clusters());
            }
            if (!given.hasMatchedOption("--tree")) {
                layout.tree = c.tree();
                taken.add("--tree " + c.tree());
            }
        }
        if (!given.hasMatchedOption("--transport")) {
            layout.transport = c.transport();
            taken.add("--transport " + c.transport());
        }
        if (!given.hasMatchedOption("--collectors")) {
            layout.collectors = c.collectors() ? "on" : "off";
            taken.add("--collectors " + layout.collectors);
        }
        if (!given.hasMatchedOption("--poll")) {
            poll = c.poll();
            taken.add("--poll " + c.poll());
        }
        // A binding binds host processes: only where the replay has them (a --transport jvm given overrides tcp).
        if (!given.hasMatchedOption("--bind-to") && layout.transport.equals(c.transport())) {
            bind = c.bindTo();
            taken.add("--bind-to " + c.bindTo());
        }
        if (!given.hasMatchedOption("--socket-buffer")) {
            socketBufferBytes = c.socketBufferBytes();
            taken.add("--socket-buffer " + c.socketBufferBytes());
        }
        return taken;
    }

    /** {@code nanos} for people: 0.35 s, 12 min, 3.2 h, 41 days, 1.5e+11 years. */
    static String duration(double nanos) {
        double s = nanos / 1e9;
        if (s < 120) {
            return String.format(java.util.Locale.ROOT, "%.2f s", s);
        }
        if (s < 7200) {
            return String.format(java.util.Locale.ROOT, "%.0f min", s / 60);
        }
        if (s < 3 * 86_400) {
            return String.format(java.util.Locale.ROOT, "%.1f h", s / 3600);
        }
        if (s < 365.25 * 86_400) {
            return String.format(java.util.Locale.ROOT, "%.0f days", s / 86_400);
        }
        return String.format(java.util.Locale.ROOT, "%.3g years", s / (365.25 * 86_400));
    }
}
