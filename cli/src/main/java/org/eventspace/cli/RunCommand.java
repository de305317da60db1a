package org.eventspace.cli;

import java.io.IOException;
import java.util.concurrent.Callable;

import org.eventspace.bench.Benchmark;
import org.eventspace.bench.BenchmarkRunner;
import org.eventspace.bench.RunConfig;
import org.eventspace.bench.RunReport;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code eventspace run gsum|compute-gsum|pingpong [flags]}. */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Run a benchmark (gsum, compute-gsum, pingpong) and print a summary; --json writes eventspace.run/1.")
final class RunCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "BENCHMARK", description = "gsum, compute-gsum or pingpong")
    String benchmark;

    @Mixin
    RunOptions options;

    @Mixin
    ServeOptions serve = new ServeOptions();

    @Override
    public Integer call() throws IOException {
        Benchmark kind;
        try {
            kind = Benchmark.parse(benchmark);
        } catch (IllegalArgumentException e) {
            throw new UsageError(e.getMessage());
        }
        RunConfig config = options.toConfig(kind);
        serve.check(config);
        RunReport report;
        if (serve.enabled()) {
            // The dashboard lives as long as the run; the page keeps the last frame once the run ended.
            try (ServeOptions.Served served = serve.watcher(config, benchmark)) {
                report = BenchmarkRunner.run(config, served);
            }
        } else {
            report = BenchmarkRunner.run(config);
        }
        System.out.print(report.summary());
        if (options.json != null) {
            writeJson(report, options.json.toFile());
        }
        return report.resultOk() ? EventSpaceCommand.EXIT_OK : EventSpaceCommand.EXIT_FAILURE;
    }

    static void writeJson(RunReport report, java.io.File file) throws IOException {
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        json.writeValue(file, report.toJson(json));
    }
}
