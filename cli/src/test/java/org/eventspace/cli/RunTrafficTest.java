package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code run alltoall --traffic FILE}: the counters the transports kept give exactly the matrix the all-to-all's algorithm
 * must send (one message of --bytes from every rank to every other rank per iteration, on different hosts), in its two
 * phases, and every byte counted as sent is counted as received; in one JVM and over TCP.
 */
@Timeout(180)
class RunTrafficTest {
    private static final int WARMUP = 20;
    private static final int ITERATIONS = 30;
    private static final int BYTES = 64;

    @TempDir
    Path dir;

    private final CliHarness cli = new CliHarness();

    private JsonNode run(String transport, int ranks, int hosts) throws Exception {
        Path file = dir.resolve(transport + ".traffic.json");
        int code = cli.execute("run", "alltoall", "--ranks", Integer.toString(ranks), "--hosts", Integer.toString(hosts),
                "--transport", transport, "--collectors", "off", "--iterations", Integer.toString(ITERATIONS), "--warmup",
                Integer.toString(WARMUP), "--warmup-s", "0", "--bytes", Integer.toString(BYTES), "--traffic", file.toString());
        assertThat(code).as(cli.err()).isZero();
        return new ObjectMapper().readTree(file.toFile());
    }

    @Test
    void inOneJvmTheMatrixIsExactlyTheAlgorithms() throws Exception {
        checkAllToAll(run("jvm", 4, 4), 4);
    }

    @Test
    void overTcpTheHostProcessesCountsMergeIntoTheSameMatrix() throws Exception {
        checkAllToAll(run("tcp", 4, 2), 4);
    }

    private static void checkAllToAll(JsonNode doc, int ranks) {
        assertThat(doc.path("schema").asText()).isEqualTo("eventspace.traffic/1");
        assertThat(doc.path("run").path("benchmark").asText()).isEqualTo("alltoall");
        JsonNode rankHosts = doc.path("rank_hosts");
        // Phases: (none) before the benchmark marks one, then its warm-up and its timed iterations.
        assertThat(doc.path("phases").findValuesAsText("name")).containsExactly("(none)", "warmup", "alltoall");
        long[] perPhase = {0, WARMUP, ITERATIONS};
        for (int p = 0; p < 3; p++) {
            JsonNode rank = doc.path("phases").get(p).path("rank");
            for (int s = 0; s < ranks; s++) {
                for (int d = 0; d < ranks; d++) {
                    boolean crosses = rankHosts.get(s).asInt() != rankHosts.get(d).asInt();
                    long messages = crosses ? perPhase[p] : 0;
                    assertThat(rank.path("bytes_sent").get(s).get(d).asLong()).as("phase %d bytes %d->%d", p, s, d)
                            .isEqualTo(messages * BYTES);
                    assertThat(rank.path("messages_sent").get(s).get(d).asLong()).isEqualTo(messages);
                    assertThat(rank.path("bytes_received").get(s).get(d).asLong()).isEqualTo(messages * BYTES);
                    assertThat(rank.path("messages_received").get(s).get(d).asLong()).isEqualTo(messages);
                }
            }
        }
        JsonNode total = doc.path("total");
        assertThat(sum(total.path("rank").path("bytes_sent"))).isEqualTo(sum(total.path("rank").path("bytes_received")))
                .isPositive();
        assertThat(sum(total.path("host").path("bytes_sent"))).isEqualTo(sum(total.path("host").path("bytes_received")));
        assertThat(sum(total.path("host").path("messages_sent"))).isEqualTo(sum(total.path("host").path("messages_received")));
        // The host matrix holds the ranks' bytes folded onto their hosts; the one barrier's tree hops carry no payload.
        int hosts = doc.path("hosts").asInt();
        for (int a = 0; a < hosts; a++) {
            for (int b = 0; b < hosts; b++) {
                long expected = 0;
                for (int s = 0; s < ranks; s++) {
                    for (int d = 0; d < ranks; d++) {
                        if (rankHosts.get(s).asInt() == a && rankHosts.get(d).asInt() == b) {
                            expected += total.path("rank").path("bytes_sent").get(s).get(d).asLong();
                        }
                    }
                }
                assertThat(total.path("host").path("bytes_sent").get(a).get(b).asLong()).isEqualTo(expected);
            }
        }
    }

    private static long sum(JsonNode matrix) {
        long t = 0;
        for (JsonNode row : matrix) {
            for (JsonNode v : row) {
                t += v.asLong();
            }
        }
        return t;
    }

    @Test
    void aScopeWithoutTrafficAndAMalformedScopeAreRefused() {
        assertThat(cli.execute("run", "alltoall", "--traffic-scope", "all")).isEqualTo(2);
        assertThat(cli.err()).contains("--traffic-scope all says which messages --traffic counts: it needs --traffic FILE");
        assertThat(cli.execute("run", "alltoall", "--traffic", "x.json", "--traffic-scope", "collectives:fft")).isEqualTo(2);
        assertThat(cli.err()).contains("--traffic-scope: traffic scope 'collectives:fft': 'fft' is not a collective");
    }
}
