package org.eventspace.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import org.eventspace.run.Workload;
import org.eventspace.run.RunConfig;
import org.eventspace.wan.WanFile;
import org.eventspace.bench.WanCompression;
import org.eventspace.scope.filter.EdgeCodec;
import org.eventspace.base.json.Json;

import com.fasterxml.jackson.databind.ObjectMapper;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code eventspace bench wan-compression}: the monitors' results of a real multi-cluster run, captured as each
 * site's gather sends them through its gateway, replayed through every edge codec ({@link
 * org.eventspace.bench.WanCompression}).
 */
@Command(name = "wan-compression", mixinStandardHelpOptions = true,
        description = "Runs BENCHMARK with run's flags (give --wan FILE --clusters C --monitor loadbalance,stats), "
                + "captures per scope round the newest-results packet each site sends over its WAN link to the "
                + "front-end's site, and replays it through each codec (none, deflate, cbc, cbc+deflate): bytes, ratio, "
                + "encode and decode µs, and the emulated link's serialisation and transfer time per round. --json "
                + "writes eventspace.bench-wan-compression/1 (instead of run's report).")
final class BenchWanCompressionCommand implements Callable<Integer> {
    @picocli.CommandLine.Parameters(index = "0", paramLabel = "BENCHMARK", defaultValue = "gsum",
            description = "As for run. Default: ${DEFAULT-VALUE}.")
    String benchmark;

    @Mixin
    RunOptions options;

    @Option(names = "--codecs", split = ",", defaultValue = "none,deflate,cbc,cbc+deflate",
            description = "Codecs to replay (EdgeCodec text). Default: ${DEFAULT-VALUE}.")
    List<String> codecs;

    @Option(names = "--passes", defaultValue = "5", description = "Replays per codec; the median by CPU time is kept. "
            + "Default: ${DEFAULT-VALUE}.")
    int passes;

    @Override
    public Integer call() throws Exception {
        if (options.layout.wan == null) {
            throw new UsageError("bench wan-compression needs --wan FILE (and --clusters matching its sites)");
        }
        if (passes < 1) {
            throw new UsageError("--passes must be >= 1, got " + passes);
        }
        List<EdgeCodec> parsed = new ArrayList<>();
        for (String c : codecs) {
            try {
                parsed.add(EdgeCodec.parse(c));
            } catch (IllegalArgumentException e) {
                throw new UsageError("--codecs: " + e.getMessage());
            }
        }
        Path out = options.json;
        options.json = null;
        RunConfig config = options.toConfig(Workload.parse(benchmark));
        if (!config.monitoring().enabled()) {
            throw new UsageError("bench wan-compression measures the monitors' results: give --monitor");
        }
        var layout = WanFile.read(options.layout.wan);
        var edges = WanCompression.capture(config, layout);
        List<WanCompression.Figures> figures = new ArrayList<>();
        for (var codec : parsed) {
            figures.add(WanCompression.measure(edges, codec, passes));
        }
        for (var e : edges) {
            System.out.printf(java.util.Locale.ROOT, "site %s → front-end over %s: %d rounds, %d bytes raw%n", e.site(),
                    e.link().name(), e.packets().size(), e.packets().stream().mapToLong(b -> b.length).sum());
        }
        System.out.print(WanCompression.table(figures));
        if (out != null) {
            ObjectMapper mapper = Json.mapper();
            Json.pretty().writeValue(out.toFile(), WanCompression.json(mapper,
                    "bench wan-compression " + benchmark, edges, figures));
        }
        return EventSpaceCommand.EXIT_OK;
    }
}
