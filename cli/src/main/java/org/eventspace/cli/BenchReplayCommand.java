package org.eventspace.cli;

import java.util.concurrent.Callable;

import org.eventspace.run.Workload;
import org.eventspace.bench.ReplayAccuracy;
import org.eventspace.run.RunConfig;
import org.eventspace.trace.Replay;
import org.eventspace.trace.TimeEncoding;
import org.eventspace.trace.TraceConfig;
import org.eventspace.base.json.Json;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code eventspace bench replay}: pairs of a traced run and the replay of its trace; the median error. */
@Command(name = "replay", mixinStandardHelpOptions = true,
        description = "Replay accuracy: --pairs times, run the benchmark unrecorded and with --trace, then replay the trace "
                + "recorded as the original was (trace replay --record) and unrecorded (same transport); print the median "
                + "error (replay − original) / original with both recorded and with neither, what recording cost each, "
                + "and how far two originals differ. --json writes eventspace.bench-replay/2.")
final class BenchReplayCommand implements Callable<Integer> {
    @Option(names = "--benchmark", defaultValue = "gsum", description = "gsum, compute-gsum or sor. Default: ${DEFAULT-VALUE}.")
    String benchmark;

    @Option(names = "--pairs", defaultValue = "5", description = "Pairs: an unrecorded and a traced run, each pair followed by its "
            + "two replays. Default: ${DEFAULT-VALUE}.")
    int pairs;

    @Option(names = "--time-encoding", defaultValue = "hist", description = "stats, hist or path. Default: ${DEFAULT-VALUE}.")
    String timeEncoding;

    @Option(names = "--compute", defaultValue = "spin", description = "How the replay waits compute deltas: spin or sleep. "
            + "Default: ${DEFAULT-VALUE}.")
    String compute;

    @Mixin
    RunOptions options;

    @Override
    public Integer call() throws Exception {
        Workload kind;
        try {
            kind = Workload.parse(benchmark);
        } catch (IllegalArgumentException e) {
            throw new UsageError("--benchmark: " + e.getMessage());
        }
        if (kind == Workload.GSUM_INTERLEAVED || kind == Workload.PINGPONG) {
            throw new UsageError("--benchmark must be gsum, compute-gsum or sor, got " + benchmark);
        }
        if (pairs < 1) {
            throw new UsageError("--pairs must be >= 1, got " + pairs);
        }
        Replay.Compute mode = switch (compute) {
            case "spin" -> Replay.Compute.SPIN;
            case "sleep" -> Replay.Compute.SLEEP;
            default -> throw new UsageError("--compute must be spin or sleep, got " + compute);
        };
        TraceConfig traceConfig;
        try {
            traceConfig = TraceConfig.of(TimeEncoding.parse(timeEncoding));
        } catch (IllegalArgumentException e) {
            throw new UsageError("--time-encoding: " + e.getMessage());
        }
        RunConfig config = options.toConfig(kind);
        ObjectMapper mapper = Json.mapper();
        ObjectNode report = ReplayAccuracy.run(config, traceConfig, mode, pairs, mapper, System.err::println);
        System.out.print(ReplayAccuracy.summary(report));
        if (options.json != null) {
            Json.pretty().writeValue(options.json.toFile(), report);
        }
        return report.path("result_ok").asBoolean() ? EventSpaceCommand.EXIT_OK : EventSpaceCommand.EXIT_FAILURE;
    }
}
