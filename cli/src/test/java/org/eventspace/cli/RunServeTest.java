package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code run --serve}: the run serves its own dashboard while it runs, and refuses what it cannot show. */
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
