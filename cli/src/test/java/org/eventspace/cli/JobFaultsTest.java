package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.eventspace.comm.launch.Launcher;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The fault suite: a real TCP job ({@code eventspace run} in a process of its own, with two rank hosts and one
 * scope-only host) loses one of its roles to SIGKILL or SIGSTOP while it runs. Each case must end within the
 * collective timeout plus a few seconds, name the culprit, and leave no process behind.
 *
 * <p>Roles: host 1 (a rank host), host 0 (a rank host, the one that writes the layout), host 2 (runs only the
 * event scope's nodes), and the {@code run} process itself, which runs the launcher and the rendezvous.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JobFaultsTest {
    /** The collective timeout the job runs with. */
    private static final int TIMEOUT_S = 5;
    /** From the signal to the end of the job: the timeout plus a few seconds, with room for a loaded 2-core machine. */
    private static final Duration BOUND = Duration.ofSeconds(TIMEOUT_S + 10);

    @TempDir
    Path dir;

    private Process run;
    private final List<ProcessHandle> hosts = new ArrayList<>();

    @AfterEach
    void leaveNothingBehind() {
        for (ProcessHandle p : hosts) {
            signalQuietly("CONT", p);
            p.destroyForcibly();
        }
        if (run != null) {
            signalQuietly("CONT", run.toHandle());
            run.destroyForcibly();
        }
    }

    @ParameterizedTest(name = "{0} of {1}")
    @CsvSource({"KILL, host 1", "STOP, host 1", "KILL, host 0", "STOP, host 0", "KILL, host 2", "STOP, host 2",
            "KILL, run", "STOP, run"})
    void aLostRoleEndsTheJobNamesItAndLeavesNoProcess(String signal, String role) throws Exception {
        Path json = dir.resolve("run.json");
        Path out = dir.resolve("run.out");
        startRunning(json, out, 3, "--scope", "flat", "--scope-hosts", "1");

        ProcessHandle victim = role.equals("run") ? run.toHandle()
                : hosts.get(Integer.parseInt(role.substring("host ".length())));
        signal(signal, victim);
        long signalled = System.nanoTime();

        if (role.equals("run")) {
            // The hosts lose their launcher and rendezvous: a closed connection (KILL) or silence (STOP) ends them.
            awaitGone(hosts, BOUND);
            report(signal, role, "its hosts ended", signalled);
            assertThat(elapsed(signalled)).as("from SIG" + signal + " of the run process to its hosts' end").isLessThan(BOUND);
            if (signal.equals("STOP")) {
                signal("CONT", victim);
                assertThat(run.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS)).as("the run process ends once resumed").isTrue();
                assertThat(Files.readString(out)).as("the hosts named the rendezvous that stopped answering")
                        .contains("the rendezvous at 127.0.0.1:").contains("stopped answering");
                assertThat(run.exitValue()).isEqualTo(EventSpaceCommand.EXIT_FAILURE);
            }
            return;
        }

        assertThat(run.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS)).as("the job ends within " + BOUND).isTrue();
        report(signal, role, "the job ended", signalled);
        assertThat(elapsed(signalled)).as("from SIG" + signal + " of " + role + " to the end of the job").isLessThan(BOUND);
        assertThat(run.exitValue()).isEqualTo(EventSpaceCommand.EXIT_FAILURE);
        String errors = Files.readString(json);
        String output = Files.readString(out);
        assertThat(errors).as("the report names the culprit").contains(role + " ");
        if (signal.equals("STOP")) {
            assertThat(output).containsAnyOf(role + " stopped answering the rendezvous", role + " (pid");
        } else {
            assertThat(output).containsAnyOf(role + " disconnected from the rendezvous", role + " exited with code");
        }
        awaitGone(hosts, Duration.ofSeconds(5));
    }

    /**
     * Nothing recorded is lost because something else failed: when a rank host dies, the survivor still reports its
     * ranks' errors and its monitors, and the report names the slow rank those monitors found before the death.
     */
    @org.junit.jupiter.api.Test
    void aDeadHostLeavesTheSurvivorsMonitorsInTheReport() throws Exception {
        Path json = dir.resolve("run.json");
        Path out = dir.resolve("run.out");
        startRunning(json, out, 2, "--monitor", "loadbalance", "--slow-rank", "1:50");
        Thread.sleep(1_000); // a second of monitored calls, published at least once
        signal("KILL", hosts.get(1));
        assertThat(run.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS)).as("the job ends within " + BOUND).isTrue();
        assertThat(run.exitValue()).isEqualTo(EventSpaceCommand.EXIT_FAILURE);
        com.fasterxml.jackson.databind.JsonNode report = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json.toFile());
        assertThat(report.path("errors").toString()).contains("host 1");
        assertThat(report.path("monitors").path("loadbalance").path("slowest_rank").asInt())
                .as("host 0's monitors, kept although host 1 died: " + Files.readString(out)).isEqualTo(1);
        awaitGone(hosts, Duration.ofSeconds(5));
    }

    /**
     * Starts {@code run gsum} with 4 ranks on 2 rank hosts over TCP, the collective timeout and {@code flags}, and waits
     * until its {@code processes} host processes run their timed loop.
     */
    private void startRunning(Path json, Path out, int processes, String... flags) throws Exception {
        List<String> args = new ArrayList<>(List.of("run", "gsum", "--ranks", "4", "--hosts", "2", "--transport", "tcp",
                "--iterations", "100000000", "--warmup-s", "0", "--timeout", Integer.toString(TIMEOUT_S),
                "--json", json.toString()));
        args.addAll(List.of(flags));
        List<String> command = Launcher.javaCommand(EventSpaceCommand.class.getName(), args);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
        // A progress line every second (not 5): the cases start from the first one that says the timed loop runs.
        builder.environment().put("ES_PROGRESS_S", "1");
        run = builder.start();
        awaitHosts(processes);
        awaitOutput(out, "timed iterations (running)");
    }

    private void awaitHosts(int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            List<ProcessHandle> found = new ArrayList<>();
            for (int h = 0; h < count; h++) {
                int host = h;
                run.descendants().filter(p -> host(p) == host).findFirst().ifPresent(found::add);
            }
            if (found.size() == count) {
                hosts.addAll(found);
                return;
            }
            assertThat(run.isAlive()).as("the run process is still starting its hosts").isTrue();
            Thread.sleep(50);
        }
        throw new AssertionError("the run process did not start " + count + " host processes within 60 s");
    }

    /** Waits until the job says it runs its timed loop (its progress line, every 5 s). */
    private void awaitOutput(Path out, String text) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (Files.readString(out).contains(text)) {
                return;
            }
            assertThat(run.isAlive()).as("the job is still running").isTrue();
            Thread.sleep(100);
        }
        throw new AssertionError("the job did not report '" + text + "' within 60 s:\n" + Files.readString(out));
    }

    private static void awaitGone(List<ProcessHandle> processes, Duration bound) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        while (processes.stream().anyMatch(JobFaultsTest::running) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(processes.stream().filter(JobFaultsTest::running).map(ProcessHandle::pid).toList())
                .as("host processes left behind").isEmpty();
    }

    /** Alive and not a zombie: a host that exited while its parent is stopped stays a zombie until the parent reaps it. */
    private static boolean running(ProcessHandle p) {
        if (!p.isAlive()) {
            return false;
        }
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** One line per case in the test output, the figures docs/RELIABILITY.md quotes. */
    private static void report(String signal, String role, String what, long signalledNanos) {
        System.out.printf(java.util.Locale.ROOT, "fault suite: SIG%s of %s: %s %.1f s after the signal%n", signal, role, what,
                elapsed(signalledNanos).toMillis() / 1000.0);
    }

    private static Duration elapsed(long sinceNanos) {
        return Duration.ofNanos(System.nanoTime() - sinceNanos);
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

    private static void signalQuietly(String name, ProcessHandle p) {
        if (!p.isAlive()) {
            return;
        }
        try {
            new ProcessBuilder(List.of("kill", "-" + name, Long.toString(p.pid()))).start().waitFor(5, TimeUnit.SECONDS);
        } catch (IOException ignored) {
            // Nothing left to signal.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
