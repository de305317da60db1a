package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@code compare --collectors both}: our allreduce with collectors off and on against the Open MPI baseline, the same
 * statistic on both sides, written as eventspace.compare/1 and valid against docs/schema/compare.schema.json.
 */
@Timeout(300)
class CompareReportSchemaTest {
    @TempDir
    Path dir;

    @Test
    void comparesEachConfigurationWithCollectorsOffAndOnAgainstOpenMpi() {
        NativePrograms.requireMpi();
        Path json = dir.resolve("compare.json");
        CliHarness cli = new CliHarness();
        int code = cli.execute("compare", "--transport", "jvm", "--repeats", "1", "--iterations", "200", "--warmup", "100",
                "--collectors", "both", "--json", json.toString());
        assertThat(code).as(cli.err()).isZero();
        JsonNode report = ReportSchemas.assertConforms("compare.schema.json", json);
        JsonNode cases = report.path("cases");
        assertThat(cases.size()).isEven().isPositive();
        for (int i = 0; i < cases.size(); i += 2) {
            // each configuration twice, off then on, against Open MPI over the same transport
            assertThat(cases.get(i).path("collectors").asText()).isEqualTo("off");
            assertThat(cases.get(i + 1).path("collectors").asText()).isEqualTo("on");
            assertThat(cases.get(i + 1).path("mpi_btl").asText()).isEqualTo(cases.get(i).path("mpi_btl").asText());
            assertThat(cases.get(i).path("ratio_mean").asDouble()).isPositive();
            assertThat(cases.get(i + 1).path("result_ok").asBoolean()).isTrue();
        }
    }
}
