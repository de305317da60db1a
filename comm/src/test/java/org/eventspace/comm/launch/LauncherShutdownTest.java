package org.eventspace.comm.launch;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A launcher that is told to stop (SIGTERM) takes its job's processes with it: no orphans. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LauncherShutdownTest {
    /** A launcher process: starts two host processes that would sleep for five minutes, and waits for them. */
    public static final class SleepingJob {
        public static void main(String[] args) {
            Launcher.launch(2, List.of("/bin/sleep", "300"), Map.of(), Duration.ofMinutes(10));
        }
    }

    @Test
    void sigtermToTheLauncherEndsItsHostProcesses() throws Exception {
        Process launcher = new ProcessBuilder(Launcher.javaCommand(SleepingJob.class))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            List<ProcessHandle> children = List.of();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (children.size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(20);
                children = launcher.children().toList();
            }
            assertThat(children).as("the launcher's host processes").hasSize(2);

            launcher.destroy(); // SIGTERM
            assertThat(launcher.waitFor(10, TimeUnit.SECONDS)).as("the launcher ended").isTrue();
            long gone = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (children.stream().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < gone) {
                Thread.sleep(20);
            }
            assertThat(children).as("host processes 5 s after SIGTERM").noneMatch(ProcessHandle::isAlive);
        } finally {
            launcher.descendants().forEach(ProcessHandle::destroyForcibly);
            launcher.destroyForcibly();
        }
    }
}
