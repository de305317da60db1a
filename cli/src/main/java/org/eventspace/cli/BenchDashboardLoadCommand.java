package org.eventspace.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import org.eventspace.bench.DashboardLoad;
import org.eventspace.bench.FrontEndPlacement;
import org.eventspace.ui.DemoJob;
import org.eventspace.base.json.Json;

/** {@code eventspace bench dashboard-load}: the job's overhead with N clients polling the dashboard, interleaved. */
@Command(name = "dashboard-load", mixinStandardHelpOptions = true,
        description = "What clients polling the dashboard's API cost a monitored job: one job (the demo's compute-gsum, "
                + "both monitors, its dashboard on loopback) runs throughout while the clients poll or idle in "
                + "alternating blocks (ABBA pairs); prints the job's overhead per iteration with a 95 %% confidence "
                + "interval. Stops by itself after --warmup-s + --duration. --json writes eventspace.bench-dashboard-load/1.")
final class BenchDashboardLoadCommand implements Callable<Integer> {
    @Option(names = "--clients", defaultValue = "50", description = "HTTP clients, a thread each. Default: ${DEFAULT-VALUE}.")
    int clients;

    @Option(names = "--duration", defaultValue = "30", paramLabel = "S",
            description = "Seconds of measured blocks (half of them with the clients polling). Default: ${DEFAULT-VALUE}.")
    double durationS;

    @Option(names = "--block-s", defaultValue = "1", description = "Seconds per block. Default: ${DEFAULT-VALUE}.")
    double blockS;

    @Option(names = "--warmup-s", defaultValue = "20", description = "Seconds before the first block, the clients "
            + "polling (the JIT compiles the job's and the serving code, the monitors make their first calls). "
            + "Default: ${DEFAULT-VALUE}.")
    double warmupS;

    @Option(names = "--poll-ms", defaultValue = "500", description = "Each client's period: one GET, the next endpoint "
            + "of the API each time (the frame changes every 500 ms). Default: ${DEFAULT-VALUE}.")
    long pollMs;

    @Option(names = "--ranks", defaultValue = "8", description = "Ranks of the job. Default: ${DEFAULT-VALUE}.")
    int ranks;

    @Option(names = "--hosts", defaultValue = "4", description = "Simulated hosts of the job. Default: ${DEFAULT-VALUE}.")
    int hosts;

    @Option(names = "--endpoints", split = ",", paramLabel = "PATH",
            description = "The API paths the clients cycle through, comma-separated (what your script or page "
                    + "polls). Default: what the page reads, health, loadbalance, stats, tree, histograms?last=1, "
                    + "timemap, cost and frame.")
    List<String> endpoints;

    @Option(names = "--front-end-cpus", paramLabel = "CPUS",
            description = "Run the dashboard's threads, the clients and the JVM's JIT compiler threads on these CPUs "
                    + "(1, 2-3, 1,3) and the job's threads on the others, as a front-end host and browsers elsewhere "
                    + "would be (needs taskset). Default: all share every CPU.")
    String frontEndCpus;

    @Option(names = "--clients-at-lowest-priority", description = "The client threads lower themselves to nice 19, as "
            + "the dashboard's own threads do: they stand in for browsers on other machines, and this measures what "
            + "serving costs the job rather than what generating the load here does. Has no effect when the whole "
            + "process runs under SCHED_IDLE (chrt -i), where nice values are ignored; the report says which.")
    boolean clientsAtLowestPriority;

    @Option(names = "--json", description = "Write the eventspace.bench-dashboard-load/1 report to this file.")
    Path json;

    @Override
    public Integer call() throws Exception {
        DashboardLoad.Config config;
        try {
            config = new DashboardLoad.Config(clients, RunOptions.seconds("--duration", durationS, 0.4, 86_400),
                    RunOptions.seconds("--block-s", blockS, 0.1, 3_600), RunOptions.seconds("--warmup-s", warmupS, 0, 3_600),
                    pollMs, ranks, hosts, clientsAtLowestPriority,
                    endpoints == null ? DashboardLoad.ENDPOINTS : endpoints, frontEndCpus == null ? null
                            : FrontEndPlacement.parse(frontEndCpus, Runtime.getRuntime().availableProcessors()));
            new DemoJob.Settings(ranks, hosts, "hier:2", 0, 0, 2000, 16, 200).job().pathmap();
        } catch (IllegalArgumentException e) {
            throw new UsageError("bench dashboard-load: " + e.getMessage());
        }
        if (json != null) {
            OutputFiles.checkWritable(json, "--json");
        }
        System.err.printf(java.util.Locale.ROOT, "bench dashboard-load: %d clients, %d pairs of %.1f s blocks after %.1f s "
                + "of warm-up (about %.0f s)%n", clients, config.pairs(), blockS, warmupS,
                warmupS + config.pairs() * 2 * blockS);
        ObjectMapper mapper = Json.mapper();
        ObjectNode report = new DashboardLoad(config).run(mapper);
        System.out.print(DashboardLoad.summary(report));
        if (json != null) {
            Json.pretty().writeValue(json.toFile(), report);
        }
        return report.path("request_errors").asLong() == 0 ? EventSpaceCommand.EXIT_OK : EventSpaceCommand.EXIT_FAILURE;
    }
}
