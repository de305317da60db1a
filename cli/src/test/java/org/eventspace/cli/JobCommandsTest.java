package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** The commands that start real processes or read files: run over TCP, launch, describe with a config. */
@Timeout(120)
class JobCommandsTest {
    @TempDir
    Path dir;

    private final CliHarness cli = new CliHarness();

    private int execute(String... args) {
        return cli.execute(args);
    }

    @Test
    void gsumOverTcpRunsOneProcessPerHostAndGetsExactSums() throws Exception {
        Path json = dir.resolve("tcp.json");
        int code = execute("run", "gsum", "--ranks", "4", "--hosts", "2", "--transport", "tcp", "--tree", "hier:2",
                "--iterations", "300", "--warmup", "100", "--warmup-s", "0", "--json", json.toString());

        assertThat(code).as(cli.err()).isZero();
        JsonNode run = new ObjectMapper().readTree(json.toFile());
        assertThat(run.path("transport").asText()).isEqualTo("tcp");
        assertThat(run.path("hosts").asInt()).isEqualTo(2);
        assertThat(run.path("result_ok").asBoolean()).isTrue();
        assertThat(run.path("allreduce_us").path("mean").asDouble()).isPositive();
    }

    @Test
    void launchStartsHostProcessesThatFindEachOther() {
        int code = execute("launch", "-n", "2", "--timeout", "100", "--", "org.eventspace.examples.JobExample", "1", "200");

        assertThat(code).as(cli.err()).isZero();
    }

    @Test
    void aLaunchedJobIsMonitoredByAScopeThatProcessZeroPulls() {
        String out = launchedJobExample("1", "300", "--monitor");
        // Rank 0's path stays on h0; rank 1's crosses the hop: both whole allreduces reach process 0's front-end.
        assertThat(out).contains("filter stats").contains("0 dropped")
                .containsPattern("allreduce-sum rank>gred>core +\\d+")
                .containsPattern("allreduce-sum rank>proxy>gred>core +\\d+");
    }

    /** Your own program with the monitors: process 0 sees every process's results live, through the job's scope. */
    @Test
    void aLaunchedProgramWithTheMonitorsPrintsTheirAnswerFromEveryProcess() {
        String out = launchedJobExample("2", "3000", "--monitors");
        // Process 0's summary covers process 1's gred (t0.gred.h1.0) too: its results came through the scope.
        assertThat(out).contains("monitors:").contains("gather rate 100.00 %").contains("t0.gred.h1.0: 1500 calls")
                .contains("analysis: 2 threads");
    }

    /**
     * What {@code launch -n 2 -- JobExample ARGS} printed on stdout (the launcher prints its hosts' lines there, not
     * through picocli's writer), once it exited 0.
     */
    private String launchedJobExample(String... args) {
        String[] command = new String[7 + args.length];
        System.arraycopy(new String[] {"launch", "-n", "2", "--timeout", "100", "--", "org.eventspace.examples.JobExample"},
                0, command, 0, 7);
        System.arraycopy(args, 0, command, 7, args.length);
        java.io.PrintStream stdout = System.out;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        int code;
        try {
            System.setOut(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
            code = execute(command);
        } finally {
            System.setOut(stdout);
        }
        String out = captured.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(code).as(cli.err() + out).isZero();
        return out;
    }

    @Test
    void launchOfAnUnknownMainIsAUsageError() {
        assertThat(execute("launch", "-n", "2", "--", "no.such.Main")).isEqualTo(2);
        assertThat(cli.err()).contains("no.such.Main");
    }

    @Test
    void aRendezvousForNoHostsIsAUsageError() {
        assertThat(execute("rendezvous", "--hosts", "0")).isEqualTo(2);
        assertThat(cli.err()).contains("--hosts");
    }

    @Test
    void describeReadsAConfigFile() {
        Path config = Path.of("..", "examples", "pathmaps", "two-clusters.json");
        assertThat(config).exists();

        assertThat(execute("describe", "--config", config.toString())).isZero();
    }

    @Test
    void describeAsRunShowsTheCollectorsAndTheScope() throws Exception {
        CliHarness plain = new CliHarness();
        assertThat(plain.execute("describe", "--ranks", "4", "--hosts", "2", "--format", "json")).isZero();
        CliHarness asRun = new CliHarness();
        assertThat(asRun.execute("describe", "--ranks", "4", "--hosts", "2", "--as-run", "--scope", "flat", "--format", "json"))
                .as(asRun.err()).isZero();

        com.fasterxml.jackson.databind.JsonNode without = new com.fasterxml.jackson.databind.ObjectMapper().readTree(plain.out());
        com.fasterxml.jackson.databind.JsonNode with = new com.fasterxml.jackson.databind.ObjectMapper().readTree(asRun.out());
        java.util.Map<String, Integer> kinds = new java.util.TreeMap<>();
        with.path("nodes").forEach(n -> kinds.merge(n.path("kind").asText(), 1, Integer::sum));
        assertThat(without.path("nodes").findValuesAsText("kind")).doesNotContain("collector", "scope.leaf");
        // 4 ranks on 2 hosts, hier:8, 2 trees: 8 collectors per tree; a flat scope: a leaf per host and the root.
        assertThat(kinds).containsEntry("collector", 16).containsEntry("scope.leaf", 2).containsEntry("scope.gather", 1);

        assertThat(execute("describe", "--as-run", "--scope", "pyramid")).isEqualTo(2);
        assertThat(cli.err()).contains("pyramid");
    }

    @Test
    void aBrokenConfigNamesFileAndLine() throws Exception {
        Path config = dir.resolve("broken.json");
        Files.writeString(config, """
                {
                  "schema": "eventspace.pathmap/1",
                  "topology": { "clusters": [ { "name": "c0", "hosts": [ {"name": "h0", "cpus": 2} ] } ] },
                  "application": { "ranks": 2, "tree": "kary:1" }
                }
                """);

        assertThat(execute("run", "gsum", "--config", config.toString())).isEqualTo(2);
        assertThat(cli.err()).contains("broken.json:4:").contains("application.tree");
    }

    @Test
    void aMissingConfigIsAUsageError() {
        assertThat(execute("describe", "--config", dir.resolve("nope.json").toString())).isEqualTo(2);
        assertThat(cli.err()).contains("nope.json");
    }
}
