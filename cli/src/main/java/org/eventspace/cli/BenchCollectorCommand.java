package org.eventspace.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import org.eventspace.bench.jmh.CollectorCost;
import org.eventspace.base.json.Json;

import com.fasterxml.jackson.databind.ObjectMapper;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code eventspace bench collector}: one collector write and one clock read, one JMH run, GC profiler. */
@Command(name = "collector", mixinStandardHelpOptions = true,
        description = "JMH: one event collector write (both timestamps) and one System.nanoTime() in the same run, "
                + "with the GC profiler; --json writes eventspace.bench-collector/1.")
final class BenchCollectorCommand implements Callable<Integer> {
    @Option(names = "--warmup-iterations", defaultValue = "3", description = "JMH warm-up iterations. Default: ${DEFAULT-VALUE}.")
    int warmupIterations;

    @Option(names = "--iterations", defaultValue = "5", description = "JMH measured iterations. Default: ${DEFAULT-VALUE}.")
    int iterations;

    @Option(names = "--time-s", defaultValue = "1", description = "Seconds per warm-up and measured iteration. Default: ${DEFAULT-VALUE}.")
    double timeSeconds;

    @Option(names = "--forks", defaultValue = "1",
            description = "JVMs JMH forks per benchmark (0: measure in this JVM, less isolated). Default: ${DEFAULT-VALUE}.")
    int forks;

    @Option(names = "--json", description = "Write the eventspace.bench-collector/1 report to this file.")
    Path json;

    @Option(names = "--jmh-log", paramLabel = "FILE", description = "Write JMH's own output (progress, every iteration, "
            + "its tables) to this file. Without it that output is kept in memory and shown only if JMH fails.")
    Path jmhLog;

    @Override
    public Integer call() throws Exception {
        CollectorCost.Settings settings;
        try {
            settings = new CollectorCost.Settings(warmupIterations, iterations, timeSeconds, forks);
        } catch (IllegalArgumentException e) {
            throw new UsageError("--warmup-iterations/--iterations/--time-s/--forks: " + e.getMessage());
        }
        if (json != null) {
            OutputFiles.checkWritable(json, "--json");
        }
        if (jmhLog != null) {
            OutputFiles.checkWritable(jmhLog, "--jmh-log");
        }
        // JMH prints some 150 lines for two benchmarks: they go to memory (or --jmh-log), so the answer comes first.
        System.err.printf(java.util.Locale.ROOT, "bench collector: JMH, 2 benchmarks × %d fork(s) × (%d + %d) × %.3g s, "
                + "about %.0f s%s%n", Math.max(1, forks), warmupIterations, iterations, timeSeconds,
                2.0 * Math.max(1, forks) * (warmupIterations + iterations) * timeSeconds,
                jmhLog == null ? "" : "; JMH's log: " + jmhLog);
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        CollectorCost.Measured measured;
        try (java.io.PrintStream progress = new java.io.PrintStream(log, true, java.nio.charset.StandardCharsets.UTF_8)) {
            try {
                measured = CollectorCost.run(settings, progress);
            } catch (Exception | Error e) {
                progress.flush();
                writeLog(log);
                if (jmhLog == null) {
                    System.err.print(log.toString(java.nio.charset.StandardCharsets.UTF_8));
                }
                throw e;
            }
        }
        writeLog(log);
        System.out.print(CollectorCost.summary(measured, settings));
        if (jmhLog != null) {
            System.out.println("JMH's log: " + jmhLog);
        }
        if (json != null) {
            ObjectMapper mapper = Json.mapper();
            Json.pretty().writeValue(json.toFile(), CollectorCost.toJson(measured, settings, mapper));
        }
        return EventSpaceCommand.EXIT_OK;
    }

    private void writeLog(java.io.ByteArrayOutputStream log) throws java.io.IOException {
        if (jmhLog != null) {
            java.nio.file.Files.write(jmhLog, log.toByteArray());
        }
    }
}
