package org.eventspace.events.dump;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code trace dump --latencies} reports, {@value WrapperLatencies#SCHEMA} and the text, byte for byte as
 * {@code latencies-report.txt} holds them: written by the analysis when it still summed into a latency summary of
 * its own, so moving it onto the shared accumulator may not change a digit. The scripted run has a call dropped
 * by the hop (a third call, so means like 800/3 ns), and a gred with no call joined (null figures).
 */
class WrapperLatenciesReportTest {
    @TempDir
    Path dir;

    static String reports(Path dir) throws IOException {
        ScriptedDump script = new ScriptedDump();
        script.writePathmap(dir);
        script.writeTrace(dir, ScriptedDump.RANK0, new long[] {10, 1000, 1900}, new long[] {11, 3300, 4000},
                new long[] {12, 5000, 5900});
        script.writeTrace(dir, ScriptedDump.RANK1, new long[] {10, 1200, 1800}, new long[] {11, 3000, 4200},
                new long[] {12, 5100, 5800});
        script.writeTrace(dir, ScriptedDump.PROXY_SERVING, new long[] {10, 1100, 2000}, new long[] {11, 3100, 4100});
        script.writeTrace(dir, ScriptedDump.GRED_BELOW, new long[] {10, 1300, 1600}, new long[] {11, 3400, 3700},
                new long[] {12, 5300, 5517});
        script.writeTrace(dir, ScriptedDump.RANK2, new long[] {10, 500, 2000}, new long[] {11, 2600, 3800},
                new long[] {12, 4000, 6000});
        StringBuilder out = new StringBuilder(report(WrapperLatencies.of(TraceDump.open(dir))));
        long[][] wrapped = new long[18][];
        for (int i = 0; i < wrapped.length; i++) {
            wrapped[i] = new long[] {100 + i, 10_000 + 1000L * i, 10_500 + 1000L * i + i * i % 7};
        }
        script.writeTrace(dir, ScriptedDump.GRED_BELOW, wrapped);   // no call joined at the gred any more
        out.append(report(WrapperLatencies.of(TraceDump.open(dir))));
        return out.toString().replace(dir.toString(), "DIR");
    }

    private static String report(WrapperLatencies l) {
        StringWriter text = new StringWriter();
        l.printText(new PrintWriter(text));
        return l.toJson() + l.toJson(false) + text;
    }

    @Test
    void reportsAreByteForByteTheOnesBeforeTheSharedAccumulator() throws IOException {
        String expected;
        try (InputStream in = WrapperLatenciesReportTest.class.getResourceAsStream("latencies-report.txt")) {
            assertThat(in).as("latencies-report.txt on the test class path").isNotNull();
            expected = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(expected).contains("\"mean_ns\" : 272.3333333333333").contains("\"mean_ns\" : null");
        assertThat(reports(dir)).isEqualTo(expected);
    }

    /** Writes the golden file from the current analysis: run by hand only when the reports are meant to change. */
    public static void main(String[] args) throws IOException {
        Path dir = Files.createTempDirectory("latencies-report");
        Files.writeString(Path.of(args[0]), reports(dir));
    }
}
