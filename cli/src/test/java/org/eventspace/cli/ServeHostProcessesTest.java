package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * {@code --serve} for a job of host processes: the eventspace command runs in a process of its own, starts the hosts,
 * and host 0's process serves the dashboard from the monitors its event scope gathers of every host. The test reads
 * the address the host printed, polls the API over loopback while the job runs, and ends every process it started.
 */
@Timeout(360)
class ServeHostProcessesTest {
    @Test
    void aTcpRunServesItsDashboardFromHostZeroAndNamesTheSlowRankWhileItRuns() throws Exception {
        // Rank 3 (on host 1) waits 300 µs before each allreduce: about 6 s of slowness, found through the scope.
        LiveCommand live = LiveCommand.start(List.of("run", "gsum", "--transport", "tcp", "--ranks", "4", "--hosts", "2", "--tree",
                "hier:2", "--iterations", "20000", "--warmup", "100", "--warmup-s", "0", "--monitor", "loadbalance",
                "--slow-rank", "3:300", "--serve", "0"));
        try {
            String url = live.awaitUrl(Duration.ofSeconds(90));
            JsonNode found = null;
            JsonNode healthThen = null;
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline && live.process().isAlive()) {
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
            assertThat(run.path("injected_slow_rank").asInt()).isEqualTo(3);
            assertThat(live.process().waitFor(150, TimeUnit.SECONDS)).as(live.output()).isTrue();
            assertThat(live.process().exitValue()).as(live.output()).isZero();
        } finally {
            live.close();
        }
    }

    @Test
    void aLaunchedProgramIsServedByItsHostZeroWithoutAskingForIt() throws Exception {
        // JobExample knows nothing of the dashboard: joining the job is enough.
        LiveCommand live = LiveCommand.start(List.of("launch", "-n", "2", "--timeout", "150", "--serve", "0", "--",
                "org.eventspace.examples.JobExample", "2", "200000", "--monitors"));
        try {
            String url = live.awaitUrl(Duration.ofSeconds(90));
            JsonNode lb = null;
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline && live.process().isAlive()) {
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
            // /metrics serves the run model of what the scope gathered, whose ranks are both processes'.
            ExpositionText metrics = ExpositionText.prometheus(live.text(url + "metrics"));
            assertThat(metrics.value("eventspace_run_model_available")).isEqualTo(1);
            assertThat(metrics.value("eventspace_run_ranks")).isEqualTo(live.get(url + "api/v1/run").path("ranks").asInt());
            assertThat(metrics.value("eventspace_run_hosts")).isEqualTo(2);
            assertThat(metrics.series("eventspace_run_info")).singleElement()
                    .satisfies(s -> assertThat(s.labels()).containsEntry("benchmark", "JobExample"));
        } finally {
            live.close();
        }
    }
}
