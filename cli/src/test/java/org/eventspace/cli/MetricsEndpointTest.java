package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.eventspace.monitor.model.Coverage;
import org.eventspace.monitor.model.OperationRecord;
import org.eventspace.monitor.model.RankRecord;
import org.eventspace.monitor.model.RunModel;
import org.eventspace.monitor.model.Verdict;
import org.eventspace.ui.DashboardServer;
import org.eventspace.ui.DemoJob;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /metrics} over real HTTP on loopback, read by a strict parser of the exposition formats
 * ({@link ExpositionText}): for the demo's job (in this JVM, so its figures are compared with the run model the
 * dashboard serves), and for an unmodified MPI program under {@code mpirun --serve} whose rank 1 sleeps before every
 * allreduce (so the slowest rank is known).
 */
class MetricsEndpointTest {
    private static final String OPEN_METRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void theDemoJobsMetricsAreItsRunModelInBothFormats() throws Exception {
        try (DemoJob demo = DemoJob.start(DemoJob.Settings.DEFAULT);
             DashboardServer server = DashboardServer.start(demo.source(), DashboardServer.LOOPBACK, 0, 200)) {
            String url = "http://127.0.0.1:" + server.port() + "/metrics";
            // While it runs: wait (bounded) until the load-balance monitor has judged instances.
            ExpositionText live = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() - deadline < 0) {
                live = ExpositionText.prometheus(get(url, null, "text/plain; version=0.0.4; charset=utf-8"));
                if (live.has("eventspace_slowest_rank") && live.value("eventspace_slowest_rank") >= 0
                        && live.has("eventspace_rank_collective_wait_seconds_total")) {
                    break;
                }
                Thread.sleep(200);
            }
            assertThat(live.value("eventspace_run_running")).isEqualTo(1);
            assertThat(live.value("eventspace_slowest_rank")).as("a candidate while the job ran").isBetween(0.0, 7.0);
            assertThat(live.series("eventspace_rank_collective_wait_seconds_total")).hasSize(8);

            // Ended: the figures are final, so the scrape and the model it was made of must agree exactly.
            demo.stop();
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() - deadline < 0 && !demo.finished()) {
                Thread.sleep(50);
            }
            assertThat(demo.finished()).as("the demo's ranks left").isTrue();
            ExpositionText done = null;
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() - deadline < 0) {
                done = ExpositionText.prometheus(get(url, null, "text/plain; version=0.0.4; charset=utf-8"));
                if (done.value("eventspace_run_running") == 0) {
                    break;
                }
                Thread.sleep(100);
            }
            assertThat(done.value("eventspace_run_running")).as("the sampler saw the end").isEqualTo(0);
            RunModel model = server.sampler().model();
            assertThat(model).isNotNull();
            matches(done, model);
            ExpositionText open = ExpositionText.openMetrics(get(url, "application/openmetrics-text", OPEN_METRICS));
            matches(open, model);
            assertThat(open.types()).containsEntry("eventspace_rank_collective_wait_seconds", "counter")
                    .containsEntry("eventspace_run", "info").containsEntry("eventspace_slowest_rank", "gauge");
            assertThat(open.units()).containsEntry("eventspace_rank_collective_wait_seconds", "seconds")
                    .containsEntry("eventspace_slowest_rank_effect_ratio", "ratio");
            assertThat(done.types()).containsEntry("eventspace_rank_collective_wait_seconds_total", "counter")
                    .containsEntry("eventspace_run_info", "gauge");
            // Every family says what it is.
            assertThat(done.helps().keySet()).containsExactlyInAnyOrderElementsOf(done.types().keySet());
            // A scrape takes no parameters: a misspelt one is refused, not ignored.
            HttpResponse<String> bad = http.send(HttpRequest.newBuilder(URI.create(url + "?rank=1"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(bad.statusCode()).isEqualTo(400);
        }
    }

    /** Every figure of {@code model} the endpoint exposes, as the endpoint wrote it. */
    private static void matches(ExpositionText m, RunModel model) {
        assertThat(m.series("eventspace_run_info")).singleElement().satisfies(s -> assertThat(s.labels())
                .isEqualTo(Map.of("kind", "workload", "benchmark", "demo", "transport", "jvm")));
        assertThat(m.value("eventspace_run_info")).isEqualTo(1);
        assertThat(m.value("eventspace_run_ranks")).isEqualTo(model.ranks());
        assertThat(m.value("eventspace_run_hosts")).isEqualTo(model.hosts());
        Verdict.SlowestRank s = model.verdict().slowestRank();
        assertThat(s.rank()).as("the model has a candidate").isNotNull();
        assertThat(m.value("eventspace_slowest_rank")).isEqualTo(s.rank().doubleValue());
        assertThat(m.value("eventspace_slowest_rank_z")).isEqualTo(s.z());
        assertThat(m.value("eventspace_slowest_rank_critical_z")).isEqualTo(s.criticalZ());
        assertThat(m.value("eventspace_slowest_rank_beyond_chance")).isEqualTo(s.beyondChance() ? 1 : 0);
        if (s.effectPct() != null) {
            assertThat(m.value("eventspace_slowest_rank_effect_ratio")).isCloseTo(s.effectPct() / 100, within(1e-12));
            assertThat(m.value("eventspace_slowest_rank_effect_ratio")).isEqualTo(Double.parseDouble(
                    java.math.BigDecimal.valueOf(s.effectPct()).movePointLeft(2).toPlainString()));
        }
        assertThat(m.value("eventspace_machine_oversubscribed")).isEqualTo(model.verdict().load().oversubscribed() ? 1 : 0);
        assertThat(m.series("eventspace_rank_collective_wait_seconds_total")).hasSize(model.ranks());
        for (RankRecord r : model.perRank()) {
            String[] labels = {"rank", Integer.toString(r.rank()), "host", Integer.toString(r.host())};
            assertThat(m.value("eventspace_rank_collective_wait_seconds_total", labels))
                    .isCloseTo(r.collectiveWaitUs() / 1e6, within(1e-12));
            assertThat(m.value("eventspace_rank_lateness_seconds", labels)).isCloseTo(r.latenessUs() / 1e6, within(1e-12));
            assertThat(m.value("eventspace_rank_last_arrivals_total", labels)).isEqualTo(r.lastArrivals().doubleValue());
            assertThat(m.value("eventspace_rank_collective_instances_total", labels)).isEqualTo(r.instances().doubleValue());
            assertThat(m.value("eventspace_rank_calls_total", labels)).isEqualTo(r.calls().doubleValue());
            assertThat(m.value("eventspace_rank_finished", labels)).isEqualTo(r.finished() ? 1 : 0);
        }
        // Our ranks do no point-to-point: no figure, so no sample (never a 0 that was not measured).
        assertThat(m.has("eventspace_rank_sent_bytes_total")).isFalse();
        assertThat(m.has("eventspace_rank_late_sender_wait_seconds_total")).isFalse();
        assertThat(model.operations()).isNotEmpty();
        for (Map.Entry<String, OperationRecord> op : model.operations().entrySet()) {
            assertThat(m.value("eventspace_operation_calls_total", "operation", op.getKey()))
                    .isEqualTo(op.getValue().calls());
            assertThat(m.value("eventspace_operation_time_seconds_total", "operation", op.getKey()))
                    .isCloseTo(op.getValue().timeUs() / 1e6, within(1e-12));
        }
        Coverage c = model.coverage();
        assertThat(m.value("eventspace_tuples_read_total")).isEqualTo(c.tuplesRead());
        assertThat(m.value("eventspace_tuples_missed_total")).isEqualTo(c.tuplesMissed());
        assertThat(m.value("eventspace_calls_dropped_total")).isEqualTo(c.callsDropped());
        assertThat(m.value("eventspace_unfinished_ranks_total")).isEqualTo(c.unfinishedRanks().size());
        assertThat(m.value("eventspace_gather_ratio")).isEqualTo(c.gatherRate());
        // The live model of our workloads has not counted what the collectors wrote: absent, not 0.
        assertThat(m.has("eventspace_tuples_written_total")).isEqualTo(c.tuplesWritten() >= c.tuplesRead() + c.tuplesMissed());
        for (String counter : List.of("eventspace_untraced_calls_total",
                "eventspace_unknown_communicator_calls_total", "eventspace_incomplete_instances_total",
                "eventspace_unmatched_point_to_point_calls_total")) {
            assertThat(m.has(counter)).as(counter).isTrue();
        }
    }

    @Test
    @Timeout(360)
    void anMpiProgramsMetricsNameItsSleepingRankWhileItRuns() throws Exception {
        // The program's file name is the benchmark label: a quote, a backslash and a space in it must come out escaped.
        Path built = NativePrograms.compile("es_allreduce", dir);
        Path program = Files.copy(built, dir.resolve("es \"all\\reduce"));
        assertThat(program.toFile().setExecutable(true)).isTrue();
        // 3500 allreduces with rank 1 sleeping 3 ms before each: about 11 s, scraped while it runs. Here the live view
        // names the rank about 2.5 s after the dashboard's address is printed; the rest is room for a slower machine.
        LiveCommand live = LiveCommand.start(List.of("mpirun", "--serve", "0", "-np", "3", "--mpirun-arg", "--mca",
                "--mpirun-arg", "btl", "--mpirun-arg", "self,vader", "--", program.toString(), "-i", "3500", "-s", "1",
                "-d", "3000"));
        try {
            String url = live.awaitUrl(Duration.ofSeconds(120)) + "metrics";
            ExpositionText m = null;
            String lastSeen = "no answer from " + url;
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline && live.process().isAlive()) {
                String text = getOrNull(url);
                ExpositionText t = text == null ? null : ExpositionText.prometheus(text);
                if (t != null) {
                    lastSeen = String.join("\n", text.lines().filter(l -> l.startsWith("eventspace_slowest_rank")
                            || l.startsWith("eventspace_run_running") || l.startsWith("eventspace_rank_collective_instances_total")).toList());
                }
                if (t != null && t.value("eventspace_run_running") == 1 && t.has("eventspace_slowest_rank_beyond_chance")
                        && t.value("eventspace_slowest_rank_beyond_chance") == 1
                        && t.value("eventspace_rank_collective_instances_total", "rank", "1") >= 50) {
                    m = t;
                    break;
                }
                Thread.sleep(200);
            }
            assertThat(m).as("the sleeping rank named while the program ran; the last metrics seen:%n%s%noutput:%n%s",
                    lastSeen, live.output()).isNotNull();
            assertThat(m.value("eventspace_slowest_rank")).isEqualTo(1);
            assertThat(m.series("eventspace_run_info")).singleElement().satisfies(s -> assertThat(s.labels())
                    .isEqualTo(Map.of("kind", "mpi", "benchmark", "es \"all\\reduce", "transport", "mpi")));
            assertThat(m.value("eventspace_run_ranks")).isEqualTo(3);
            assertThat(m.series("eventspace_rank_collective_wait_seconds_total")).hasSize(3);
            for (String r : List.of("0", "2")) {
                assertThat(m.value("eventspace_rank_last_arrivals_total", "rank", "1"))
                        .isGreaterThan(m.value("eventspace_rank_last_arrivals_total", "rank", r));
            }
            // PMPI measures point-to-point wait states (none here: the program only allreduces), so every rank has them.
            assertThat(m.series("eventspace_rank_late_sender_wait_seconds_total")).hasSize(3)
                    .allSatisfy(s -> assertThat(s.value()).isZero());
            assertThat(m.value("eventspace_slowest_rank_z")).isGreaterThan(m.value("eventspace_slowest_rank_critical_z"));
            assertThat(live.process().waitFor(120, TimeUnit.SECONDS)).as(live.output()).isTrue();
            assertThat(live.process().exitValue()).as(live.output()).isZero();
        } finally {
            live.close();
        }
    }

    private String get(String url, String accept, String contentType) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
        if (accept != null) {
            b.header("Accept", accept);
        }
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValue(contentType);
        return r.body();
    }

    /** The body, or null if the server did not answer 200 (not up yet, or gone). */
    private String getOrNull(String url) throws InterruptedException {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5))
                    .build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? r.body() : null;
        } catch (java.io.IOException e) {
            return null;
        }
    }
}
