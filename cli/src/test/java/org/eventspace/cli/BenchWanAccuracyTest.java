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
 * {@code bench wan-accuracy --json}: one row per (connections, size) with what was configured, modelled and measured,
 * in the documented schema. How close the figures are is the command's to report on a quiet machine, not a test's;
 * what holds on any machine is that no lone ping-pong is shorter than the model (nothing is released early).
 */
@Timeout(180)
class BenchWanAccuracyTest {
    @TempDir
    Path dir;

    private final CliHarness cli = new CliHarness();

    @Test
    void writesARowPerConnectionsAndSize() throws Exception {
        Path wan = dir.resolve("two.wan");
        Files.writeString(wan, "eventspace-wan 1\nsite a\nsite b\nlink a b latency_ms=1 bandwidth_mbit_s=100\n"
                + "link b a latency_ms=1.5 bandwidth_mbit_s=50\n");
        Path out = dir.resolve("acc.json");
        int code = cli.execute("bench", "wan-accuracy", "--wan", wan.toString(), "--sizes", "8,4096", "--connections", "1,3",
                "--iterations", "4", "--warmup", "1", "--json", out.toString());
        assertThat(code).as(cli.err()).isZero();
        JsonNode doc = new ObjectMapper().readTree(out.toFile());
        assertThat(doc.path("schema").asText()).isEqualTo("eventspace.bench-wan-accuracy/1");
        assertThat(doc.path("rows")).hasSize(4);
        JsonNode lone = doc.path("rows").get(1);
        assertThat(lone.path("connections").asInt()).isEqualTo(1);
        assertThat(lone.path("bytes").asInt()).isEqualTo(4096);
        // 1 ms + 1.5 ms + 4096 B at 100 and at 50 Mbit/s (327.68 µs + 655.36 µs).
        assertThat(lone.path("configured_two_way_us").asDouble()).isEqualTo(2500 + 327.68 + 655.36, org.assertj.core.data.Offset.offset(0.01));
        assertThat(lone.path("model_us").asDouble()).isEqualTo(lone.path("configured_two_way_us").asDouble());
        for (JsonNode row : doc.path("rows")) {
            if (row.path("connections").asInt() == 1) {
                // A lone ping-pong's every call waits at least its two delays; with several connections a rank's call
                // may be shorter than the period when the replies change order, so only the period is modelled there.
                assertThat(row.path("wan_us").asDouble()).isGreaterThanOrEqualTo(row.path("model_us").asDouble());
            }
            assertThat(row.path("gateways").path("released").asLong()).isEqualTo(2L * row.path("connections").asInt() * 5);
        }
        // Three connections share the wire: the model's iteration is longer than one message's round trip.
        assertThat(doc.path("rows").get(3).path("model_us").asDouble())
                .isGreaterThan(doc.path("rows").get(3).path("configured_two_way_us").asDouble());
    }

    @Test
    void aFileWithoutBothLinksIsAUsageError() throws Exception {
        Path wan = dir.resolve("one.wan");
        Files.writeString(wan, "eventspace-wan 1\nsite a\nsite b\nlink a b latency_ms=1 bandwidth_mbit_s=100\n");
        assertThat(cli.execute("bench", "wan-accuracy", "--wan", wan.toString())).isEqualTo(2);
        assertThat(cli.err()).contains("needs both links between its first two sites, a and b");
    }
}
