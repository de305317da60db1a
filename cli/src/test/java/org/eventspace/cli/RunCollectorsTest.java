package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code run --collectors on|off --trace-dump DIR}: the run JSON's {@code collectors} block and the dump
 * directory (pathmap.json and one {@code .trace} file per collector under {@code host-<id>/}).
 *
 * <p>4 ranks on 2 hosts, hier:8, 2 trees: each tree has 8 collectors (4 above the ranks' greds, one between
 * each host's gred and what it calls, one on h0 serving h1's hop), 5 of them on h0. Every collective call
 * goes through one tree and passes each of its collectors once, so a run of I timed + W warm-up iterations,
 * one warm-up barrier and vote and the barrier before the timed loop writes exactly (I + W + 3) × 8 tuples; each
 * timed call records 8 × 40 B.
 */
class RunCollectorsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final CliHarness cli = new CliHarness();

    private JsonNode run(String transport, String collectors, Path dump, int ranks, int iterations, String... extra)
            throws IOException {
        Path json = dir.resolve(transport + "-" + collectors + ".json");
        List<String> args = new java.util.ArrayList<>(List.of("run", "gsum", "--ranks", Integer.toString(ranks), "--hosts", "2",
                "--transport", transport, "--collectors", collectors, "--iterations", Integer.toString(iterations),
                "--warmup", "100", "--warmup-s", "0", "--json", json.toString()));
        if (dump != null) {
            args.addAll(List.of("--trace-dump", dump.toString()));
        }
        args.addAll(List.of(extra));
        int code = cli.execute(args.toArray(String[]::new));
        assertThat(code).as(cli.err()).isZero();
        JsonNode run = JSON.readTree(json.toFile());
        assertThat(run.path("result_ok").asBoolean()).as(run.toString()).isTrue();
        return run;
    }

    private static List<Path> traceFiles(Path hostDir) throws IOException {
        try (Stream<Path> files = Files.list(hostDir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".trace")).toList();
        }
    }

    @Test
    void collectorsOnInOneJvmRecordEveryCallAndDumpTheirBuffers() throws Exception {
        Path dump = dir.resolve("dump");
        JsonNode collectors = run("jvm", "on", dump, 4, 200).path("collectors");

        assertThat(collectors.path("count").asInt()).isEqualTo(16);
        assertThat(collectors.path("tuples_written").asLong()).isEqualTo((200 + 100 + 3) * 8L);
        assertThat(collectors.path("bytes_per_call").asDouble()).isCloseTo(8 * 40, org.assertj.core.data.Offset.offset(1.0));
        assertThat(collectors.path("bytes_per_call_busiest_host").asDouble()).isCloseTo(5 * 40, org.assertj.core.data.Offset.offset(1.0));
        assertThat(collectors.path("buffer_bytes_per_host").asLong()).isPositive().isLessThanOrEqualTo(4L << 20);
        assertThat(collectors.path("per_host")).hasSize(2);

        JsonNode pathmap = JSON.readTree(dump.resolve("pathmap.json").toFile());
        long collectorNodes = 0;
        for (JsonNode node : pathmap.path("nodes")) {
            if (node.path("kind").asText().equals("collector")) {
                collectorNodes++;
                assertThat(node.path("properties").has("collectorId")).isTrue();
            }
        }
        assertThat(collectorNodes).isEqualTo(16);
        assertThat(traceFiles(dump.resolve("host-0"))).hasSize(10);
        assertThat(traceFiles(dump.resolve("host-1"))).hasSize(6);
    }

    @Test
    void collectorsOffReportCountZero() throws Exception {
        JsonNode collectors = run("jvm", "off", null, 4, 200).path("collectors");

        assertThat(collectors.path("count").asInt()).isZero();
        assertThat(collectors.has("tuples_written")).isFalse();
    }

    @Test
    void tcpHostProcessesEachDumpTheirOwnBuffers() throws Exception {
        Path dump = dir.resolve("tcp-dump");
        JsonNode collectors = run("tcp", "on", dump, 2, 200).path("collectors");

        // 2 ranks on 2 hosts, hier:8, per tree: rank 0 → gred, gred → core, h1's hop served on h0 (3 on h0);
        // rank 1 → its proxy (1 on h1).
        assertThat(collectors.path("count").asInt()).isEqualTo(8);
        assertThat(collectors.path("hosts_reporting").asInt()).isEqualTo(2);
        assertThat(collectors.path("tuples_written").asLong()).isGreaterThanOrEqualTo(4L * (200 + 100));
        assertThat(Files.exists(dump.resolve("pathmap.json"))).isTrue();
        assertThat(traceFiles(dump.resolve("host-0"))).hasSize(6);
        assertThat(traceFiles(dump.resolve("host-1"))).hasSize(2);
    }

    @Test
    void collectorsCanBeLimitedToKindsAndTrees() throws Exception {
        // Around proxies only: per tree the collector before h1's stub and the one serving its hop on h0.
        JsonNode proxies = run("jvm", "on", null, 4, 200, "--collect-kinds", "proxy").path("collectors");
        assertThat(proxies.path("count").asInt()).isEqualTo(4);
        assertThat(proxies.path("kinds").toString()).isEqualTo("[\"proxy\"]");
        assertThat(proxies.path("tuples_written").asLong()).isEqualTo((200 + 100 + 3) * 2L);

        // Tree 0 only: its 8 collectors, passed by every other call (gsum alternates the two trees).
        JsonNode tree0 = run("jvm", "on", null, 4, 200, "--collect-trees", "0").path("collectors");
        assertThat(tree0.path("count").asInt()).isEqualTo(8);
        assertThat(tree0.path("trees").toString()).isEqualTo("[0]");

        assertThat(cli.execute("run", "gsum", "--collect-kinds", "gred,foo")).isEqualTo(2);
        assertThat(cli.err()).contains("--collect-kinds: unknown wrapper kind 'foo'");
        assertThat(cli.execute("run", "gsum", "--collect-trees", "2")).isEqualTo(2);
        assertThat(cli.err()).contains("tree 2").contains("2 trees");
    }

    @Test
    void aTraceDumpWithCollectorsOffIsAUsageError() {
        assertThat(cli.execute("run", "gsum", "--collectors", "off", "--trace-dump", dir.toString())).isEqualTo(2);
        assertThat(cli.err()).contains("--trace-dump").contains("--collectors on");
        assertThat(cli.execute("run", "gsum", "--collectors", "maybe")).isEqualTo(2);
        assertThat(cli.err()).contains("--collectors must be on or off, got maybe");
    }
}
