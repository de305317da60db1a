package org.eventspace.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import org.eventspace.bench.OffloadBenchmark;
import org.eventspace.scope.GatherMode;
import org.eventspace.base.json.Json;

import com.fasterxml.jackson.databind.ObjectMapper;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code eventspace bench offload}: ToM §5.2's offload benchmark over a sweep of configurations. */
@Command(name = "offload", mixinStandardHelpOptions = true,
        description = "ToM's offload benchmark (§5.2, Figure 8): ranks alternate work(period), an offload of a profile of "
                + "E events into an event scope, and a barrier, while host 0 pulls the scope back to back; prints "
                + "avg_offload_us (mean over rounds of the worst rank's offload + barrier) for every combination of the "
                + "comma-separated values given. --json writes eventspace.bench-offload/1.")
final class BenchOffloadCommand implements Callable<Integer> {
    @Option(names = "--ranks", split = ",", defaultValue = "64", description = "Ranks (threads). Default: ${DEFAULT-VALUE}.")
    List<Integer> ranks;

    @Option(names = "--hosts", defaultValue = "0",
            description = "Simulated hosts, the scope's leaves; 0: one per 4 ranks. Default: ${DEFAULT-VALUE}.")
    int hosts;

    @Option(names = "--fanout", split = ",", defaultValue = "2,4,8", description = "The scope's fan-out (hier:F). Default: ${DEFAULT-VALUE}.")
    List<Integer> fanouts;

    @Option(names = "--period-us", split = ",", defaultValue = "100,1000,10000",
            description = "Work between offloads in µs (ToM's profile period). Default: ${DEFAULT-VALUE}.")
    List<Integer> periods;

    @Option(names = "--events", defaultValue = "20", description = "Events per profile. Default: ${DEFAULT-VALUE}.")
    int events;

    @Option(names = "--reduce", split = ",", defaultValue = "none,hist",
            description = "none (concatenate) or hist (ToM's 3-phase histogram). Default: ${DEFAULT-VALUE}.")
    List<String> reduces;

    @Option(names = "--bins", defaultValue = "16", description = "Histogram bins with --reduce hist. Default: ${DEFAULT-VALUE}.")
    int bins;

    @Option(names = "--gather", defaultValue = "seq", description = "seq or par:N. Default: ${DEFAULT-VALUE}.")
    String gather;

    @Option(names = "--iterations", defaultValue = "200", description = "Timed rounds per configuration. Default: ${DEFAULT-VALUE}.")
    int iterations;

    @Option(names = "--buffer-profiles", defaultValue = "2",
            description = "Profiles per rank a host's push buffer holds before offloads block. Default: ${DEFAULT-VALUE}.")
    int bufferProfiles;

    @Option(names = "--timeout", defaultValue = "60", description = "Seconds anything may wait. Default: ${DEFAULT-VALUE}.")
    double timeoutSeconds;

    @Option(names = "--work", defaultValue = "sleep", description = "How a rank works between offloads: sleep (lets "
            + "the scope run when ranks outnumber cores) or spin (ToM's busy loop, for a core per rank). Default: ${DEFAULT-VALUE}.")
    String work;

    @Option(names = "--repeats", defaultValue = "1",
            description = "Sweeps, one after the other; each configuration reports the median over them. Default: ${DEFAULT-VALUE}.")
    int repeats;

    @Option(names = "--json", description = "Write the eventspace.bench-offload/1 report to this file.")
    Path json;

    @Override
    public Integer call() throws Exception {
        if (repeats < 1) {
            throw new UsageError("--repeats must be >= 1, got " + repeats);
        }
        if (!work.equals("sleep") && !work.equals("spin")) {
            throw new UsageError("--work must be sleep or spin, got " + work);
        }
        List<OffloadBenchmark.Config> configs = new ArrayList<>();
        for (int r : ranks) {
            for (int f : fanouts) {
                for (String reduce : reduces) {
                    for (int p : periods) {
                        try {
                            configs.add(new OffloadBenchmark.Config(r, hosts > 0 ? hosts : Math.max(1, r / 4),
                                    f, p, events, reduce, bins, gather, iterations, bufferProfiles,
                                    Duration.ofMillis((long) (timeoutSeconds * 1000)), work.equals("spin")));
                        } catch (IllegalArgumentException e) {
                            throw new UsageError("bench offload: " + e.getMessage());
                        }
                    }
                }
            }
        }
        try {
            GatherMode.parse(gather);
        } catch (IllegalArgumentException e) {
            throw new UsageError("--gather: " + e.getMessage());
        }
        OffloadBenchmark.Sweeps sweeps = OffloadBenchmark.sweep(configs, repeats, System.err::println);
        List<OffloadBenchmark.Result> results = sweeps.medians();
        System.out.print(OffloadBenchmark.summary(results));
        if (json != null) {
            ObjectMapper mapper = Json.mapper();
            Json.pretty().writeValue(json.toFile(), OffloadBenchmark.toJson(results, sweeps.runs(), mapper));
        }
        return EventSpaceCommand.EXIT_OK;
    }
}
