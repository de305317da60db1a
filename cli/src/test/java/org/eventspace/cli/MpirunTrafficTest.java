package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code eventspace mpirun --traffic}: real MPI programs under Open MPI's PML monitoring. The program's own sends
 * are exactly what it sent (the interposition library's clock-synchronisation messages taken out), a collective's
 * messages between ranks are there although the program never sent one, and the file maps onto a topology.
 */
@Timeout(180)
class MpirunTrafficTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void aRingsMatrixHoldsExactlyItsSendsAndMapsOntoATopology() throws Exception {
        Path program = compile("es_ring");
        Path traffic = dir.resolve("ring-traffic.json");
        int laps = 50;
        CliHarness cli = new CliHarness();
        int exit = cli.execute("mpirun", "-np", "4", "--sim-hosts", "2", "--traffic", traffic.toString(),
                "--trace-dir", dir.resolve("trace").toString(), "--mpirun-arg", "--mca", "--mpirun-arg", "btl",
                "--mpirun-arg", "self,vader", "--", program.toString(), String.valueOf(laps));
        assertThat(exit).as(cli.err()).isZero();
        assertThat(cli.err()).contains("eventspace: traffic (pml monitoring): ");
        JsonNode t = JSON.readTree(traffic.toFile());
        assertThat(t.path("schema").asText()).isEqualTo("eventspace.traffic/1");
        assertThat(t.at("/run/transport").asText()).isEqualTo("mpi");
        assertThat(t.path("counted_by").asText()).contains("PML monitoring");
        assertThat(t.path("rank_hosts").toString()).isEqualTo("[0,0,1,1]");
        JsonNode send = operation(t, "send");
        for (int s = 0; s < 4; s++) {
            for (int d = 0; d < 4; d++) {
                long expected = d == (s + 1) % 4 ? 4L * laps : 0;
                assertThat(send.at("/rank/bytes_sent/" + s + "/" + d).asLong()).as("bytes %d -> %d", s, d).isEqualTo(expected);
                assertThat(send.at("/rank/messages_sent/" + s + "/" + d).asLong()).isEqualTo(expected / 4);
            }
        }
        // ranks 1 -> 2 and 3 -> 0 cross the hosts: 2 x 200 B of the ring between hosts, the rest within them
        assertThat(send.at("/host/bytes_sent/0/1").asLong()).isEqualTo(4L * laps);
        assertThat(send.at("/host/bytes_sent/1/0").asLong()).isEqualTo(4L * laps);

        Path loads = dir.resolve("loads.json");
        CliHarness map = new CliHarness();
        assertThat(map.execute("traffic", "map", "--topology", Path.of("..", "examples", "topology", "two-switch.topo").toString(),
                traffic.toString(), "--json", loads.toString())).as(map.err()).isZero();
        assertThat(JSON.readTree(loads.toFile()).path("max_link").isObject()).isTrue();
    }

    @Test
    void aCollectivesMessagesAreCountedThoughTheProgramSendsNone() throws Exception {
        Path program = compile("es_allreduce");
        Path traffic = dir.resolve("allreduce-traffic.json");
        int iterations = 200;
        CliHarness cli = new CliHarness();
        int exit = cli.execute("mpirun", "-np", "3", "--traffic", traffic.toString(), "--trace-dir",
                dir.resolve("trace").toString(), "--mpirun-arg", "--mca", "--mpirun-arg", "btl", "--mpirun-arg", "self,vader",
                "--", program.toString(), "-i", String.valueOf(iterations));
        assertThat(exit).as(cli.err()).isZero();
        JsonNode t = JSON.readTree(traffic.toFile());
        assertThat(total(operation(t, "send").at("/rank/bytes_sent"))).as("the program sends nothing point-to-point").isZero();
        // every allreduce of 3 ranks moves at least 2 messages between them (each contribution must reach another rank)
        JsonNode coll = operation(t, "collectives");
        assertThat(total(coll.at("/rank/messages_sent"))).isGreaterThanOrEqualTo(2L * iterations);
        assertThat(total(t.at("/total/rank/bytes_sent"))).isEqualTo(total(coll.at("/rank/bytes_sent"))
                + total(operation(t, "one-sided").at("/rank/bytes_sent")));
    }

    private static JsonNode operation(JsonNode t, String name) {
        for (JsonNode op : t.path("operations")) {
            if (op.path("name").asText().equals(name)) {
                return op;
            }
        }
        throw new AssertionError("no operation " + name + " in " + t.path("operations"));
    }

    private static long total(JsonNode matrix) {
        long sum = 0;
        for (JsonNode row : matrix) {
            for (JsonNode v : row) {
                sum += v.asLong();
            }
        }
        return sum;
    }

    private Path compile(String name) throws Exception {
        return NativePrograms.compile(name, dir);
    }
}
