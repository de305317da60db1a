package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Real {@code run} and {@code mpirun} reports against docs/schema: a short in-JVM run with monitors, a scope and a
 * trace; a pingpong over TCP host processes with collectors off; a multi-cluster allreduce; an MPI program.
 */
@Timeout(120)
class RunReportSchemaTest {
    @TempDir
    Path dir;

    @Test
    void anInJvmRunWithMonitorsScopeAndTraceConforms() {
        Path json = dir.resolve("run.json");
        CliHarness cli = new CliHarness();
        assertThat(cli.execute("run", "compute-gsum", "--ranks", "4", "--hosts", "2", "--iterations", "200", "--warmup", "10",
                "--warmup-s", "0", "--monitor", "loadbalance,stats", "--slow-rank", "1:50", "--trace",
                dir.resolve("run.trace").toString(), "--json", json.toString())).as(cli.err()).isZero();

        JsonNode report = ReportSchemas.assertConforms("run-report.schema.json", json);
        assertThat(report.has("monitors")).isTrue();
        assertThat(report.has("trace")).isTrue();
        assertThat(report.has("faults")).isTrue();

        // The schema is strict where it matters: a required field renamed, or one of a block's, fails.
        ObjectNode renamed = report.deepCopy();
        renamed.set("resultOk", renamed.remove("result_ok"));
        assertThat(ReportSchemas.errors("run-report.schema.json", renamed.toString())).isNotEmpty();
        ObjectNode missing = report.deepCopy();
        ((ObjectNode) missing.path("collectors")).remove("per_host");
        assertThat(ReportSchemas.errors("run-report.schema.json", missing.toString())).isNotEmpty();
    }

    @Test
    void aPingpongOverTcpHostProcessesWithoutCollectorsConforms() {
        Path json = dir.resolve("tcp.json");
        CliHarness cli = new CliHarness();
        assertThat(cli.execute("run", "pingpong", "--ranks", "2", "--hosts", "2", "--transport", "tcp", "--collectors", "off",
                "--iterations", "200", "--warmup", "10", "--warmup-s", "0", "--json", json.toString()))
                .as(cli.err()).isZero();

        JsonNode report = ReportSchemas.assertConforms("run-report.schema.json", json);
        assertThat(report.path("transport").asText()).isEqualTo("tcp");
        assertThat(report.has("pingpong_us")).isTrue();
        assertThat(report.at("/collectors/count").asInt()).isZero();
    }

    @Test
    void aMultiClusterAllreduceOverAWanConforms() {
        Path json = dir.resolve("wan.json");
        Path root = Repository.root();
        CliHarness cli = new CliHarness();
        assertThat(cli.execute("run", "noise-allreduce", "--ranks", "4", "--hosts", "4", "--clusters", "4", "--wan",
                root.resolve("examples/wan/four-sites.wan").toString(), "--allreduce", "conditional", "--compute-us", "100",
                "--input", root.resolve("examples/wan/converging.input").toString(), "--json", json.toString()))
                .as(cli.err()).isZero();

        JsonNode report = ReportSchemas.assertConforms("run-wan-allreduce.schema.json", json);
        assertThat(report.path("wrong_answers").asInt()).isZero();
    }

    @Test
    void anMpiProgramsReportConforms() throws Exception {
        Path program = NativePrograms.compile("es_allreduce", dir);
        Path json = dir.resolve("mpirun.json");
        CliHarness cli = new CliHarness();
        int exit = cli.execute("mpirun", "-np", "2", "--json", json.toString(), "--trace-dir", dir.resolve("trace").toString(),
                "--mpirun-arg", "--mca", "--mpirun-arg", "btl", "--mpirun-arg", "self,vader", "--",
                program.toString(), "-i", "50", "-s", "1");
        assertThat(exit).as(cli.err()).isZero();

        JsonNode report = ReportSchemas.assertConforms("mpirun-report.schema.json", json);
        assertThat(report.at("/mpi/calls/MPI_Allreduce").asLong()).isEqualTo(100);
    }
}
