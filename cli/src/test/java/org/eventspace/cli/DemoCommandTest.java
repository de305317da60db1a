package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The README's first command: the demo runs, gets exact sums, and shows what its event scope gathered. */
@Timeout(120)
class DemoCommandTest {
    @Test
    void theDemoRunsMonitoredAndPrintsTheScopesStatistics() {
        PrintStream stdout = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int code;
        try {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            code = new CliHarness().execute("demo");
        } finally {
            System.setOut(stdout);
        }
        String out = captured.toString(StandardCharsets.UTF_8);
        assertThat(code).as(out).isZero();
        assertThat(out).contains("every rank got the exact expected value")
                .contains("gather rate")
                .contains("What the event scope saw")
                .containsPattern("allreduce-sum rank>gred>\\S*core +\\d+");
    }
}
