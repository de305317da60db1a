package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

/** {@code eventspace simulate}: its predictions and its validation documents against their schemas, and bad input. */
class SimulateCommandTest {
    @TempDir
    Path dir;

    private String stdout;

    private int run(CliHarness cli, String... args) {
        int code = cli.executeCapturingStdout(args);
        stdout = cli.stdout();
        return code;
    }

    @Test
    void predictionsCoverEveryTreeAndScopeAndMatchTheirSchema() throws Exception {
        Path json = dir.resolve("sim.json");
        CliHarness cli = new CliHarness();
        int code = run(cli, "simulate", "--ranks", "256,17408", "--ranks-per-host", "16", "--cores-per-host", "16",
                "--tree", "hier:8,butterfly", "--scope", "flat,kary:4", "--helpers", "0,4", "--iterations", "4",
                "--json", json.toString());
        assertThat(code).as(cli.err()).isZero();
        assertThat(stdout).contains("allreduce", "event scope", "recommended at 256 ranks: tree ",
                "recommended at 17,408 ranks: tree ", "(host + tree)");
        String text = Files.readString(json);
        assertThat(ReportSchemas.errors("simulate.schema.json", text)).isEmpty();
        JsonNode doc = ReportSchemas.parse(text);
        assertThat(doc.path("trees")).hasSize(4);
        // 2 sizes × 2 shapes × 2 gatherings × 2 loads.
        assertThat(doc.path("scopes")).hasSize(16);
        for (JsonNode t : doc.path("trees")) {
            assertThat(t.path("latency_on_us").asDouble()).isPositive();
        }
        assertThat(doc.path("trees").get(2).path("simulated_whole").asBoolean()).isFalse();
    }

    @Test
    void aValidationIsSimulatedAgainFromItsMeasurements() throws Exception {
        Path measured = dir.resolve("measured.json");
        Files.writeString(measured, """
                {"schema": "eventspace.simulate-validation/1", "machine": "m", "costs_date": "d", "cases": [
                  {"case": "8/1/jvm", "iterations": 2000, "measured_mean_us": 10.0, "measured_p50_us": 11.0,
                   "measured_mean_lowest_us": 9.0, "measured_mean_highest_us": 12.0},
                  {"case": "8/2/tcp", "iterations": 2000, "measured_mean_us": 40.0, "measured_p50_us": 34.0}]}
                """);
        Path json = dir.resolve("validation.json");
        CliHarness cli = new CliHarness();
        int code = run(cli, "simulate", "--validate", "--measured", measured.toString(), "--json", json.toString());
        assertThat(code).as(cli.err()).isZero();
        assertThat(stdout).contains("8/1/jvm", "measured mean      10.0 µs (runs 9.0 … 12.0)", "of 2 cases within ±15 %");
        String text = Files.readString(json);
        assertThat(ReportSchemas.errors("simulate-validation.schema.json", text)).isEmpty();
        JsonNode first = ReportSchemas.parse(text).path("cases").get(0);
        double model = first.path("model_us").asDouble();
        assertThat(first.path("error_vs_mean_pct").asDouble()).isCloseTo(100 * (model - 10.0) / 10.0,
                within(1e-6));
    }

    @Test
    void badInputIsRefusedNamingWhatWasWrong() throws Exception {
        CliHarness sizes = new CliHarness();
        assertThat(run(sizes, "simulate", "--ranks", "100", "--ranks-per-host", "32")).isEqualTo(2);
        assertThat(sizes.err()).contains("--ranks 100 is not a multiple of --ranks-per-host 32");

        CliHarness shape = new CliHarness();
        assertThat(run(shape, "simulate", "--tree", "kary:1")).isEqualTo(2);
        assertThat(shape.err()).contains("--tree");

        Path costs = dir.resolve("costs.json");
        Files.writeString(costs, "{\n  \"schema\": \"eventspace.costs/1\",\n  \"machine\": \"m\",\n  \"cores\": 2,\n"
                + "  \"join\": 3\n}\n");
        CliHarness file = new CliHarness();
        assertThat(run(file, "simulate", "--costs", costs.toString())).isEqualTo(2);
        assertThat(file.err()).contains("--costs " + costs + ":5:").contains("join: expected one of")
                .doesNotContain("run failed").doesNotContain("Exception");

        CliHarness tcpGather = new CliHarness();
        assertThat(run(tcpGather, "simulate", "--validate", "--gather-cases", "8/2/tcp")).isEqualTo(2);
        assertThat(tcpGather.err()).contains("--gather-cases: a gather case runs in one JVM");
        assertThat(stdout).as("a usage error is the only thing printed").isEmpty();

        Path notValidation = dir.resolve("other.json");
        Files.writeString(notValidation, "{\"schema\": \"eventspace.run/2\"}");
        CliHarness other = new CliHarness();
        assertThat(run(other, "simulate", "--validate", "--measured", notValidation.toString())).isEqualTo(2);
        assertThat(other.err()).contains("--measured " + notValidation + ": schema: expected \"eventspace.simulate-validation/1\"");

        Path notJson = dir.resolve("broken.json");
        Files.writeString(notJson, "{\"schema\": ");
        CliHarness broken = new CliHarness();
        assertThat(run(broken, "simulate", "--validate", "--measured", notJson.toString())).isEqualTo(2);
        assertThat(broken.err()).contains("--measured " + notJson + ": not JSON").doesNotContain("Exception");
    }
}
