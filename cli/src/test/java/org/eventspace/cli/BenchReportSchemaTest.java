package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JSON of the cheapest {@code bench} subcommands, each run with tiny counts, against its schema in docs/schema.
 * (bench overhead --table and bench wan-compression take tens of seconds; their schemas were drawn from real output
 * but are not checked here.)
 */
@Timeout(120)
class BenchReportSchemaTest {
    @TempDir
    Path dir;

    /** Runs {@code bench ARGS --json FILE}, expects exit 0 and a document conforming to {@code schema}. */
    private void conforms(String schema, String... args) {
        Path json = dir.resolve(schema.replace(".schema", ""));
        String[] all = new String[args.length + 3];
        all[0] = "bench";
        System.arraycopy(args, 0, all, 1, args.length);
        all[args.length + 1] = "--json";
        all[args.length + 2] = json.toString();
        CliHarness cli = new CliHarness();
        assertThat(cli.execute(all)).as(cli.err()).isZero();
        ReportSchemas.assertConforms(schema, json);
    }

    @Test
    void offload() {
        conforms("bench-offload.schema.json", "offload", "--ranks", "4", "--fanout", "2", "--period-us", "100",
                "--reduce", "none,hist", "--iterations", "20");
    }

    @Test
    void overheadInterleaved() {
        conforms("bench-overhead-interleaved.schema.json", "overhead", "--interleave", "20", "--iterations", "200",
                "--ranks", "2", "--warmup", "10", "--warmup-s", "0");
    }

    @Test
    void overheadSeparateRuns() {
        conforms("bench-overhead.schema.json", "overhead", "--repeats", "1", "--ranks", "2", "--iterations", "200",
                "--warmup", "10", "--warmup-s", "0");
    }

    @Test
    void replay() {
        conforms("bench-replay.schema.json", "replay", "--benchmark", "gsum", "--ranks", "2", "--iterations", "200",
                "--warmup", "10", "--warmup-s", "0", "--pairs", "1");
    }

    @Test
    void wanAccuracy() {
        conforms("bench-wan-accuracy.schema.json", "wan-accuracy", "--wan",
                Repository.root().resolve("examples/wan/aalborg-odense.wan").toString(), "--sizes", "8", "--connections", "1",
                "--iterations", "2", "--warmup", "1");
    }

    @Test
    void collectorInThisJvm() {
        conforms("bench-collector.schema.json", "collector", "--forks", "0", "--warmup-iterations", "1", "--iterations",
                "1", "--time-s", "0.1");
    }

    @Test
    void dashboardLoad() {
        conforms("bench-dashboard-load.schema.json", "dashboard-load", "--clients", "2", "--duration", "0.4", "--block-s",
                "0.1", "--warmup-s", "0", "--ranks", "2", "--hosts", "2");
    }
}
