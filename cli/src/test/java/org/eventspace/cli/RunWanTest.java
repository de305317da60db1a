package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code run gsum --wan FILE}: ranks on two emulated sites 2 ms apart get the exact sums, in one JVM and over TCP (each
 * host process reads the link file the job's configuration names), and no call is faster than the emulated round trip,
 * a lower bound the emulator guarantees; a link file that does not fit the job is a usage error naming it.
 */
@Timeout(180)
class RunWanTest {
    /** 2 ms each way, 8 bytes at 100 Mbit/s each way. */
    private static final double ROUND_TRIP_US = 4_000 + 2 * 0.64;

    @TempDir
    Path dir;

    private final CliHarness cli = new CliHarness();

    private static Path example(String name) {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("examples/wan"))) {
                return p.resolve("examples/wan").resolve(name);
            }
        }
        throw new IllegalStateException("no examples/wan above " + Path.of("").toAbsolutePath());
    }

    private JsonNode run(String transport) throws Exception {
        Path file = dir.resolve(transport + ".json");
        int code = cli.execute("run", "gsum", "--ranks", "4", "--hosts", "2", "--clusters", "2", "--transport", transport,
                "--wan", example("two-sites-2ms.wan").toString(), "--iterations", "30", "--warmup", "5", "--warmup-s", "0",
                "--json", file.toString());
        assertThat(code).as(cli.err()).isZero();
        return new ObjectMapper().readTree(file.toFile());
    }

    private static void check(JsonNode report) {
        assertThat(report.path("result_ok").asBoolean()).isTrue();
        assertThat(report.path("wan").asText()).endsWith("two-sites-2ms.wan");
        assertThat(report.path("allreduce_us").path("mean").asDouble()).isGreaterThanOrEqualTo(ROUND_TRIP_US);
    }

    @Test
    void inOneJvm() throws Exception {
        check(run("jvm"));
    }

    @Test
    void overTcpEveryHostProcessRunsItsGateway() throws Exception {
        check(run("tcp"));
    }

    @Test
    void theMonitorsResultsCrossTheWanEncodedWithTheWanCodecOfTheScopesShapeAndArriveWhole() throws Exception {
        for (String shape : new String[] {"flat", "hier:2"}) {
            Path file = dir.resolve("monitored-" + shape.replace(':', '-') + ".json");
            int code = cli.execute("run", "gsum", "--ranks", "4", "--hosts", "2", "--clusters", "2", "--wan",
                    example("two-sites-2ms.wan").toString(), "--monitor", "loadbalance,stats", "--scope", shape,
                    "--iterations", "100", "--warmup", "5", "--warmup-s", "0", "--json", file.toString());
            assertThat(code).as(cli.err()).isZero();
            JsonNode report = new ObjectMapper().readTree(file.toFile());

            String codec = org.eventspace.scope.filter.EdgeCodec.WAN_DEFAULT;
            assertThat(report.path("scope").path("filter").asText())
                    .isEqualTo(org.eventspace.scope.filter.FilterSpec.parse(codec + "/newest").text());
            assertThat(report.path("scope").has("error")).as(report.path("scope").toString()).isFalse();
            assertThat(report.path("scope").path("rounds").asLong()).isPositive();
            assertThat(report.path("monitors").isMissingNode()).isFalse();
        }
    }

    @Test
    void aLinkFileThatDoesNotFitTheJobIsAUsageError() throws Exception {
        int code = cli.execute("run", "gsum", "--ranks", "3", "--hosts", "3", "--clusters", "3", "--wan",
                example("two-sites-2ms.wan").toString(), "--iterations", "1");
        assertThat(code).isEqualTo(2);
        assertThat(cli.err()).contains("--wan: ").contains("two-sites-2ms.wan: 2 sites but the job has 3 clusters");
        Path bad = dir.resolve("bad.wan");
        Files.writeString(bad, "eventspace-wan 1\nsite a\nsite b\nlink a b latency_ms=1\n");
        assertThat(cli.execute("run", "gsum", "--ranks", "2", "--hosts", "2", "--clusters", "2", "--wan", bad.toString()))
                .isEqualTo(2);
        assertThat(cli.err()).contains("bad.wan:4: expected exactly one of bandwidth_mbit_s=NUMBER");
    }

    @Test
    void theMultiClusterWorkloadsRefuseTheFlagsTheyWouldIgnoreByName() {
        int code = cli.execute("run", "noise-allreduce", "--allreduce", "magpie", "--ranks", "4", "--hosts", "2",
                "--clusters", "2", "--wan", example("two-sites-2ms.wan").toString(), "--monitor", "loadbalance",
                "--slow-rank", "1:200", "--iterations", "50");
        assertThat(code).isEqualTo(2);
        assertThat(cli.err()).contains("noise-allreduce with --allreduce").doesNotContain("--monitor").contains("--slow-rank")
                .contains("--iterations (noise-allreduce runs one iteration per value of its --input file)");
    }

    /**
     * The monitors beside a multi-cluster workload: the conditional allreduce over two sites, the statistics and
     * load-balance monitors coscheduled, their results gathered live through the gateways; the report has the same
     * {@code monitors} block as a gsum run's, and the live view agrees with the final one.
     */
    @Test
    void theMonitorsRunBesideTheMultiClusterWorkloadsInOneJvmAndOverTcp() throws Exception {
        Path input = dir.resolve("short.input");
        StringBuilder text = new StringBuilder("eventspace-allreduce-input 1\nepsilon 400\n");
        double v = 20_000;
        for (int i = 0; i < 60; i++) {
            text.append((long) v).append('\n');
            v *= 0.92;
        }
        java.nio.file.Files.writeString(input, text);
        Path file = dir.resolve("noise-monitored.json");
        int code = cli.execute("run", "noise-allreduce", "--allreduce", "conditional", "--ranks", "4", "--hosts", "2",
                "--clusters", "2", "--wan", example("two-sites-2ms.wan").toString(), "--input", input.toString(),
                "--compute-us", "200", "--monitor", "loadbalance,stats", "--coschedule", "ii", "--json", file.toString());
        assertThat(code).as(cli.err()).isZero();
        JsonNode report = new ObjectMapper().readTree(file.toFile());
        assertThat(report.path("wrong_answers").asLong()).isZero();
        JsonNode monitors = report.path("monitors");
        assertThat(monitors.path("loadbalance").path("slowest_rank").isInt()).as(monitors.toString()).isTrue();
        assertThat(monitors.path("gather_rate").asDouble()).isEqualTo(1.0);
        assertThat(monitors.path("stats").path("wrappers").size()).isPositive();
        assertThat(monitors.path("live").path("agrees_with_final").asBoolean()).as(monitors.path("live").toString()).isTrue();

        // Over TCP each host process runs its monitors; the launcher merges their parts.
        Path tcp = dir.resolve("noise-monitored-tcp.json");
        code = cli.execute("run", "noise-allreduce", "--allreduce", "conditional", "--ranks", "4", "--hosts", "2",
                "--clusters", "2", "--wan", example("two-sites-2ms.wan").toString(), "--input", input.toString(),
                "--compute-us", "200", "--monitor", "loadbalance,stats", "--coschedule", "ii", "--transport", "tcp",
                "--json", tcp.toString());
        assertThat(code).as(cli.err()).isZero();
        JsonNode overTcp = new ObjectMapper().readTree(tcp.toFile());
        assertThat(overTcp.path("wrong_answers").asLong()).isZero();
        assertThat(overTcp.path("monitors").path("loadbalance").path("slowest_rank").isInt()).as(overTcp.toString()).isTrue();
        assertThat(overTcp.path("monitors").path("gather_rate").asDouble()).isEqualTo(1.0);
        assertThat(overTcp.path("monitors").path("profile").size()).isPositive();
        assertThat(overTcp.path("monitors").path("live").path("agrees_with_final").asBoolean())
                .as(overTcp.path("monitors").path("live").toString()).isTrue();
    }
}
