package org.eventspace.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;

import org.eventspace.base.json.Json;
import org.eventspace.comm.launch.JobEnvironment;
import org.eventspace.comm.launch.Rendezvous;
import org.eventspace.comm.launch.RendezvousProtocol;
import org.eventspace.comm.path.Gred;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.transport.tcp.JobSecret;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A host's result line longer than one rendezvous string (the monitors' snapshots and the scope block of a 1 024-rank
 * job are about 3 MB on host 0) reaches the launcher whole: one host over loopback TCP, its rendezvous in this JVM.
 */
@Timeout(60)
class LargeResultTest {
    @Test
    void aResultOfSeveralMegabytesArrivesWholeThroughTheRendezvous() {
        JobSecret secret = JobSecret.random();
        try (Rendezvous rendezvous = Rendezvous.start("127.0.0.1", 0, secret, 1, Duration.ofSeconds(20))) {
            JobConfig config = JobConfig.of(JobConfig.shortcut(2, 1, 1, TreeShape.hier(2)), JobTransport.TCP);
            InetSocketAddress at = InetSocketAddress.createUnresolved("127.0.0.1", rendezvous.address().getPort());
            JobEnvironment env = new JobEnvironment(0, 1, "test", at, false, secret, Duration.ofSeconds(20), 0);
            ObjectNode program = Json.mapper().createObjectNode();
            ArrayNode ranks = program.putArray("ranks");
            for (int r = 0; r < 40_000; r++) {
                // Non-ASCII text as well: the pieces are cut between bytes, not characters.
                ranks.addObject().put("rank", r).put("value", 42L * r).put("where", "gred h" + r + " — µs ✓");
            }
            HostResult sent;
            try (MonitoredJob job = MonitoredJob.join(config, env, p -> Gred.ReleaseListener.NONE, Map.of())) {
                job.runRanks(rank -> {
                    job.comm(rank).barrier();
                    return true;
                }, Duration.ofSeconds(20));
                sent = job.finish(program);
            }
            String line = rendezvous.results().get(0);
            assertThat(line.getBytes(java.nio.charset.StandardCharsets.UTF_8).length)
                    .isGreaterThan(2 * RendezvousProtocol.MAX_STRING_BYTES);
            HostResult received = HostResult.decode(Json.mapper(), line);
            assertThat(received.leftOut()).isEmpty();
            // As text: a parsed number is an int node where the sent one was a long.
            assertThat(received.program().toString()).isEqualTo(program.toString());
            assertThat(sent.program()).isSameAs(program);
        }
    }
}
