package org.eventspace.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import org.eventspace.base.json.Json;
import org.eventspace.base.os.Executables;
import org.eventspace.bench.VerdictRates;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code eventspace bench verdict}: the verdict's false-alarm rate on balanced runs and its power on runs with one slow
 * rank, for gsum in one JVM and, with Open MPI, for {@code native/test/es_imbalance.c} ({@link VerdictRates}).
 */
@Command(name = "verdict", mixinStandardHelpOptions = true,
        description = "How often the verdict is wrong: per case N balanced runs (a culprit named is a false alarm) and N "
                + "runs with one slow rank (naming it is a hit), each share with its 95 %% Wilson interval. Cases: gsum in "
                + "one JVM over --gsum shapes, and, with mpicc and mpirun on the PATH, native/test/es_imbalance.c at "
                + "--mpi-ranks ranks. --json writes eventspace.bench-verdict/1.")
final class BenchVerdictCommand implements Callable<Integer> {
    @Option(names = "--runs", defaultValue = "5", description = "Balanced runs and slow runs per case (each). "
            + "Default: ${DEFAULT-VALUE}.")
    int runs;

    @Option(names = "--gsum", split = ",", paramLabel = "R:H:TREE:SLOW", defaultValue = "32:4:flat:14,8:2:hier:8:5",
            description = "gsum cases: RANKS:HOSTS:TREE:SLOW_RANK (block mapping, 2 trees); none for no gsum case. "
                    + "Default: ${DEFAULT-VALUE}.")
    List<String> gsum;

    @Option(names = "--iterations", defaultValue = "1000", description = "gsum's timed iterations per run. "
            + "Default: ${DEFAULT-VALUE}.")
    int iterations;

    @Option(names = "--slow-us", defaultValue = "200", description = "gsum's slow rank waits this long before each "
            + "allreduce, µs. Default: ${DEFAULT-VALUE}.")
    long slowUs;

    @Option(names = "--mpi", defaultValue = "auto", paramLabel = "auto|on|off", description = "The MPI cases: auto (when "
            + "mpicc and mpirun are on the PATH), on (fail without them) or off. Default: ${DEFAULT-VALUE}.")
    String mpi;

    @Option(names = "--mpi-ranks", split = ",", defaultValue = "2,4", description = "The MPI cases' rank counts; the "
            + "last rank is the slow one. Default: ${DEFAULT-VALUE}.")
    List<Integer> mpiRanks;

    @Option(names = "--mpi-iterations", defaultValue = "2000", description = "es_imbalance -i. Default: ${DEFAULT-VALUE}.")
    int mpiIterations;

    @Option(names = "--compute-us", defaultValue = "200", description = "es_imbalance -c: compute per iteration, µs. "
            + "Default: ${DEFAULT-VALUE}.")
    long computeUs;

    @Option(names = "--factor", defaultValue = "3", description = "es_imbalance -f: the slow rank computes this many times "
            + "as long. Default: ${DEFAULT-VALUE}.")
    double factor;

    @Option(names = "--timeout", defaultValue = "300", description = "Seconds one run may take. Default: ${DEFAULT-VALUE}.")
    long timeoutS;

    @Option(names = "--json", description = "Write the eventspace.bench-verdict/1 report to this file.")
    Path json;

    @Override
    public Integer call() throws Exception {
        if (json != null) {
            OutputFiles.checkWritable(json, "--json");
        }
        String skipped = null;
        boolean tools = Executables.find("mpicc") != null && Executables.find("mpirun") != null;
        switch (mpi) {
            case "auto" -> skipped = tools ? null : "mpicc or mpirun is not on the PATH";
            case "on" -> {
                if (!tools) {
                    throw new UsageError("bench verdict --mpi on: mpicc or mpirun is not on the PATH");
                }
            }
            case "off" -> skipped = "--mpi off";
            default -> throw new UsageError("--mpi must be auto, on or off, got '" + mpi + "'");
        }
        Path source = Path.of(System.getenv().getOrDefault("ES_HOME", ".")).resolve("native/test/es_imbalance.c");
        VerdictRates.Config config;
        try {
            List<VerdictRates.GsumShape> shapes = new ArrayList<>();
            for (String s : gsum) {
                if (!s.equals("none")) {
                    shapes.add(VerdictRates.GsumShape.parse(s));
                }
            }
            config = new VerdictRates.Config(runs, shapes, iterations, slowUs, skipped == null ? source : null,
                    skipped == null ? mpiRanks : List.of(), mpiIterations, computeUs, factor, timeoutS);
        } catch (IllegalArgumentException e) {
            throw new UsageError("bench verdict: " + e.getMessage());
        }
        if (skipped != null) {
            System.out.println("MPI cases skipped: " + skipped);
        }
        VerdictRates.Result result = VerdictRates.run(config, skipped, System.out);
        System.out.printf(java.util.Locale.ROOT, "on %d cores, load average %.1f before and %.1f after%n",
                Runtime.getRuntime().availableProcessors(), result.loadBefore(), result.loadAfter());
        if (json != null) {
            Json.pretty().writeValue(json.toFile(), VerdictRates.toJson(result, Json.mapper()));
        }
        return EventSpaceCommand.EXIT_OK;
    }
}
