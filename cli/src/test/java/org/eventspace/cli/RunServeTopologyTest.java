package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@code run --serve --traffic --topology}: the dashboard routes the traffic the job counts over the given network
 * while the job runs; the combinations it cannot draw are refused before anything starts.
 */
@Timeout(240)
class RunServeTopologyTest {
    private static final String FAT_TREE = Path.of("..", "examples", "topology", "fattree-16.topo").toString();

    @Test
    void theNetworkPaneRoutesTheRunsTrafficWhileItRuns() throws Exception {
        Path traffic = java.nio.file.Files.createTempFile("es-traffic-", ".json");
        // Rank 3 waits 2 ms before each allreduce: the job runs about 6 s, long enough to be polled. Few long waits, not
        // many short ones: a parked thread oversleeps by a scheduler tick or so on a loaded machine, once per wait.
        LiveCommand live = LiveCommand.start(List.of("run", "gsum", "--ranks", "4", "--hosts", "4", "--tree", "binary",
                "--iterations", "3000", "--warmup", "100", "--warmup-s", "0", "--slow-rank", "3:2000",
                "--traffic", traffic.toString(), "--serve", "0", "--topology", FAT_TREE));
        try {
            String url = live.awaitUrl(Duration.ofSeconds(90));
            JsonNode loads = null;
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline && live.process().isAlive()) {
                JsonNode t = live.get(url + "api/v1/traffic");
                if (t != null && t.path("max_link").path("bytes").asLong() > 0) {
                    loads = t;
                    break;
                }
                Thread.sleep(200);
            }
            assertThat(loads).as("link loads while the job ran; output:\n%s", live.output()).isNotNull();
            assertThat(loads.path("svg").asText()).startsWith("<svg");
            assertThat(live.process().waitFor(150, TimeUnit.SECONDS)).as(live.output()).isTrue();
            assertThat(live.process().exitValue()).as(live.output()).isZero();
        } finally {
            live.close();
            java.nio.file.Files.deleteIfExists(traffic);
        }
    }

    @Test
    void whatItCannotDrawIsRefusedBeforeItStarts() {
        CliHarness noTraffic = new CliHarness();
        assertThat(noTraffic.execute("run", "gsum", "--hosts", "2", "--serve", "0", "--topology", FAT_TREE))
                .isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(noTraffic.err()).contains("it needs --traffic FILE");
        CliHarness noServe = new CliHarness();
        assertThat(noServe.execute("run", "gsum", "--hosts", "2", "--traffic", "/tmp/x.json", "--topology", FAT_TREE))
                .isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(noServe.err()).contains("it needs --serve");
        CliHarness tcp = new CliHarness();
        assertThat(tcp.execute("run", "gsum", "--hosts", "2", "--transport", "tcp", "--traffic", "/tmp/x.json", "--serve", "0",
                "--topology", FAT_TREE)).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(tcp.err()).contains("draws a job in one JVM");
        CliHarness tooMany = new CliHarness();
        assertThat(tooMany.execute("run", "gsum", "--ranks", "32", "--hosts", "32", "--traffic", "/tmp/x.json", "--serve", "0",
                "--topology", FAT_TREE)).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(tooMany.err()).contains("32 hosts but the topology only 16 nodes");
    }
}
