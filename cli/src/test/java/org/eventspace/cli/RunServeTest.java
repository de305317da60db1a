package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code run --serve}: the run serves its own dashboard while it runs, and after it for {@code --linger S} (by default
 * not at all without a terminal, so a script never waits), and refuses what it cannot show.
 */
@Timeout(120)
class RunServeTest {
    @Test
    void aRunServesItsDashboardWhileItRuns() {
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            code = new CliHarness().execute("run", "gsum", "--ranks", "4", "--hosts", "2", "--iterations", "2000",
                    "--warmup", "100", "--warmup-s", "0", "--monitor", "loadbalance", "--serve", "0");
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
        }
        assertThat(code).as(out + "\n" + err).isZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).containsPattern("dashboard: http://127\\.0\\.0\\.1:\\d+/");
    }

    /**
     * With {@code --linger}, the run ended, its summary printed: the dashboard keeps serving the final state (not
     * running, with the run's outcome) to a client that comes late, and says so; the test ends the command.
     */
    @Test
    void withLingerTheFinalStateIsServedAfterTheRunEnded() throws Exception {
        LiveCommand live = LiveCommand.start(List.of("run", "gsum", "--ranks", "4", "--hosts", "2", "--iterations", "2000",
                "--warmup", "100", "--warmup-s", "0", "--monitor", "loadbalance", "--serve", "0", "--linger", "60"));
        try {
            String url = live.awaitUrl(Duration.ofSeconds(60));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() - deadline < 0 && !live.output().contains("run ended; serving the final state")) {
                Thread.sleep(100);
            }
            assertThat(live.output()).contains("run ended; serving the final state for 60 s (--linger 60), or until Ctrl-C")
                    .contains("allreduce");
            JsonNode health = live.get(url + "api/v1/health");
            assertThat(health).as(live.output()).isNotNull();
            assertThat(health.path("running").asBoolean(true)).isFalse();
            JsonNode outcome = live.get(url + "api/v1/frame").path("outcome");
            assertThat(outcome.path("ok").asBoolean()).as(outcome.toString()).isTrue();
            assertThat(outcome.path("summary").isArray()).isTrue();
            assertThat(outcome.path("summary")).isNotEmpty();
            assertThat(live.process().isAlive()).isTrue();
        } finally {
            live.close();
        }
    }

    @Test
    void lingerIsRefusedWhereThisProcessDoesNotServe() {
        CliHarness alone = new CliHarness();
        assertThat(alone.execute("run", "gsum", "--linger", "5")).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(alone.err()).contains("--linger 5 keeps the dashboard of --serve up after the run: it needs --serve");
        CliHarness negative = new CliHarness();
        assertThat(negative.execute("run", "gsum", "--serve", "0", "--linger", "-1")).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(negative.err()).contains("--linger must be 0..86400 seconds");
        CliHarness tcp = new CliHarness();
        assertThat(tcp.execute("run", "gsum", "--transport", "tcp", "--hosts", "2", "--serve", "0", "--linger", "5"))
                .isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(tcp.err()).contains("with host processes (--transport tcp) host 0's process serves it");
        CliHarness launch = new CliHarness();
        assertThat(launch.execute("launch", "-n", "2", "--serve", "0", "--linger", "5", "--",
                "org.eventspace.examples.JobExample")).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(launch.err()).contains("with launch host 0's process serves it");
    }

    @Test
    void withTuiTheTextViewDrawsTheRunModelsVerdictWhileItRuns() {
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            code = new CliHarness().execute("run", "gsum", "--ranks", "4", "--hosts", "2", "--iterations", "3000",
                    "--warmup", "100", "--warmup-s", "0", "--monitor", "loadbalance", "--slow-rank", "2:300",
                    "--serve", "0", "--tui");
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
        }
        String drawn = err.toString(StandardCharsets.UTF_8);
        assertThat(code).as(out + "\n" + drawn).isZero();
        // redrawn in place (ANSI), with the frame's title line and the run model's verdict sentence
        assertThat(drawn).contains("EventSpace gsum").contains("\033[K");
        assertThat(drawn).containsPattern("rank 2 is the slowest rank|no rank is slower|no verdict");
        CliHarness alone = new CliHarness();
        assertThat(alone.execute("run", "gsum", "--tui")).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(alone.err()).contains("--tui draws the dashboard of --serve as text: it needs --serve");
    }

    @Test
    void aBadPortOrAddressIsRefusedBeforeItStarts() {
        CliHarness port = new CliHarness();
        assertThat(port.execute("run", "gsum", "--transport", "tcp", "--hosts", "2", "--serve", "70000"))
                .isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(port.err()).contains("--serve must be a port");
        CliHarness launch = new CliHarness();
        assertThat(launch.execute("launch", "-n", "2", "--serve", "0", "--bind", " ", "--", "org.eventspace.examples.JobExample"))
                .isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(launch.err()).contains("--bind must be an address");
    }
}
