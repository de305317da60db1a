package org.eventspace.run;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

import org.eventspace.comm.Comm;
import org.eventspace.job.MonitoredJob;
import org.eventspace.job.RankThreads;
import org.eventspace.trace.TraceConfig;
import org.eventspace.trace.TraceFile;
import org.eventspace.base.json.Json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The built-in workloads ({@link Workload}: gsum, compute-gsum, pingpong, sor, alltoall) as a {@link HostWork}: every
 * local rank runs {@link RankWorkloads#run} on its {@code Comm}, optionally through a decorator (a trace recorder, or the
 * alternation between a recorder and the bare {@code Comm} of the interleaved recording overhead). A host reports
 * {@code {"ranks": [rank results]}}, and with a trace its ranks' merged partial trace ({@code trace}) or, for the
 * interleaved recording, the events its recorders took ({@code events_recorded}).
 */
final class WorkloadRanks implements HostWork<List<RankResult>> {
    /** This work's kind among the host processes' arguments. */
    static final String KIND = "workload";
    private static final ObjectMapper JSON = Json.mapper();

    private final RunConfig config;
    /** A trace configuration as the host processes get it ({@link TracedRun#encodeConfig}), or null. */
    private final String traceArgument;
    /** {@link #traceArgument} decoded once: how the ranks are recorded (null: not), and the tree a recorder alternates on. */
    private final TraceConfig traceConfig;
    private final int alternatingTree;
    /** In one JVM, what each rank calls through; null over TCP (made from {@link #traceArgument} there). */
    private final BiFunction<Integer, Comm, Comm> decorate;

    /** @throws IllegalArgumentException for a malformed {@code traceArgument}. */
    private WorkloadRanks(RunConfig config, String traceArgument, BiFunction<Integer, Comm, Comm> decorate) {
        this.config = config;
        this.traceArgument = traceArgument;
        this.traceConfig = traceArgument == null ? null : TracedRun.decodeArgument(traceArgument);
        this.alternatingTree = traceArgument == null ? -1 : TracedRun.alternatingTree(traceArgument);
        this.decorate = decorate;
    }

    /** The ranks call their own {@code Comm}. */
    static WorkloadRanks plain(RunConfig config) {
        return new WorkloadRanks(config, null, null);
    }

    /** In one JVM: each rank calls through what {@code decorate} makes of its {@code Comm}. */
    static WorkloadRanks decorated(RunConfig config, BiFunction<Integer, Comm, Comm> decorate) {
        return new WorkloadRanks(config, null, decorate);
    }

    /** Over TCP: every host records its ranks as {@code traceArgument} says ({@link TracedRun}). */
    static WorkloadRanks traced(RunConfig config, String traceArgument) {
        return new WorkloadRanks(config, traceArgument, null);
    }

    /** In a host process: the work its arguments after the run configuration name ({@link #arguments()}). */
    static WorkloadRanks decode(RunConfig config, List<String> arguments) {
        if (arguments.size() > 2) {
            throw new IllegalArgumentException("expected " + KIND + " [<trace configuration>], got " + arguments);
        }
        if (arguments.size() == 2) {
            // Decoded here, so a malformed argument is a usage error (exit 2) before the job starts.
            return traced(config, arguments.get(1));
        }
        return plain(config);
    }

    @Override
    public List<String> arguments() {
        if (decorate != null) {
            throw new UnsupportedOperationException("a decorated workload runs in one JVM only");
        }
        return traceArgument == null ? List.of(KIND) : List.of(KIND, traceArgument);
    }

    @Override
    public Part<List<RankResult>> run(MonitoredJob job) {
        TracedRun.Recorders recorders = traceConfig == null ? null : new TracedRun.Recorders(config.ranks(), traceConfig);
        List<RankResult> results;
        if (decorate != null) {
            results = runRanks(job, config, decorate);
        } else if (recorders == null) {
            results = runRanks(job, config, (rank, comm) -> comm);
        } else if (alternatingTree < 0) {
            results = runRanks(job, config, recorders::decorate);
        } else {
            // The interleaved recording overhead: a rank's calls alternate between a recorder and the bare Comm.
            results = runRanks(job, config, (rank, comm) -> {
                Comm traced = recorders.decorate(rank, comm);
                return alternatingTree == 0 ? new AlternatingComm(traced, comm) : new AlternatingComm(comm, traced);
            });
        }
        return new Part<>(results, () -> encode(results, recorders, job), results.stream().allMatch(RankResult::resultOk));
    }

    /** This host's part: its ranks' results, and with a recorder its partial trace or the events it recorded. */
    private ObjectNode encode(List<RankResult> results, TracedRun.Recorders recorders, MonitoredJob job) {
        ObjectNode program = encodeRanks(results);
        if (recorders != null && alternatingTree >= 0) {
            program.put("events_recorded", recorders.recorded(job.localRanks()));
        } else if (recorders != null) {
            // This host's ranks merged into one partial trace (after the timed loop, as ScalaTrace merges at
            // finalize); the launching side merges the hosts' (TracedRun).
            program.set("trace", TraceFile.toJsonPartial(recorders.merged(job.localRanks())));
        }
        return program;
    }

    /** Runs the workload on every local rank of {@code job}; a rank that failed or was late is reported as such. */
    private static List<RankResult> runRanks(MonitoredJob job, RunConfig config, BiFunction<Integer, Comm, Comm> decorate) {
        // Where rank 0 runs, a run that lasts more than a few seconds says on stderr what it is doing.
        Progress progress = job.localRanks().contains(0)
                ? Progress.of(config.benchmark().label() + ", " + config.ranks() + " ranks") : Progress.NONE;
        List<RankThreads.Outcome<RankResult>> outcomes;
        try (Progress.Watch watching = progress.watch()) {
            outcomes = job.runRanks(rank -> RankWorkloads.run(decorate.apply(rank, job.comm(rank)), config, job.timedWindow(),
                    progress), config.rankLimit());
        }
        List<RankResult> results = new ArrayList<>();
        for (RankThreads.Outcome<RankResult> o : outcomes) {
            results.add(o.ok() ? o.value() : RankResult.failed(o.rank(), o.error()));
        }
        return results;
    }

    /** What a host reports about its ranks: {@code {"ranks": [rank results]}}. */
    static ObjectNode encodeRanks(List<RankResult> ranks) {
        ObjectNode program = JSON.createObjectNode();
        ArrayNode list = program.putArray("ranks");
        ranks.forEach(r -> list.add(r.toJson(JSON)));
        return program;
    }

    /** @throws IllegalArgumentException when {@code program} is not {@code {"ranks": [...]}}. */
    static List<RankResult> decodeRanks(JsonNode program) {
        if (program == null || !program.path("ranks").isArray()) {
            throw new IllegalArgumentException("expected {\"ranks\": [...]}");
        }
        List<RankResult> ranks = new ArrayList<>();
        program.path("ranks").forEach(r -> ranks.add(RankResult.fromJson(r)));
        return ranks;
    }
}
