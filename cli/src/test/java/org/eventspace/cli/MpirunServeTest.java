package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@code mpirun --serve}: an unmodified C MPI program seen live. Rank 1 sleeps before every MPI_Allreduce; the
 * dashboard, fed by the node agent reading the ranks' trace buffers while they run, names it before the program ends.
 */
@Timeout(360)
class MpirunServeTest {
    @TempDir
    Path dir;

    @Test
    void theLiveDashboardNamesTheSleepingRankBeforeTheProgramEnds() throws Exception {
        Path program = NativePrograms.compile("es_allreduce", dir);

        // 3000 allreduces with rank 1 sleeping 3 ms before each: about 9 s, long enough to be polled while it runs.
        LiveCommand live = LiveCommand.start(List.of("mpirun", "--serve", "0", "-np", "3", "--trace-dir",
                dir.resolve("trace").toString(), "--mpirun-arg", "--mca", "--mpirun-arg", "btl", "--mpirun-arg", "self,vader",
                "--", program.toString(), "-i", "3000", "-s", "1", "-d", "3000"));
        try {
            String url = live.awaitUrl(Duration.ofSeconds(120));
            JsonNode lb = null;
            JsonNode health = null;
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline && live.process().isAlive()) {
                health = live.get(url + "api/v1/health");
                JsonNode l = live.get(url + "api/v1/loadbalance");
                if (health != null && health.path("running").asBoolean() && l != null && l.path("slowest_rank").asInt(-1) == 1
                        && l.path("collective_instances").asLong() >= 50 && l.path("slowest_rank_beyond_chance").asBoolean()) {
                    lb = l;
                    break;
                }
                Thread.sleep(200);
            }
            assertThat(lb).as("the slow rank, while the program ran; output:\n%s", live.output()).isNotNull();
            assertThat(health.path("status").asText()).isEqualTo("ok");
            assertThat(lb.path("slowest_rank_beyond_chance").asBoolean()).isTrue();
            // The tree is the flat gred of PMPI's view: one rank node per rank, the heaviest path ends at rank 1.
            JsonNode tree = live.get(url + "api/v1/tree");
            assertThat(tree.path("nodes").findValues("rank")).hasSize(3);
            assertThat(tree.path("slowest_rank").asInt()).isEqualTo(1);
            JsonNode stats = live.get(url + "api/v1/stats");
            assertThat(stats.path("ranks").get(1).path("profile").has("MPI_Allreduce")).as(stats.toString()).isTrue();
            JsonNode ranks = stats.path("ranks");
            // Each rank's figures come from its port of the flat gred: rank 1 arrives last most often, and every rank has
            // its wait at N×N (waits are not compared: on a loaded machine the sleeper waits for descheduled ranks too).
            for (int r = 0; r < 3; r++) {
                assertThat(ranks.get(r).path("arrival_wait_us").isNumber()).as(ranks.toString()).isTrue();
                if (r != 1) {
                    assertThat(ranks.get(1).path("last_share").asDouble()).isGreaterThan(ranks.get(r).path("last_share").asDouble());
                }
            }
            assertThat(live.process().waitFor(120, TimeUnit.SECONDS)).as(live.output()).isTrue();
            assertThat(live.process().exitValue()).as(live.output()).isZero();
            assertThat(live.output()).contains("allreduce ok: 3 ranks, 3000 iterations").contains("eventspace: rank 1 is the slowest rank, beyond chance");
        } finally {
            live.close();
        }
    }

    @Test
    void serveNeedsTheLiveAgent() {
        CliHarness cli = new CliHarness();
        assertThat(cli.execute("mpirun", "-np", "2", "--serve", "0", "--agent", "after", "--", "/bin/true")).isEqualTo(2);
        assertThat(cli.err()).contains("--serve shows the program while it runs: it needs --agent live");
    }

}
