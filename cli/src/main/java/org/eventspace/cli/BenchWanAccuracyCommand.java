package org.eventspace.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import org.eventspace.bench.WanAccuracy;
import org.eventspace.wan.WanFile;
import org.eventspace.base.json.Json;

import com.fasterxml.jackson.databind.ObjectMapper;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code eventspace bench wan-accuracy}: Longcut's emulated links against their configuration (dissertation §8.1 §V). */
@Command(name = "wan-accuracy", mixinStandardHelpOptions = true,
        description = "Longcut's accuracy: allreduce ping-pongs of each size between two emulated sites through their "
                + "gateways, with K connections through the gateway pair, each with the emulation and without (the LAN "
                + "baseline); prints per (K, size) the configured and modelled two-way time, the emulated one (with minus "
                + "without), the error and whether it is within max(5 %%, 50 µs). --json writes "
                + "eventspace.bench-wan-accuracy/1.")
final class BenchWanAccuracyCommand implements Callable<Integer> {
    @Option(names = "--wan", paramLabel = "FILE", description = "Link file (docs/WAN-FORMAT.md); its first two sites "
            + "and both links between them are used. Default: examples/wan/aalborg-odense.wan of this installation.")
    Path wan;

    @Option(names = "--sizes", split = ",", defaultValue = "8,64,512,4096,16384,65536",
            description = "Message sizes in bytes (multiples of 8). Default: ${DEFAULT-VALUE}.")
    List<Integer> sizes;

    @Option(names = "--connections", split = ",", defaultValue = "1,40",
            description = "Connections through the gateway pair (ranks on the second site). Default: ${DEFAULT-VALUE}.")
    List<Integer> connections;

    @Option(names = "--iterations", defaultValue = "10", description = "Timed iterations per row. Default: ${DEFAULT-VALUE}.")
    int iterations;

    @Option(names = "--warmup", defaultValue = "2", description = "Untimed iterations first. Default: ${DEFAULT-VALUE}.")
    int warmup;

    @Option(names = "--spin-us", defaultValue = "200", description = "How long before a message's due time a gateway's "
            + "scheduler stops parking and spins. Default: ${DEFAULT-VALUE}.")
    long spinUs;

    @Option(names = "--json", description = "Write the eventspace.bench-wan-accuracy/1 report to this file.")
    Path json;

    @Override
    public Integer call() throws Exception {
        Path file = wan != null ? wan
                : Path.of(System.getenv().getOrDefault("ES_HOME", ".")).resolve("examples/wan/aalborg-odense.wan");
        if (json != null) {
            OutputFiles.checkWritable(json, "--json");
        }
        WanAccuracy.Config config;
        try {
            config = new WanAccuracy.Config(WanFile.read(file), file, sizes, connections, iterations, warmup,
                    spinUs * 1000);
        } catch (IllegalArgumentException e) {
            throw new UsageError("bench wan-accuracy: " + e.getMessage());
        }
        List<WanAccuracy.Row> rows = WanAccuracy.run(config, System.out);
        boolean all = rows.stream().allMatch(WanAccuracy.Row::withinBar);
        System.out.println(all ? "every row within max(5 %, 50 µs) of the model"
                : rows.stream().filter(r -> !r.withinBar()).count() + " of " + rows.size() + " rows outside max(5 %, 50 µs)");
        if (json != null) {
            ObjectMapper mapper = Json.mapper();
            Json.pretty().writeValue(json.toFile(), WanAccuracy.toJson(config, rows, mapper));
        }
        return EventSpaceCommand.EXIT_OK;
    }
}
