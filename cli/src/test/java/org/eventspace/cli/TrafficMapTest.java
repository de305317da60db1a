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

/**
 * {@code traffic map}: an alltoall's traffic file routed over the example fat tree gives per-link bytes whose sum is the
 * routed bytes times the route lengths, and the hottest half-link; bad inputs exit 2 naming the file and place.
 */
@Timeout(120)
class TrafficMapTest {
    private static final Path EXAMPLES = Path.of("../examples/topology");

    @TempDir
    Path dir;

    private final CliHarness cli = new CliHarness();

    @Test
    void anAllToAllOnTheExampleFatTree() throws Exception {
        Path traffic = dir.resolve("a2a.json");
        Path run = dir.resolve("run.json");
        assertThat(cli.execute("run", "alltoall", "--ranks", "8", "--hosts", "8", "--collectors", "off", "--iterations", "10",
                "--warmup", "5", "--warmup-s", "0", "--bytes", "16", "--traffic", traffic.toString(), "--json", run.toString()))
                .as(cli.err()).isZero();
        Path out = dir.resolve("loads.json");
        Path svg = dir.resolve("net.svg");
        assertThat(cli.execute("traffic", "map", "--topology", EXAMPLES.resolve("fattree-16.topo").toString(),
                traffic.toString(), "--json", out.toString(), "--svg", svg.toString())).as(cli.err()).isZero();
        String picture = Files.readString(svg);
        // 32 links, two halves each; the hottest half (a node sending to its leaf) is the ramp's red.
        assertThat(picture).startsWith("<svg").contains("Hottest link halves");
        assertThat(picture.split("class=\"half\"", -1)).hasSize(65);
        assertThat(picture).contains("data-from=\"n0\" data-to=\"L1-0\" data-bytes=\"1680\"");
        assertThat(picture).contains("stroke=\"#bd0026\"");
        Path page = dir.resolve("report.html");
        assertThat(cli.execute("report", run.toString(), "--network", out.toString(), "-o", page.toString())).as(cli.err()).isZero();
        assertThat(Files.readString(page)).contains("id=\"network-panel\"").contains("<svg");
        assertThat(cli.execute("report", run.toString(), "--network", run.toString(), "-o", page.toString())).isEqualTo(2);
        assertThat(cli.err()).contains("/schema: expected \"eventspace.link-loads/1\"");
        assertThat(cli.out()).contains("hottest link halves");
        JsonNode loads = new ObjectMapper().readTree(out.toFile());
        assertThat(loads.path("schema").asText()).isEqualTo("eventspace.link-loads/1");
        // 8 hosts on n0..n7: leaves L1-0 and L1-1. Each pair sends 15 × 16 B; host n_p's link carries 7 × 240 B up.
        long pair = 15 * 16;
        long sum = 0;
        for (JsonNode l : loads.path("links")) {
            sum += l.path("bytes_a_to_b").asLong() + l.path("bytes_b_to_a").asLong();
        }
        assertThat(sum).isEqualTo(loads.path("byte_hops").asLong());
        // 8 × 7 pairs: 8 × 3 inside a leaf (2 links), 8 × 4 across leaves (4 links).
        assertThat(loads.path("byte_hops").asLong()).isEqualTo((8 * 3 * 2 + 8 * 4 * 4) * pair);
        assertThat(loads.path("max_link").path("bytes").asLong()).isEqualTo(7 * pair);
        Path phaseOut = dir.resolve("timed.json");
        assertThat(cli.execute("traffic", "map", "--topology", EXAMPLES.resolve("fattree-16.topo").toString(), "--phase",
                "alltoall", traffic.toString(), "--json", phaseOut.toString())).as(cli.err()).isZero();
        assertThat(new ObjectMapper().readTree(phaseOut.toFile()).path("max_link").path("bytes").asLong()).isEqualTo(7 * 10 * 16);
        // Per operation: the all-to-all's sends carry every byte; its barriers move messages of no payload.
        Path sendOut = dir.resolve("send.json");
        assertThat(cli.execute("traffic", "map", "--topology", EXAMPLES.resolve("fattree-16.topo").toString(), "--operation",
                "send", traffic.toString(), "--json", sendOut.toString())).as(cli.err()).isZero();
        JsonNode sends = new ObjectMapper().readTree(sendOut.toFile());
        assertThat(sends.path("max_link").path("bytes").asLong()).isEqualTo(7 * pair);
        assertThat(sends.path("phase").asText()).isEqualTo("operation send");
        assertThat(cli.execute("traffic", "map", "--topology", EXAMPLES.resolve("fattree-16.topo").toString(), "--operation",
                "allreduce", traffic.toString(), "--json", sendOut.toString())).isEqualTo(2);
        assertThat(cli.err()).contains("--operation allreduce: ").contains("has the operations [send, barrier]");
    }

    @Test
    void badInputsExit2NamingFileAndPlace() throws Exception {
        Path traffic = dir.resolve("t.json");
        Files.writeString(traffic, "{\"schema\": \"eventspace.traffic/1\", \"ranks\": 0}");
        Path out = dir.resolve("o.json");
        assertThat(cli.execute("traffic", "map", "--topology", EXAMPLES.resolve("fattree-16.topo").toString(),
                traffic.toString(), "--json", out.toString())).isEqualTo(2);
        assertThat(cli.err()).contains("t.json: /ranks: expected an integer >= 1, got 0");
        Path topo = dir.resolve("bad.topo");
        Files.write(topo, List.of("eventspace-topology 1", "fattree 4 2 subnets"));
        Path good = dir.resolve("g.json");
        assertThat(cli.execute("run", "alltoall", "--ranks", "2", "--hosts", "2", "--collectors", "off", "--iterations", "2",
                "--warmup", "1", "--warmup-s", "0", "--traffic", good.toString())).isZero();
        assertThat(cli.execute("traffic", "map", "--topology", topo.toString(), good.toString(), "--json", out.toString()))
                .isEqualTo(2);
        assertThat(cli.err()).contains("bad.topo:2: expected 'fattree K N [subnets S]'");
    }
}
