package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** {@code eventspace mpirun}: flags refused before anything runs, and one real run through the command. */
@Timeout(120)
class MpirunCommandTest {
    @TempDir
    Path dir;

    @Test
    void badFlagsAreRefusedWithExitTwo() {
        CliHarness cli = new CliHarness();
        assertThat(cli.execute("mpirun", "-np", "0", "--", "/bin/true")).isEqualTo(2);
        assertThat(cli.err()).contains("-np must be >= 1, got 0");
        cli = new CliHarness();
        assertThat(cli.execute("mpirun", "-np", "2", "--capacity", "1000", "--", "/bin/true")).isEqualTo(2);
        assertThat(cli.err()).contains("capacity must be a power of two");
        cli = new CliHarness();
        assertThat(cli.execute("mpirun", "-np", "2", "--monitor", "speed", "--", "/bin/true")).isEqualTo(2);
        assertThat(cli.err()).contains("unknown monitor 'speed'");
        cli = new CliHarness();
        assertThat(cli.execute("mpirun", "-np", "2", "--", dir.resolve("missing").toString())).isEqualTo(2);
        assertThat(cli.err()).contains("is not an executable file");
        cli = new CliHarness();
        assertThat(cli.execute("mpirun", "-np", "2", "--agent", "sometimes", "--", "/bin/true")).isEqualTo(2);
        assertThat(cli.err()).contains("--agent must be live or after");
        cli = new CliHarness();
        assertThat(cli.execute("mpirun", "-np", "2", "--agents", "everywhere", "--", "/bin/true")).isEqualTo(2);
        assertThat(cli.err()).contains("--agents must be thread, processes or listen:N, got 'everywhere'");
        cli = new CliHarness();
        assertThat(cli.execute("mpirun", "-np", "2", "--agents", "listen:2", "--", "/bin/true")).isEqualTo(2);
        assertThat(cli.err()).contains("--agents-address HOST:PORT goes with --agents listen:N");
        cli = new CliHarness();
        assertThat(cli.execute("mpirun", "-np", "2", "--agents", "listen:2", "--agents-address", "node1", "--",
                "/bin/true")).isEqualTo(2);
        assertThat(cli.err()).contains("the agents' address must be HOST:PORT, got 'node1'");
        cli = new CliHarness();
        assertThat(cli.execute("mpirun", "-np", "2", "--agents", "processes", "--agent", "after", "--", "/bin/true"))
                .isEqualTo(2);
        assertThat(cli.err()).contains("agent processes are pulled while the program runs: they need a live agent");
    }

    @Test
    void aRealRunPassesTheExitCodeThroughAndWritesTheReport() throws Exception {
        Path program = NativePrograms.compile("es_allreduce", dir);
        Path json = dir.resolve("run.json");

        CliHarness cli = new CliHarness();
        int exit = cli.execute("mpirun", "-np", "3", "--json", json.toString(), "--trace-dir", dir.resolve("trace").toString(),
                "--mpirun-arg", "--mca", "--mpirun-arg", "btl", "--mpirun-arg", "self,vader", "--",
                program.toString(), "-i", "200", "-s", "1", "-d", "400", "-x", "5");

        assertThat(exit).as(cli.err()).isEqualTo(5);
        List<String> lines = cli.err().lines().toList();
        // every rank returns 5 after MPI_Finalize: the failure comes first, then the analysis. mpirun stops the ranks
        // still running once one exited non-zero, so which ranks exit with 5 and which are stopped after them races.
        assertThat(lines.get(0)).startsWith("eventspace: run failed: ").contains("exited with code 5")
                .contains("rank 1 is the slowest rank, beyond chance");
        JsonNode report = new ObjectMapper().readTree(json.toFile());
        assertThat(report.path("result_ok").asBoolean()).isFalse();
        List<String> errors = new java.util.ArrayList<>();
        report.path("errors").forEach(e -> errors.add(e.asText()));
        assertThat(errors.get(0)).matches("ranks? \\[?[0-2](, [0-2])*\\]? exited with code 5");
        assertThat(errors.subList(1, errors.size())).allMatch(e -> e.matches("ranks? .* stopped before MPI_Finalize .*"));
        for (JsonNode e : report.at("/mpi/rank_exits")) {
            assertThat(e.path("state").asText().equals("exited_nonzero") && e.path("exit_code").asInt() == 5
                    || e.has("stopped_after_rank")).as("%s", e).isTrue();
        }
        assertThat(report.path("schema").asText()).isEqualTo("eventspace.run/2");
        assertThat(report.path("benchmark").asText()).isEqualTo("es_allreduce");
        assertThat(report.path("program_exit_code").asInt()).isEqualTo(5);
        assertThat(report.at("/mpi/ranks").asInt()).isEqualTo(3);
        assertThat(report.at("/mpi/calls/MPI_Allreduce").asLong()).isEqualTo(600);
        assertThat(report.at("/mpi/bytes_sent").asLong()).isZero();
        assertThat(report.at("/mpi/tuples_missed").asLong()).isZero();
        assertThat(report.at("/monitors/loadbalance/slowest_rank").asInt()).isEqualTo(1);
        assertThat(report.at("/monitors/loadbalance/wait_us")).hasSize(3);
        assertThat(report.path("wall_s").asDouble()).isPositive();
    }

    @Test
    void agentProcessesOnTwoSimulatedHostsReportAsTheSingleJvmDoes() throws Exception {
        Path program = NativePrograms.compile("es_allreduce", dir);
        Path json = dir.resolve("run.json");

        CliHarness cli = new CliHarness();
        int exit = cli.execute("mpirun", "-np", "4", "--sim-hosts", "2", "--sim-skew-ns", "20000000", "--agents",
                "processes", "--json", json.toString(), "--trace-dir", dir.resolve("trace").toString(),
                "--mpirun-arg", "--mca", "--mpirun-arg", "btl", "--mpirun-arg", "self,vader", "--",
                program.toString(), "-i", "200", "-s", "3", "-d", "400");

        assertThat(exit).as(cli.err()).isZero();
        JsonNode report = new ObjectMapper().readTree(json.toFile());
        assertThat(report.path("errors")).as(cli.err()).isEmpty();
        assertThat(report.at("/mpi/hosts").asInt()).isEqualTo(2);
        assertThat(report.at("/mpi/calls/MPI_Allreduce").asLong()).isEqualTo(800);
        assertThat(report.at("/monitors/loadbalance/slowest_rank").asInt()).isEqualTo(3);
        assertThat(Files.isDirectory(dir.resolve("trace/mirror/host-1"))).isTrue();
    }
}
