package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.eventspace.comm.launch.Launcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code --serve} for a job of host processes: the eventspace command runs in a process of its own, starts the hosts,
 * and host 0's process serves the dashboard from the monitors its event scope gathers of every host. The test reads
 * the address the host printed, polls the API over loopback while the job runs, and ends every process it started.
 */
@Timeout(180)
class ServeHostProcessesTest {
    private static final Pattern URL = Pattern.compile("dashboard: (http://127\\.0\\.0\\.1:\\d+/)");
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aTcpRunServesItsDashboardFromHostZeroAndNamesTheSlowRankWhileItRuns() throws Exception {
        // Rank 3 (on host 1) waits 300 µs before each allreduce: about 6 s of slowness, found through the scope.
        Live live = Live.start(List.of("run", "gsum", "--transport", "tcp", "--ranks", "4", "--hosts", "2", "--tree",
                "hier:2", "--iterations", "20000", "--warmup", "100", "--warmup-s", "0", "--monitor", "loadbalance",
                "--slow-rank", "3:300", "--serve", "0"));
        try {
            String url = live.awaitUrl(Duration.ofSeconds(90));
            JsonNode found = null;
            JsonNode healthThen = null;
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline && live.process.isAlive()) {
                JsonNode health = live.get(url + "api/v1/health");
                JsonNode lb = live.get(url + "api/v1/loadbalance");
                if (health != null && health.path("running").asBoolean() && lb != null && lb.path("slowest_rank").isInt()
                        && lb.path("slowest_rank").asInt() == 3) {
                    found = lb;
                    healthThen = health;
                    break;
                }
                Thread.sleep(200);
            }
            assertThat(found).as("loadbalance while the job ran; output:\n%s", live.output()).isNotNull();
            assertThat(healthThen.path("status").asText()).isEqualTo("ok");
            assertThat(found.path("slowest_rank").asInt()).isEqualTo(3);
            JsonNode run = live.get(url + "api/v1/run");
            assertThat(run.path("ranks").asInt()).isEqualTo(4);
            assertThat(run.path("hosts").asInt()).isEqualTo(2);
            assertThat(run.path("injectedSlowRank").asInt()).isEqualTo(3);
            assertThat(live.process.waitFor(120, TimeUnit.SECONDS)).as(live.output()).isTrue();
            assertThat(live.process.exitValue()).as(live.output()).isZero();
        } finally {
            live.close();
        }
    }

    @Test
    void aLaunchedProgramIsServedByItsHostZeroWithoutAskingForIt() throws Exception {
        // JobExample knows nothing of the dashboard: joining the job is enough.
        Live live = Live.start(List.of("launch", "-n", "2", "--timeout", "150", "--serve", "0", "--",
                "org.eventspace.examples.JobExample", "2", "200000", "--monitors"));
        try {
            String url = live.awaitUrl(Duration.ofSeconds(90));
            JsonNode lb = null;
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline && live.process.isAlive()) {
                lb = live.get(url + "api/v1/loadbalance");
                if (lb != null && lb.path("greds").has("t0.gred.h1.0")) {
                    break;
                }
                Thread.sleep(200);
            }
            // The load-balance block covers the greds of both processes: process 1's came through the scope.
            assertThat(lb).as(live.output()).isNotNull();
            assertThat(lb.path("greds").has("t0.gred.h1.0")).as(lb.toString()).isTrue();
            assertThat(live.get(url + "api/v1/run").path("name").asText()).isEqualTo("JobExample");
        } finally {
            live.close();
        }
    }

    /** The eventspace command in a process of its own, its output read as it comes. */
    private static final class Live implements AutoCloseable {
        final Process process;
        private final List<String> lines = new ArrayList<>();
        private final CompletableFuture<String> url = new CompletableFuture<>();
        private final List<Thread> pumps = new ArrayList<>();
        private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

        private Live(Process process) {
            this.process = process;
            pump(process.getInputStream(), "out");
            pump(process.getErrorStream(), "err");
        }

        static Live start(List<String> args) throws IOException {
            return new Live(new ProcessBuilder(Launcher.javaCommand(EventSpaceCommand.class.getName(), args)).start());
        }

        private void pump(java.io.InputStream in, String name) {
            Thread t = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                    for (String line; (line = r.readLine()) != null; ) {
                        synchronized (lines) {
                            lines.add(line);
                        }
                        Matcher m = URL.matcher(line);
                        if (m.find()) {
                            url.complete(m.group(1));
                        }
                    }
                } catch (IOException e) {
                    // the process ended
                }
            }, "test-pump-" + name);
            t.setDaemon(true);
            t.start();
            pumps.add(t);
        }

        String awaitUrl(Duration bound) throws Exception {
            try {
                return url.get(bound.toMillis(), TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError("no dashboard address within " + bound + "; output:\n" + output());
            }
        }

        /** The answer's JSON, or null if the server did not answer 200 (not up yet, or gone). */
        JsonNode get(String address) throws InterruptedException {
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(address)).timeout(Duration.ofSeconds(5))
                        .build(), HttpResponse.BodyHandlers.ofString());
                return r.statusCode() == 200 ? JSON.readTree(r.body()) : null;
            } catch (IOException e) {
                return null;
            }
        }

        String output() {
            synchronized (lines) {
                return String.join("\n", lines);
            }
        }

        @Override
        public void close() throws InterruptedException {
            // The command's host processes are ours too: end them even if the command does not.
            List<ProcessHandle> hosts = process.descendants().toList();
            if (process.isAlive()) {
                process.destroy();
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(10, TimeUnit.SECONDS);
                }
            }
            hosts.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
            for (Thread t : pumps) {
                t.join(5_000);
            }
        }
    }
}
