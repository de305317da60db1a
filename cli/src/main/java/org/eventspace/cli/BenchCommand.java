package org.eventspace.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import org.eventspace.bench.Benchmark;
import org.eventspace.bench.CollectorOverhead;
import org.eventspace.bench.RunConfig;
import org.eventspace.bench.jmh.CollectorCost;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code eventspace bench collector|overhead}: what the event collectors cost (issue 3's bars). */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "What the event collectors cost: one collector write (JMH), or whole runs with collectors off and on.",
        subcommands = {BenchCommand.Collector.class, BenchCommand.Overhead.class})
final class BenchCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    private static ObjectMapper json() {
        return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    }

    /** {@code eventspace bench collector}: one collector write and one clock read, one JMH run, GC profiler. */
    @Command(name = "collector", mixinStandardHelpOptions = true,
            description = "JMH: one event collector write (both timestamps) and one System.nanoTime() in the same run, "
                    + "with the GC profiler; --json writes eventspace.bench-collector/1.")
    static final class Collector implements Callable<Integer> {
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

        @Override
        public Integer call() throws Exception {
            CollectorCost.Settings settings;
            try {
                settings = new CollectorCost.Settings(warmupIterations, iterations, timeSeconds, forks);
            } catch (IllegalArgumentException e) {
                throw new UsageError("--warmup-iterations/--iterations/--time-s/--forks: " + e.getMessage());
            }
            // JMH's progress to stderr: stdout keeps the summary.
            CollectorCost.Measured measured = CollectorCost.run(settings, System.err);
            System.out.print(CollectorCost.summary(measured, settings));
            if (json != null) {
                ObjectMapper mapper = json();
                mapper.writeValue(json.toFile(), CollectorCost.toJson(measured, settings, mapper));
            }
            return EventSpaceCommand.EXIT_OK;
        }
    }

    /** {@code eventspace bench overhead}: runs with collectors off and on, interleaved; the median overhead. */
    @Command(name = "overhead", mixinStandardHelpOptions = true,
            description = "Run a benchmark with collectors off and on, alternately, --repeats times each; print the overhead "
                    + "(median over the pairs, and its spread). --json writes eventspace.bench-overhead/1 (not the run report); "
                    + "--collectors is ignored (both sides run); --trace-dump applies to the on-runs.")
    static final class Overhead implements Callable<Integer> {
        @Option(names = "--benchmark", defaultValue = "gsum", description = "gsum or compute-gsum. Default: ${DEFAULT-VALUE}.")
        String benchmark;

        @Option(names = "--repeats", defaultValue = "5", description = "Runs per side, interleaved off, on, off, on, … Default: ${DEFAULT-VALUE}.")
        int repeats;

        @Mixin
        RunOptions options;

        @Override
        public Integer call() throws Exception {
            if (!benchmark.equals("gsum") && !benchmark.equals("compute-gsum")) {
                throw new UsageError("--benchmark must be gsum or compute-gsum, got " + benchmark);
            }
            Benchmark kind = Benchmark.parse(benchmark);
            if (repeats < 1) {
                throw new UsageError("--repeats must be >= 1, got " + repeats);
            }
            RunConfig config = options.toConfig(kind);
            ObjectMapper mapper = json();
            ObjectNode report = new CollectorOverhead(config, repeats).run(mapper, System.err::println);
            System.out.print(CollectorOverhead.summary(report));
            if (options.json != null) {
                mapper.writeValue(options.json.toFile(), report);
            }
            return report.path("result_ok").asBoolean() ? EventSpaceCommand.EXIT_OK : EventSpaceCommand.EXIT_FAILURE;
        }
    }
}
