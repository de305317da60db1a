package org.eventspace.ui;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The dashboard's JSON API over real HTTP on loopback, served for a running demo job (8 ranks on 4 simulated hosts,
 * rank 5 made slow): status codes, the shapes docs/API.md promises, errors as JSON, and the event stream delivering
 * frames.
 */
@Timeout(90)
class DashboardApiTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static DemoJob demo;
    private static DashboardServer server;
    private static HttpClient http;

    @BeforeAll
    static void start() throws Exception {
        demo = DemoJob.start(DemoJob.Settings.DEFAULT);
        server = DashboardServer.start(demo.source(), DashboardServer.LOOPBACK, 0, 200);
        http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        // Long enough for the monitors to join calls and the scope to pull a few rounds.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() - deadline < 0 && get("/api/v1/histograms").body.path("events").size() == 0) {
            Thread.sleep(200);
        }
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
        if (demo != null) {
            demo.close();
        }
    }

    record Answer(int status, String contentType, String text, JsonNode body) {
    }

    static Answer get(String path) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(base() + path)).timeout(Duration.ofSeconds(10)).GET().build());
    }

    static Answer send(HttpRequest request) throws Exception {
        HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
        JsonNode body = null;
        try {
            body = JSON.readTree(r.body());
        } catch (Exception e) {
            // Not JSON: the page and its assets.
        }
        return new Answer(r.statusCode(), r.headers().firstValue("content-type").orElse(""), r.body(), body);
    }

    static String base() {
        return "http://127.0.0.1:" + server.port();
    }

    @Test
    void bindsLoopbackByDefault() {
        assertThat(server.url()).startsWith("http://127.0.0.1:");
    }

    /**
     * The demo's hosts on a 2-ary 2-tree: 4 node links and 4 leaf-spine links, the traffic of its trees' hops on them,
     * each direction summing to the routed bytes times the route lengths, with the drawing.
     */
    @Test
    void trafficGivesTheLinkLoadsOfTheDemosHostsAndTheirDrawing() throws Exception {
        Answer a = get("/api/v1/traffic");
        assertThat(a.status).isEqualTo(200);
        assertThat(a.body.path("schema").asText()).isEqualTo("eventspace.link-loads/1");
        assertThat(a.body.path("links")).hasSize(8);
        long sum = 0;
        for (JsonNode l : a.body.path("links")) {
            sum += l.path("bytes_a_to_b").asLong() + l.path("bytes_b_to_a").asLong();
        }
        assertThat(sum).isEqualTo(a.body.path("byte_hops").asLong()).isPositive();
        assertThat(a.body.path("max_link").path("bytes").asLong()).isPositive();
        assertThat(a.body.path("svg").asText()).startsWith("<svg").contains("class=\"half\"");
    }

    @Test
    void healthSaysOkWhileTheJobRuns() throws Exception {
        Answer a = get("/api/v1/health");
        assertThat(a.status).isEqualTo(200);
        assertThat(a.contentType).startsWith("application/json");
        assertThat(a.body.path("status").asText()).isEqualTo("ok");
        assertThat(a.body.path("running").asBoolean()).isTrue();
        assertThat(a.body.path("schema").asText()).isEqualTo(DashboardFrames.SCHEMA);
    }

    /**
     * The dashboard's threads run at nice 19 (LowestPriority), read from the kernel's own view of each thread
     * ({@code /proc/self/task/<tid>/stat}, field 19), not from what the server says of itself; and health says the same.
     * Under {@code nice -n 19} every thread of the test JVM is at 19 already and this cannot tell the difference; run
     * without it, it can (the test's own thread then reports a lower nice).
     */
    @Test
    void theDashboardsHttpThreadsRunAtNice19AndHealthSaysSo() throws Exception {
        Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "not Linux: no /proc/self/task");
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/renice")) || Files.isExecutable(Path.of("/bin/renice")),
                "renice (util-linux) is absent: LowestPriority cannot lower a thread");
        Answer a = get("/api/v1/health"); // served by an HTTP thread, so the pool's threads have started
        assertThat(a.body.path("server_threads").asInt()).as(a.text)
                .isEqualTo(DashboardThreads.HTTP_THREADS + 2); // the pool, the sampler and the streamer
        assertThat(a.body.path("lowest_priority_threads").asInt()).as(a.text).isEqualTo(a.body.path("server_threads").asInt());
        assertThat(a.body.has("lowest_priority_error")).as(a.text).isFalse();
        Map<String, Integer> niceByThread = new TreeMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (java.io.IOException e) {
                    continue; // the thread ended meanwhile
                }
                // "tid (comm) state ...": comm is the Java name cut to 15 characters
                String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                if (comm.startsWith("es-dashboard")) {
                    String[] rest = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
                    niceByThread.put(task.getFileName() + " " + comm, Integer.parseInt(rest[19 - 3]));
                }
            }
        }
        assertThat(niceByThread.keySet()).as(niceByThread.toString())
                .filteredOn(k -> k.contains("es-dashboard-ht")).hasSizeGreaterThanOrEqualTo(DashboardThreads.HTTP_THREADS);
        assertThat(niceByThread.values()).as(niceByThread.toString()).containsOnly(19);
    }

    @Test
    void theTreeHasEveryRankAndItsHost() throws Exception {
        for (int tree = 0; tree < 2; tree++) {
            Answer a = get("/api/v1/tree?tree=" + tree);
            assertThat(a.status).isEqualTo(200);
            List<JsonNode> ranks = new ArrayList<>();
            a.body.path("nodes").forEach(n -> {
                if (n.path("kind").asText().equals("rank")) {
                    ranks.add(n);
                }
            });
            assertThat(ranks).hasSize(8);
            // Block mapping: ranks 2h and 2h+1 on host h.
            ranks.forEach(n -> assertThat(n.path("host").asInt()).isEqualTo(n.path("rank").asInt() / 2));
            assertThat(a.body.path("nodes").get(0).path("kind").asText()).isEqualTo("core");
            assertThat(a.body.path("nodes").get(0).path("parent").isNull()).isTrue();
        }
    }

    @Test
    void loadbalanceNamesTheSlowestRank() throws Exception {
        Answer a = get("/api/v1/loadbalance");
        assertThat(a.status).isEqualTo(200);
        assertThat(a.body.has("slowest_rank")).isTrue();
        assertThat(a.body.path("heaviest_path").isArray()).isTrue();
        assertThat(a.body.path("trees").size()).isEqualTo(2);
    }

    @Test
    void statsHistogramsTimemapAndCostHaveTheirShapes() throws Exception {
        Answer stats = get("/api/v1/stats");
        assertThat(stats.status).isEqualTo(200);
        assertThat(stats.body.path("wrappers").size()).isGreaterThan(0);
        assertThat(stats.body.path("ranks").size()).isEqualTo(8);
        String gred = stats.body.path("wrappers").fieldNames().next();
        Answer one = get("/api/v1/stats?gred=" + gred);
        assertThat(one.status).isEqualTo(200);
        assertThat(one.body.path("ports").isArray()).isTrue();

        Answer hist = get("/api/v1/histograms?last=5");
        assertThat(hist.status).isEqualTo(200);
        assertThat(hist.body.path("filter").asText()).isEqualTo("hist:16");
        JsonNode rounds = hist.body.path("events").elements().next();
        assertThat(rounds.size()).isBetween(1, 5);
        assertThat(rounds.get(0).path("bins").size()).isEqualTo(16);

        Answer timemap = get("/api/v1/timemap?tree=1");
        assertThat(timemap.status).isEqualTo(200);
        assertThat(timemap.body.path("paths").get(0).path("stages").size()).isGreaterThan(0);
        // The stages of a path through hier:2 over 4 hosts: greds with their own arrival/reduce/broadcast, a hop
        // wherever the path leaves its host (every rank off host 0 crosses at least one), the core's store latency last.
        for (JsonNode path : timemap.body.path("paths")) {
            JsonNode stages = path.path("stages");
            assertThat(stages.get(0).path("kind").asText()).isEqualTo("gred");
            assertThat(stages.get(0).path("broadcast_us").isNumber()).as(stages.toString()).isTrue();
            assertThat(stages.get(stages.size() - 1).path("kind").asText()).isEqualTo("store");
            assertThat(stages.get(stages.size() - 1).path("store_us").asDouble()).isPositive();
            if (stages.get(0).path("host").asInt() != 0) {
                assertThat(stages.findValuesAsText("kind")).as(stages.toString()).contains("hop");
            }
            for (JsonNode st : stages) {
                if (st.path("kind").asText().equals("hop")) {
                    assertThat(st.path("to_host").asInt()).isNotEqualTo(st.path("host").asInt());
                    assertThat(st.path("two_way_us").isNumber()).isTrue();
                }
            }
        }

        Answer cost = get("/api/v1/cost");
        assertThat(cost.status).isEqualTo(200);
        assertThat(cost.body.has("gather_rate")).isTrue();
        assertThat(cost.body.has("tuples_missed")).isTrue();
    }

    @Test
    void thePageAndItsAssetsComeFromTheJar() throws Exception {
        Answer page = get("/");
        assertThat(page.status).isEqualTo(200);
        assertThat(page.contentType).startsWith("text/html");
        assertThat(page.text).contains("/assets/dashboard.js").doesNotContain("http://", "https://");
        assertThat(get("/assets/dashboard.js").status).isEqualTo(200);
        assertThat(get("/assets/../pom.xml").status).isEqualTo(404);
    }

    @Test
    void malformedQueriesGet400WithAJsonErrorNamingWhatWasExpected() throws Exception {
        assertError(get("/api/v1/tree?tree=abc"), 400, "tree must be an integer 0..1");
        assertError(get("/api/v1/tree?tree=7"), 400, "tree must be an integer 0..1");
        assertError(get("/api/v1/tree?tre=0"), 400, "unknown query parameter 'tre'");
        assertError(get("/api/v1/histograms?last=0"), 400, "last must be an integer 1..");
        assertError(get("/api/v1/health?verbose=1"), 400, "expected none");
        assertError(get("/api/v1/stats?gred=nope"), 404, "no monitored gred named 'nope'");
        assertError(get("/api/v1/histograms?event=nope"), 404, "no scope event named 'nope'");
        assertError(get("/api/v1/nothing"), 404, "the API is under /api/v1");
        assertError(send(HttpRequest.newBuilder(URI.create(base() + "/api/v1/health"))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build()), 405, "read-only");
        assertError(get("/api/v1/events"), 406, "Accept: text/event-stream");
        String huge = "x".repeat(5000);
        Answer a = get("/api/v1/tree?tree=" + huge);
        assertError(a, 400, "tree must be");
        assertThat(a.text.length()).isLessThan(400);
    }

    private static void assertError(Answer a, int status, String message) {
        assertThat(a.status).as(a.text).isEqualTo(status);
        assertThat(a.contentType).startsWith("application/json");
        assertThat(a.body.path("error").asText()).isNotEmpty();
        assertThat(a.body.path("message").asText()).contains(message);
        assertThat(a.text).doesNotContain("\tat ", "Exception");
    }

    @Test
    void theEventStreamDeliversNewFrames() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base() + "/api/v1/events")).timeout(Duration.ofSeconds(20))
                .header("Accept", "text/event-stream").GET().build();
        HttpResponse<InputStream> r = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type").orElse("")).startsWith("text/event-stream");
        List<Long> frames = new ArrayList<>();
        CompletableFuture<Void> reading = CompletableFuture.runAsync(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
                String line;
                boolean frameEvent = false;
                while (frames.size() < 3 && (line = in.readLine()) != null) {
                    if (line.startsWith("event:")) {
                        frameEvent = line.substring(6).trim().equals("frame");
                    } else if (line.startsWith("data:") && frameEvent) {
                        frames.add(JSON.readTree(line.substring(5)).path("frame").asLong());
                    }
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        reading.get(15, TimeUnit.SECONDS);
        assertThat(frames).hasSize(3);
        assertThat(frames.get(2)).isGreaterThan(frames.get(1)).isGreaterThan(frames.get(0));
    }
}
