package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** {@code run --monitor}: the monitors block of the report, in one JVM and over TCP, and the flags' checks. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RunMonitorsTest {
    @TempDir
    Path dir;

    private JsonNode run(String... extra) throws Exception {
        Path json = dir.resolve("run-" + System.nanoTime() + ".json");
        String[] base = {"run", "gsum", "--iterations", "1500", "--warmup-s", "0", "--json", json.toString()};
        String[] args = new String[base.length + extra.length];
        System.arraycopy(base, 0, args, 0, base.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        assertThat(new CliHarness().execute(args)).isZero();
        return new ObjectMapper().readTree(json.toFile());
    }

    @Test
    void theMonitorsNameTheSlowRankInOneJvmAndOverTcp() throws Exception {
        for (String transport : new String[] {"jvm", "tcp"}) {
            JsonNode report = run("--ranks", "8", "--hosts", "2", "--transport", transport, "--monitor", "loadbalance,stats",
                    "--coschedule", transport.equals("tcp") ? "ii" : "none", "--slow-rank", "5:200",
                    // over TCP each host process on a CPU of its own, as on a cluster of one-CPU hosts
                    "--bind-to", transport.equals("tcp") ? "core" : "none");
            JsonNode m = report.path("monitors");
            assertThat(m.path("loadbalance").path("slowest_rank").asInt()).as(transport).isEqualTo(5);
            assertThat(m.path("loadbalance").path("slowest_rank_beyond_chance").asBoolean()).as(transport).isTrue();
            assertThat(m.path("loadbalance").path("heaviest_path").get(0).asText()).contains(".core.");
            assertThat(m.path("stats").path("wrappers").size()).as(transport + ": 6 greds (hier:8 over 2 hosts, 2 trees), "
                    + "2 cores and 2 hops").isEqualTo(10);
            assertThat(m.path("stats").path("wrappers").path("t0.proxy.h1.0").path("two_way_latency").path("mean").asDouble())
                    .as(transport + ": a hop takes time").isPositive();
            assertThat(m.path("stats").path("wrappers").path("t0.core.h0").path("store_latency").path("count").asLong())
                    .isPositive();
            JsonNode anyGred = m.path("stats").path("wrappers").elements().next();
            assertThat(anyGred.path("ports").get(0).path("total").path("median").isNumber()).isTrue();
            assertThat(m.path("profile").path("ranks").size()).isEqualTo(8);
            assertThat(m.path("profile").path("operations").path("allreduce-sum").path("imbalance_pct").isNumber()).isTrue();
            assertThat(m.path("tuples_missed").asLong()).isZero();
            assertThat(m.path("analysis").path("threads").asInt()).isEqualTo(2);
            assertThat(m.path("analysis").path("lowest_priority_threads").asInt())
                    .as(transport + ": coscheduled analysis threads yield the CPU to the ranks").isEqualTo(transport.equals("tcp") ? 2 : 0);
            assertThat(report.path("faults").path("slow_rank").asInt()).isEqualTo(5);
            // The results also travelled live through the job's event scope (newest state per host), and what the
            // front-end had gathered at the end is the report itself.
            assertThat(report.path("scope").path("filter").asText()).isEqualTo("newest");
            JsonNode live = m.path("live");
            assertThat(live.path("hosts").size()).as(transport + ": every rank host published").isEqualTo(2);
            live.path("hosts").forEach(h -> assertThat(h.path("final").asBoolean()).as(transport + ": last set gathered").isTrue());
            assertThat(live.path("agrees_with_final").asBoolean()).as(transport + ": " + live).isTrue();
        }
    }

    /**
     * A butterfly over TCP, each host process bound to one CPU: its ranks poll their own links, so the analysis runs in
     * their idle moments (after each exchange's send), and nothing written is missed; the slow rank is still named
     * from its host's join, and every gred has its metrics (its {@code below}: the exchange and the store).
     */
    @Test
    void theMonitorsOfAButterflyMissNothingAndNameTheSlowRank() throws Exception {
        JsonNode report = run("--ranks", "4", "--hosts", "2", "--transport", "tcp", "--tree", "butterfly", "--monitor",
                "loadbalance,stats", "--coschedule", "ii", "--gather", "par:1", "--slow-rank", "3:200", "--bind-to", "core");
        JsonNode m = report.path("monitors");
        assertThat(m.path("tuples_missed").asLong()).as(m.path("analysis").toString()).isZero();
        assertThat(m.path("loadbalance").path("slowest_rank").asInt()).isEqualTo(3);
        assertThat(m.path("stats").path("wrappers").path("t0.gred.h1.0").path("ports").size()).isEqualTo(2);
        assertThat(m.path("stats").path("wrappers").path("t1.gred.h0.0").path("below").path("count").asLong())
                .as("the exchange below each host's gred is timed").isPositive();
        assertThat(report.path("result_ok").asBoolean()).isTrue();
    }

    /**
     * A flat tree over 4 hosts: every remote rank enters the root gred through a proxy of its own and arrives after
     * every local rank, so the slow rank (6, on h1) is judged among h1's ports, not among the local ranks or all 16.
     */
    @Test
    void aSlowRankBehindAProxyOnAFlatTreeIsNamed() throws Exception {
        JsonNode report = run("--ranks", "16", "--hosts", "4", "--tree", "flat", "--monitor",
                "loadbalance", "--slow-rank", "6:200");
        JsonNode lb = report.path("monitors").path("loadbalance");
        assertThat(lb.path("greds").path("t0.gred.h0.0").path("contributors").get(6).asText())
                .as("rank 6's port is its proxy").isEqualTo("t0.proxy.h1.2");
        assertThat(lb.path("slowest_rank").asInt()).as(lb.path("verdict").toString()).isEqualTo(6);
        assertThat(lb.path("slowest_rank_beyond_chance").asBoolean()).as(lb.path("verdict").toString()).isTrue();
        assertThat(lb.path("ranks").size()).as("every rank judged").isEqualTo(16);
        assertThat(lb.path("ranks_not_judged")).isEmpty();
        assertThat(report.path("verdict").path("slowest_rank").path("culprit").asInt()).isEqualTo(6);
    }

    /** {@code --analysis central}: the scope carries raw tuples to host 0, which analyses them; same answers. */
    @Test
    void theCentralAnalysisNamesTheSlowRankOverTcp() throws Exception {
        JsonNode report = run("--ranks", "8", "--hosts", "2", "--transport", "tcp", "--monitor", "loadbalance,stats",
                "--analysis", "central", "--slow-rank", "6:200");
        JsonNode m = report.path("monitors");
        assertThat(report.path("scope").path("filter").asText()).isEqualTo("tuples");
        assertThat(m.path("loadbalance").path("slowest_rank").asInt()).isEqualTo(6);
        assertThat(m.path("analysis").path("threads").asInt()).as("nothing analyses on the hosts").isZero();
        assertThat(m.path("tuples_read").asLong()).isEqualTo(report.path("scope").path("records_gathered").asLong());
        assertThat(m.path("stats").path("wrappers").size()).isEqualTo(10);
        assertThat(m.has("live")).as("the central analysis is the front-end's own; nothing else to gather").isFalse();
    }

    @Test
    void badMonitorFlagsAreRefusedBeforeTheRun() {
        CliHarness cli = new CliHarness();
        String[][] bad = {
            {"--monitor", "loadbalance", "--collectors", "off"},
            {"--monitor", "speed"},
            {"--monitor", "stats,stats"},
            {"--coschedule", "ii"},
            {"--monitor", "stats", "--coschedule", "iii"},
            {"--slow-rank", "99:100"},
            {"--slow-rank", "1"},
            {"--slow-rank", "1:-5"},
            {"--noise", "2:100"},
            {"--noise", "x:1"},
            {"--analysis", "central"},
            {"--monitor", "stats", "--analysis", "nearby"},
            {"--monitor", "stats", "--analysis", "central", "--coschedule", "ii"},
            {"--monitor", "stats", "--scope", "flat", "--filter", "stats"},
        };
        for (String[] flags : bad) {
            String[] args = new String[4 + flags.length];
            args[0] = "run";
            args[1] = "gsum";
            args[2] = "--ranks";
            args[3] = "4";
            System.arraycopy(flags, 0, args, 4, flags.length);
            assertThat(cli.execute(args)).as(String.join(" ", flags)).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        }
    }
}
