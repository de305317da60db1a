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

    /**
     * The front-end placement: the dashboard's and the clients' threads and the JIT compilers on CPU 1, the job's threads
     * on CPU 0, each as the kernel says; and the calling thread gets its CPUs back after the run.
     */
    @Test
    void theFrontEndRunsOnItsOwnCpusAndTheCallerGetsItsCpusBack() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Runtime.getRuntime().availableProcessors() >= 2, "needs 2 CPUs");
        String cpusBefore = allowedCpus(Path.of("/proc/thread-self"));
        Path json = dir.resolve("placed.json");
        java.io.PrintStream stdout = System.out;
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        CliHarness cli = new CliHarness();
        int code;
        java.util.Map<String, java.util.Set<String>> seen = new java.util.concurrent.ConcurrentHashMap<>();
        // What the kernel allows each of this process's threads while the blocks run, read by a watcher thread.
        Thread watcher = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try (var tasks = java.nio.file.Files.newDirectoryStream(Path.of("/proc/self/task"))) {
                    for (Path t : tasks) {
                        try {
                            String name = java.nio.file.Files.readString(t.resolve("comm")).trim();
                            for (String kind : java.util.List.of("es-rank", "es-dashboard", "es-load-client")) {
                                if (name.startsWith(kind)) {
                                    seen.computeIfAbsent(kind, k -> java.util.concurrent.ConcurrentHashMap.newKeySet()).add(allowedCpus(t));
                                }
                            }
                        } catch (java.io.IOException e) {
                            // the thread ended
                        }
                    }
                    Thread.sleep(200);
                } catch (java.io.IOException e) {
                    return;
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "placement-watcher");
        watcher.setDaemon(true);
        try {
            System.setOut(new java.io.PrintStream(out, true));
            watcher.start();
            code = cli.execute("bench", "dashboard-load", "--clients", "3", "--duration", "2", "--block-s", "0.5",
                    "--warmup-s", "1", "--poll-ms", "50", "--ranks", "4", "--hosts", "2", "--front-end-cpus", "1",
                    "--json", json.toString());
        } finally {
            System.setOut(stdout);
            watcher.interrupt();
            watcher.join(5_000);
        }
        assertThat(json).as(out + cli.err()).exists();
        JsonNode r = new ObjectMapper().readTree(json.toFile());
        assertThat(code).as(out + cli.err()).isEqualTo(r.path("request_errors").asLong() == 0 ? 0 : 1);
        assertThat(r.at("/placement/front_end_cpus").asText()).isEqualTo("1");
        assertThat(r.at("/placement/job_cpus").asText()).doesNotContain("1").contains("0");
        // the dashboard's pool, sampler and streamer, the 3 clients, and at least one compiler thread
        assertThat(r.at("/placement/front_end_threads").asInt()).isGreaterThanOrEqualTo(3 + 3);
        assertThat(r.at("/placement/compiler_threads").asInt()).isPositive();
        // Requests are not this test's subject (the one above checks them): the front-end's one CPU, shared with this
        // JVM's compiler threads while other tests run, may time some out; the report counts them either way.
        assertThat(r.path("requests").asLong()).isPositive();
        assertThat(r.has("warmup_request_errors")).isTrue();
        assertThat(out.toString()).contains("placement: job on CPUs " + r.at("/placement/job_cpus").asText());
        // the ranks were never on the front-end's CPU; the dashboard's threads and the clients were moved onto it
        // (they start on the CPUs of the thread that made them, the job's, until the placement finds them)
        assertThat(seen.get("es-rank")).as(seen.toString()).containsExactly(r.at("/placement/job_cpus").asText());
        assertThat(seen.get("es-load-client")).as(seen.toString()).contains("1");
        assertThat(seen.get("es-dashboard")).as(seen.toString()).contains("1");
        assertThat(allowedCpus(Path.of("/proc/thread-self"))).isEqualTo(cpusBefore);
    }

    @Test
    void frontEndCpusTheMachineLacksOrThatLeaveTheJobNoneAreRefused() {
        int cpus = Runtime.getRuntime().availableProcessors();
        CliHarness cli = new CliHarness();
        assertThat(cli.execute("bench", "dashboard-load", "--front-end-cpus", Integer.toString(cpus))).isEqualTo(2);
        assertThat(cli.err()).contains("--front-end-cpus: '" + cpus + "' is not a range of this machine's CPUs 0.." + (cpus - 1));
        cli = new CliHarness();
        assertThat(cli.execute("bench", "dashboard-load", "--front-end-cpus", "0-" + (cpus - 1))).isEqualTo(2);
        assertThat(cli.err()).contains("leaves the job no CPU");
        cli = new CliHarness();
        assertThat(cli.execute("bench", "dashboard-load", "--front-end-cpus", "one")).isEqualTo(2);
        assertThat(cli.err()).contains("--front-end-cpus takes CPU numbers and ranges such as 1 or 2-3,1, got 'one'");
    }

    private static String allowedCpus(Path task) throws java.io.IOException {
        for (String line : java.nio.file.Files.readAllLines(task.resolve("status"))) {
            if (line.startsWith("Cpus_allowed_list:")) {
                return line.substring(line.indexOf(':') + 1).trim();
            }
        }
        throw new AssertionError("no Cpus_allowed_list in " + task);
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
