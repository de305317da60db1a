package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** {@code bench dashboard-load}: a short run's report has every figure, the clients were answered, and it ends by itself. */
@Timeout(120)
class DashboardLoadTest {
    @TempDir
    Path dir;

    @Test
    void aShortRunReportsTheOverheadOfPollingClientsWithAnInterval() throws Exception {
        Path json = dir.resolve("load.json");
        java.io.PrintStream stdout = System.out;
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        CliHarness cli = new CliHarness();
        int code;
        try {
            System.setOut(new java.io.PrintStream(out, true));
            code = cli.execute("bench", "dashboard-load", "--clients", "4", "--duration", "3", "--block-s", "0.5",
                    "--warmup-s", "0.5", "--poll-ms", "50", "--ranks", "4", "--hosts", "2", "--clients-at-lowest-priority", "--json", json.toString());
        } finally {
            System.setOut(stdout);
        }
        assertThat(code).as(out + cli.err() + (json.toFile().exists() ? java.nio.file.Files.readString(json) : "")).isZero();
        JsonNode r = new ObjectMapper().readTree(json.toFile());
        assertThat(r.path("schema").asText()).isEqualTo("eventspace.bench-dashboard-load/1");
        assertThat(r.path("clients").asInt()).isEqualTo(4);
        assertThat(r.path("pairs").asInt() + r.path("pairs_starved").asInt()).isEqualTo(3);
        assertThat(r.path("pairs_us_per_iteration")).hasSize(r.path("pairs").asInt());
        // 4 clients every 50 ms over 1 s of polling blocks: some requests, every one answered
        assertThat(r.path("requests").asLong()).isPositive();
        assertThat(r.path("request_errors").asLong()).isZero();
        // idle blocks are idle: no request ends inside one, not even one begun in the polling block before it
        assertThat(r.has("requests_in_idle_blocks")).isTrue();
        assertThat(r.path("requests_in_idle_blocks").asLong()).isZero();
        // whether the priorities could matter here, and whether the threads got them
        JsonNode sched = r.path("scheduling");
        assertThat(sched.path("process_policy").asText()).startsWith("SCHED_");
        assertThat(sched.path("nice_has_effect").asBoolean()).isEqualTo(!sched.path("process_policy").asText().equals("SCHED_IDLE"));
        assertThat(sched.path("dashboard_threads").asInt()).isPositive();
        if (java.nio.file.Files.isExecutable(Path.of("/usr/bin/renice")) || java.nio.file.Files.isExecutable(Path.of("/bin/renice"))) {
            assertThat(sched.path("dashboard_threads_at_nice_19").asInt()).as(sched.toString()).isEqualTo(sched.path("dashboard_threads").asInt());
            assertThat(sched.path("clients_at_nice_19").asInt()).as(sched.toString()).isEqualTo(4);
        }
        double mean = r.path("overhead_pct").asDouble();
        assertThat(r.path("overhead_pct_ci95").get(0).asDouble()).isLessThanOrEqualTo(mean);
        assertThat(r.path("overhead_pct_ci95").get(1).asDouble()).isGreaterThanOrEqualTo(mean);
        assertThat(r.path("off_us_per_iteration").asDouble()).isPositive();
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().startsWith("es-load-client-") && t.isAlive());
    }

    @Test
    void flagsThatCannotMakeTwoPairsAreRefused() {
        CliHarness cli = new CliHarness();
        assertThat(cli.execute("bench", "dashboard-load", "--duration", "1", "--block-s", "1")).isEqualTo(2);
        assertThat(cli.err()).contains("--duration must hold at least two pairs of blocks");
        cli = new CliHarness();
        assertThat(cli.execute("bench", "dashboard-load", "--clients", "0")).isEqualTo(2);
        assertThat(cli.err()).contains("--clients must be 1..1000, got 0");
    }
}
