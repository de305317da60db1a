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
 * {@code bench wan-compression}: a short monitored run over two emulated sites, its results replayed through each codec
 * (every packet checked byte for byte inside the bench); the report names every codec with its bytes, and none moves
 * what it was given.
 */
@Timeout(180)
class BenchWanCompressionTest {
    @TempDir
    Path dir;

    private final CliHarness cli = new CliHarness();

    @Test
    void replaysTheCapturedResultsThroughEveryCodec() throws Exception {
        Path wan = null;
        for (Path p = Path.of("").toAbsolutePath(); p != null && wan == null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("examples/wan"))) {
                wan = p.resolve("examples/wan/two-sites-2ms.wan");
            }
        }
        Path out = dir.resolve("wan-compression.json");
        int code = cli.execute("bench", "wan-compression", "gsum", "--ranks", "4", "--hosts", "4", "--clusters", "2",
                "--wan", wan.toString(), "--monitor", "loadbalance,stats", "--iterations", "150", "--warmup", "5",
                "--warmup-s", "0", "--passes", "1", "--json", out.toString());
        assertThat(code).as(cli.err()).isZero();
        JsonNode report = new ObjectMapper().readTree(out.toFile());

        assertThat(report.path("schema").asText()).isEqualTo("eventspace.bench-wan-compression/1");
        assertThat(report.path("edges")).hasSize(1);
        assertThat(report.path("codecs")).extracting(c -> c.path("codec").asText())
                .containsExactly("none", "deflate", "cbc:64:4096:columns", "cbc+deflate:64:4096:columns");
        JsonNode none = report.path("codecs").get(0);
        assertThat(none.path("rounds").asInt()).isPositive();
        assertThat(none.path("bytes_per_round").asDouble()).isEqualTo(none.path("raw_bytes_per_round").asDouble());
        for (JsonNode c : report.path("codecs")) {
            assertThat(c.path("bytes_per_round").asDouble()).as(c.toString()).isPositive();
            assertThat(c.path("transfer_ms_per_round").asDouble()).isGreaterThanOrEqualTo(2.0);
        }
    }
}
