package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The README's first command: the demo runs monitored, serves its dashboard on loopback (and with --tui a text view),
 * ends after --duration with exact sums and names the slowest rank.
 */
@Timeout(120)
class DemoCommandTest {
    @Test
    void theDemoServesItsDashboardAndEndsAfterItsDuration() {
        PrintStream stdout = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int code;
        try {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            code = new CliHarness().execute("demo", "--port", "0", "--duration", "4", "--tui");
        } finally {
            System.setOut(stdout);
        }
        String out = captured.toString(StandardCharsets.UTF_8);
        assertThat(code).as(out).isZero();
        assertThat(out).containsPattern("dashboard: http://127\\.0\\.0\\.1:\\d+/")
                .contains("every rank got the exact expected sum")
                .containsPattern("slowest rank \\d+ \\(made slow: 5\\)")
                .contains("gather rate")
                // The live text view, redrawn in place (ANSI: up, clear line).
                .contains("arrival wait").contains("ToM histogram, round").contains("\033[K").containsPattern("\033\\[\\d+F");
    }

    @Test
    void aBadDurationOrPortIsAUsageError() {
        assertThat(new CliHarness().execute("demo", "--duration", "-1")).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(new CliHarness().execute("demo", "--port", "70000")).isEqualTo(EventSpaceCommand.EXIT_USAGE);
    }
}
