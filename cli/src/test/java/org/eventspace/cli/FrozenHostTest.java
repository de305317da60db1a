package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A host process that stops answering (SIGSTOP), while starting or while running, ends a TCP job soon after the
 * collective timeout, is named as the host that never registered or never reported, and leaves no process behind.
 * Before, the job waited for the rendezvous' own bound (about 65 s more) and blamed the rendezvous.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FrozenHostTest {
    @TempDir
    Path dir;

    @Test
    void aFrozenHostEndsTheJobAndIsNamed() throws Exception {
        Path json = dir.resolve("run.json");
        CompletableFuture<Integer> run = CompletableFuture.supplyAsync(() -> new CliHarness().execute("run", "gsum",
                "--ranks", "4", "--hosts", "2", "--transport", "tcp", "--iterations", "100000000", "--warmup-s", "0",
                "--timeout", "3", "--json", json.toString()));
        Optional<ProcessHandle> host1 = Optional.empty();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (host1.isEmpty() && System.nanoTime() < deadline && !run.isDone()) {
            Thread.sleep(50);
            host1 = ProcessHandle.current().descendants().filter(p -> host(p) == 1).findFirst();
        }
        assertThat(host1).as("host 1's process").isPresent();
        Thread.sleep(1000); // the hosts are in their timed loop
        signal("STOP", host1.get());
        long frozenAt = System.nanoTime();
        try {
            int code = run.get(90, TimeUnit.SECONDS);
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - frozenAt);
            assertThat(code).isEqualTo(EventSpaceCommand.EXIT_FAILURE);
            // Bounded, generously for a loaded machine. Frozen in its timed loop: the collective timeout (3 s), the failed
            // host's short wait (2 s) and the launcher's two grace periods (3 s each); frozen while starting: the
            // registration bound (timeout + 20 s) and the grace periods. Both used to wait the rendezvous' minute more.
            assertThat(seconds).as("seconds from SIGSTOP to the end of the job").isLessThan(50);
            JsonNode report = new ObjectMapper().readTree(json.toFile());
            assertThat(report.path("result_ok").asBoolean()).isFalse();
            // Named, whichever it was: "never reported a result" (frozen while running) or "never registered" (while
            // starting).
            assertThat(report.path("errors").toString()).contains("hosts [1] never");
            assertThat(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).filter(p -> host(p) >= 0))
                    .as("host processes left behind").isEmpty();
        } finally {
            if (host1.get().isAlive()) {
                signal("CONT", host1.get());
                host1.get().destroyForcibly();
            }
        }
    }

    /** The ES_HOST of a process of ours, or -1. */
    private static int host(ProcessHandle p) {
        try {
            String env = Files.readString(Path.of("/proc", Long.toString(p.pid()), "environ"), StandardCharsets.ISO_8859_1);
            for (String var : env.split("\0")) {
                if (var.startsWith("ES_HOST=")) {
                    return Integer.parseInt(var.substring("ES_HOST=".length()));
                }
            }
        } catch (IOException | RuntimeException e) {
            // Gone, or not ours.
        }
        return -1;
    }

    private static void signal(String name, ProcessHandle p) throws Exception {
        Process kill = new ProcessBuilder(List.of("kill", "-" + name, Long.toString(p.pid()))).inheritIO().start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(kill.exitValue()).isZero();
    }
}
