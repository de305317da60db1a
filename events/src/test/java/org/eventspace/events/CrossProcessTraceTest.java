package org.eventspace.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Trace buffers may be memory-mapped files, so that another process on the host (an MPI node agent, a post-mortem
 * reader) can read them. This JVM keeps writing through its mapping while a second JVM opens the file read-only and reads the tuples.
 */
@Timeout(60)
class CrossProcessTraceTest {
    @TempDir
    Path dir;

    @Test
    void anotherProcessReadsTheTuplesThisProcessWrote() throws Exception {
        Path file = dir.resolve("7.t0.collector.trace");
        try (TraceBuffer buffer = TraceBuffer.mapped(file, 8, 7)) {
            for (long i = 0; i < 11; i++) {
                buffer.write(7, TraceOp.ALLREDUCE_SUM, 0, i, i * i, 1000 + i, 2000 + i);
            }
            List<String> lines = readInAnotherProcess(file);
            assertThat(lines).hasSize(9);
            for (int k = 0; k < 8; k++) {
                long i = 3 + k;
                assertThat(lines.get(k)).isEqualTo("7 " + TraceOp.ALLREDUCE_SUM + " 0 " + i + " " + i * i + " "
                        + (1000 + i) + " " + (2000 + i));
            }
            assertThat(lines.get(8)).isEqualTo("missed 0 position 11");
        }
    }

    private static List<String> readInAnotherProcess(Path file) throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process process = new ProcessBuilder(java.toString(),
                "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-opens", "java.base/java.nio=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), TraceFileReaderProcess.class.getName(), file.toString())
                .redirectErrorStream(true)
                .start();
        try {
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("reader process finished").isTrue();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(process.exitValue()).as("reader process exit, output:%n%s", out).isZero();
            return out.lines().toList();
        } finally {
            process.destroyForcibly();
        }
    }
}
