package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Real {@code run} and {@code mpirun} reports against docs/schema: a short in-JVM run with monitors, a slow rank and a
 * trace; a pingpong over TCP host processes with collectors off; a multi-cluster allreduce; an MPI program.
 */
@Timeout(120)
class RunReportSchemaTest {
    private static final Path ROOT = Repository.root();

    @TempDir
    Path dir;

    /** Runs the command with {@code --json FILE} (before a {@code --}), expects exit 0 and a report that conforms. */
    private JsonNode report(String schema, String... args) {
        Path json = dir.resolve("report.json");
        List<String> all = new ArrayList<>(List.of(args));
        int end = all.contains("--") ? all.indexOf("--") : all.size();
        all.addAll(end, List.of("--json", json.toString()));
        CliHarness cli = new CliHarness();
        assertThat(cli.execute(all.toArray(String[]::new))).as(cli.err()).isZero();
        return ReportSchemas.assertConforms(schema, json);
    }

    @Test
    void anInJvmRunWithMonitorsAFaultAndATraceConforms() {
        JsonNode report = report("run-report.schema.json", "run", "compute-gsum", "--ranks", "4", "--hosts", "2",
                "--iterations", "200", "--warmup", "10", "--warmup-s", "0", "--monitor", "loadbalance,stats", "--slow-rank",
                "1:50", "--trace", dir.resolve("run.trace").toString());
        assertThat(report.has("monitors")).isTrue();
        assertThat(report.has("trace")).isTrue();
        assertThat(report.has("faults")).isTrue();

        // The schema is strict where it matters: a required field renamed, or one of a block's missing, fails.
        ObjectNode renamed = report.deepCopy();
        renamed.set("resultOk", renamed.remove("result_ok"));
        assertThat(ReportSchemas.errors("run-report.schema.json", renamed.toString())).isNotEmpty();
        ObjectNode missing = report.deepCopy();
        ((ObjectNode) missing.path("collectors")).remove("per_host");
        assertThat(ReportSchemas.errors("run-report.schema.json", missing.toString())).isNotEmpty();
    }

    @Test
    void aPingpongOverTcpHostProcessesWithoutCollectorsConforms() {
        JsonNode report = report("run-report.schema.json", "run", "pingpong", "--ranks", "2", "--hosts", "2",
                "--transport", "tcp", "--collectors", "off", "--iterations", "200", "--warmup", "10", "--warmup-s", "0");
        assertThat(report.path("transport").asText()).isEqualTo("tcp");
        assertThat(report.has("pingpong_us")).isTrue();
        assertThat(report.at("/collectors/count").asInt()).isZero();
        // Over TCP the report says how long the host processes took to start and end, every phase reached.
        List<String> phases = new ArrayList<>();
        report.at("/launch/phases").forEach(p -> phases.add(p.path("phase").asText()));
        assertThat(phases).containsExactly("start", "built", "connected", "run", "results", "exit", "merge");
        assertThat(report.at("/launch/hosts").asInt()).isEqualTo(2);
        assertThat(report.at("/launch/result_bytes").asLong()).isPositive();
    }

    @Test
    void aMultiClusterAllreduceOverAWanConforms() {
        JsonNode report = report("run-wan-allreduce.schema.json", "run", "noise-allreduce", "--ranks", "4", "--hosts", "4",
                "--clusters", "4", "--wan", ROOT.resolve("examples/wan/four-sites.wan").toString(), "--allreduce",
                "conditional", "--compute-us", "100", "--input", ROOT.resolve("examples/wan/converging.input").toString());
        assertThat(report.path("wrong_answers").asInt()).isZero();
    }

    @Test
    void anMpiProgramsReportConforms() throws Exception {
        Path program = NativePrograms.compile("es_allreduce", dir);
        // The trace files go to the test's folder, not to a folder of their own in /tmp that nobody removes.
        JsonNode report = report("run-report.schema.json", "mpirun", "-np", "2", "--trace-dir",
                dir.resolve("trace").toString(), "--mpirun-arg", "--mca",
                "--mpirun-arg", "btl", "--mpirun-arg", "self,vader", "--", program.toString(), "-i", "50", "-s", "1");
        assertThat(report.at("/mpi/calls/MPI_Allreduce").asLong()).isEqualTo(100);
    }
}
