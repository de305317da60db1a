package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The JSON of the cheapest {@code bench} subcommands, each run with tiny counts, against its schema in docs/schema.
 * (bench overhead --table and bench wan-compression take tens of seconds; their schemas were drawn from real output
 * but are not checked here.)
 */
@Timeout(120)
class BenchReportSchemaTest {
    @TempDir
    Path dir;

    static Stream<Arguments> commands() {
        String wan = Repository.root().resolve("examples/wan/aalborg-odense.wan").toString();
        return Stream.of(
                Arguments.of("bench-offload.schema.json", List.of("offload", "--ranks", "4", "--fanout", "2", "--period-us",
                        "100", "--reduce", "none,hist", "--iterations", "20")),
                Arguments.of("bench-overhead-interleaved.schema.json", List.of("overhead", "--interleave", "20",
                        "--iterations", "200", "--ranks", "2", "--warmup", "10", "--warmup-s", "0")),
                Arguments.of("bench-overhead.schema.json", List.of("overhead", "--repeats", "1", "--ranks", "2",
                        "--iterations", "200", "--warmup", "10", "--warmup-s", "0")),
                Arguments.of("bench-replay.schema.json", List.of("replay", "--benchmark", "gsum", "--ranks", "2",
                        "--iterations", "200", "--warmup", "10", "--warmup-s", "0", "--pairs", "1")),
                Arguments.of("bench-wan-accuracy.schema.json", List.of("wan-accuracy", "--wan", wan, "--sizes", "8",
                        "--connections", "1", "--iterations", "2", "--warmup", "1")),
                Arguments.of("bench-verdict.schema.json", List.of("verdict", "--runs", "1", "--gsum", "4:2:flat:3",
                        "--iterations", "100", "--mpi", "off")),
                Arguments.of("bench-collector.schema.json", List.of("collector", "--forks", "0", "--warmup-iterations", "1",
                        "--iterations", "1", "--time-s", "0.1")),
                Arguments.of("bench-dashboard-load.schema.json", List.of("dashboard-load", "--clients", "2", "--duration",
                        "0.4", "--block-s", "0.1", "--warmup-s", "0", "--ranks", "2", "--hosts", "2")));
    }

    /** Runs {@code bench ARGS --json FILE}, expects exit 0 and a document conforming to {@code schema}. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("commands")
    void writesADocumentThatConforms(String schema, List<String> args) {
        Path json = dir.resolve(schema.replace(".schema", ""));
        List<String> all = new ArrayList<>(List.of("bench"));
        all.addAll(args);
        all.addAll(List.of("--json", json.toString()));
        CliHarness cli = new CliHarness();
        assertThat(cli.execute(all.toArray(String[]::new))).as(cli.err()).isZero();
        ReportSchemas.assertConforms(schema, json);
    }
}
