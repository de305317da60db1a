package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code bench overhead} and {@code bench collector}: the contract's JSON fields, on settings small enough for
 * {@code verify} (what they measure is in docs/BENCHMARKS.md, not asserted here: this machine is too noisy).
 */
class BenchCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final CliHarness cli = new CliHarness();

    @Test
    void overheadAlternatesOffAndOnAndReportsTheMedianAndSpread() throws Exception {
        Path json = dir.resolve("overhead.json");
        int code = cli.execute("bench", "overhead", "--benchmark", "gsum", "--ranks", "2", "--hosts", "1", "--transport", "jvm",
                "--repeats", "2", "--iterations", "300", "--warmup", "100", "--warmup-s", "0", "--json", json.toString());

        assertThat(code).as(cli.err()).isZero();
        JsonNode report = JSON.readTree(json.toFile());
        assertThat(report.path("schema").asText()).isEqualTo("eventspace.bench-overhead/1");
        assertThat(report.path("benchmark").asText()).isEqualTo("gsum");
        assertThat(report.path("ranks").asInt()).isEqualTo(2);
        assertThat(report.path("hosts").asInt()).isEqualTo(1);
        assertThat(report.path("transport").asText()).isEqualTo("jvm");
        assertThat(report.path("iterations").asInt()).isEqualTo(300);
        assertThat(report.path("repeats").asInt()).isEqualTo(2);
        assertThat(report.path("off_us")).hasSize(2);
        assertThat(report.path("cache_line_round_trip_ns").path("off")).hasSize(2).allMatch(p -> p.asDouble() > 0);
        assertThat(report.path("pairs_same_state").asInt()).isBetween(0, 2);
        assertThat(report.path("on_us")).hasSize(2);
        assertThat(report.path("overhead_pct_pairs")).hasSize(2);
        for (int i = 0; i < 2; i++) {
            double off = report.path("off_us").get(i).asDouble();
            double on = report.path("on_us").get(i).asDouble();
            assertThat(off).isPositive();
            assertThat(on).isPositive();
            assertThat(report.path("overhead_pct_pairs").get(i).asDouble())
                    .isCloseTo((on - off) / off * 100, org.assertj.core.data.Offset.offset(0.01 + Math.abs(on - off) / off));
        }
        double min = report.path("overhead_pct_min").asDouble();
        double max = report.path("overhead_pct_max").asDouble();
        // Two pairs: the median is their mean, the IQR half their distance.
        assertThat(report.path("overhead_pct").asDouble()).isCloseTo((min + max) / 2, org.assertj.core.data.Offset.offset(0.01));
        assertThat(report.path("overhead_pct_iqr").asDouble()).isCloseTo((max - min) / 2, org.assertj.core.data.Offset.offset(0.01));
        assertThat(report.has("iteration")).isFalse();
        assertThat(report.path("collectors").path("count").asInt()).isPositive();
        assertThat(report.path("collectors").path("tuples_written").asLong()).isPositive();
        assertThat(report.path("result_ok").asBoolean()).isTrue();
    }

    @Test
    void interleavedOverheadReportsThePairedDifferenceWithItsInterval() throws Exception {
        Path json = dir.resolve("interleaved.json");
        int code = cli.execute("bench", "overhead", "--interleave", "50", "--iterations", "1000", "--ranks", "2", "--hosts", "1",
                "--warmup", "100", "--warmup-s", "0", "--monitor", "loadbalance", "--coschedule", "ii", "--json", json.toString());
        assertThat(code).isZero();
        JsonNode report = new ObjectMapper().readTree(json.toFile());
        assertThat(report.path("schema").asText()).isEqualTo("eventspace.bench-overhead-interleaved/1");
        assertThat(report.path("blocks").asInt()).isEqualTo(20);
        double pct = report.path("overhead_pct").asDouble();
        assertThat(report.path("overhead_pct_ci95").get(0).asDouble()).isLessThanOrEqualTo(pct);
        assertThat(report.path("overhead_pct_ci95").get(1).asDouble()).isGreaterThanOrEqualTo(pct);
        assertThat(report.path("added_ns_per_call").isNumber()).isTrue();
        assertThat(report.path("gather_rate").asDouble()).isEqualTo(1.0);
        assertThat(report.path("monitors").path("loadbalance").path("greds").size())
                .as("greds monitored: tree 0's only, the tree with collectors").isEqualTo(1);
        assertThat(cli.execute("bench", "overhead", "--interleave", "7", "--iterations", "1000")).isEqualTo(2);
        assertThat(cli.execute("bench", "overhead", "--interleave", "10", "--benchmark", "compute-gsum")).isEqualTo(2);
    }

    @Test
    void overheadOfComputeGsumAlsoReportsTheIterationTime() throws Exception {
        Path json = dir.resolve("compute.json");
        int code = cli.execute("bench", "overhead", "--benchmark", "compute-gsum", "--repeats", "1", "--iterations", "200",
                "--warmup", "100", "--warmup-s", "0", "--json", json.toString());

        assertThat(code).as(cli.err()).isZero();
        JsonNode iteration = JSON.readTree(json.toFile()).path("iteration");
        assertThat(iteration.path("metric").asText()).isEqualTo("iteration_us");
        assertThat(iteration.path("off_us")).hasSize(1);
        assertThat(iteration.path("on_us")).hasSize(1);
        assertThat(iteration.has("overhead_pct")).isTrue();
    }

    @Test
    void overheadRefusesABenchmarkOtherThanGsumOrComputeGsum() {
        assertThat(cli.execute("bench", "overhead", "--benchmark", "pingpong", "--repeats", "1")).isEqualTo(2);
        assertThat(cli.err()).contains("--benchmark must be gsum or compute-gsum, got pingpong");
        assertThat(cli.execute("bench", "overhead", "--benchmark", "allgather")).isEqualTo(2);
        assertThat(cli.execute("bench", "overhead", "--repeats", "0")).isEqualTo(2);
        assertThat(cli.err()).doesNotContain("--collectors");
        // Both sides run whatever --collectors says: the flag does nothing here, and the user is told so.
        assertThat(cli.execute("bench", "overhead", "--collectors", "off", "--repeats", "0")).isEqualTo(2);
        assertThat(cli.err()).contains("bench overhead: --collectors off is ignored");
    }

    @Test
    void collectorRunsJmhAndWritesCollectorAndClockCosts() throws Exception {
        Path json = dir.resolve("collector.json");
        Path log = dir.resolve("jmh.log");
        java.io.PrintStream stdout = System.out;
        java.io.PrintStream stderr = System.err;
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        int code;
        try {
            System.setOut(new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8));
            System.setErr(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
            code = cli.execute("bench", "collector", "--warmup-iterations", "1", "--iterations", "1", "--time-s", "0.2",
                    "--forks", "0", "--json", json.toString(), "--jmh-log", log.toString());
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
        }

        assertThat(code).as(cli.err() + err).isZero();
        // The answer first and alone: JMH's own ~150 lines went to --jmh-log, not to the terminal.
        java.util.List<String> lines = out.toString(java.nio.charset.StandardCharsets.UTF_8).lines().toList();
        assertThat(lines.get(0)).startsWith("collector write (both timestamps):");
        assertThat(lines).hasSize(5).last().isEqualTo("JMH's log: " + log);
        assertThat(err.toString(java.nio.charset.StandardCharsets.UTF_8)).doesNotContain("# Warmup Iteration")
                .contains("bench collector: JMH, 2 benchmarks");
        assertThat(java.nio.file.Files.readString(log)).contains("# Warmup Iteration").contains("CollectorWriteBenchmark.collectorCall")
                .contains("CollectorWriteBenchmark.nanoTime");
        JsonNode report = JSON.readTree(json.toFile());
        assertThat(report.path("schema").asText()).isEqualTo("eventspace.bench-collector/1");
        double op = report.path("ns_per_op").asDouble();
        double clock = report.path("clock_ns").asDouble();
        assertThat(op).isPositive();
        assertThat(clock).isPositive();
        assertThat(report.path("bytes_allocated_per_op").isNumber()).isTrue();
        assertThat(report.path("overhead_over_two_clocks_ns").asDouble())
                .isCloseTo(op - 2 * clock, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(report.path("jmh").path("iterations").asInt()).isEqualTo(1);
        assertThat(report.path("jmh").path("forked").asBoolean()).isFalse();
        assertThat(report.path("machine").path("cores").asInt()).isPositive();
    }

    @Test
    void collectorRefusesBadJmhSettings() {
        assertThat(cli.execute("bench", "collector", "--iterations", "0")).isEqualTo(2);
        assertThat(cli.err()).contains("iterations must be >= 1");
        assertThat(cli.execute("bench", "collector", "--time-s", "0")).isEqualTo(2);
    }

    @Test
    void offloadSweepsEveryCombinationAndWritesAvgOffloadForEach() throws Exception {
        Path json = dir.resolve("offload.json");
        int code = cli.execute("bench", "offload", "--ranks", "8", "--hosts", "2", "--fanout", "2,4", "--period-us", "0,100",
                "--events", "4", "--reduce", "none,hist", "--iterations", "5", "--repeats", "2", "--work", "spin", "--json", json.toString());

        assertThat(code).as(cli.err()).isZero();
        JsonNode report = JSON.readTree(json.toFile());
        assertThat(report.path("schema").asText()).isEqualTo("eventspace.bench-offload/1");
        assertThat(report.path("configurations")).hasSize(8).allSatisfy(c -> {
            assertThat(c.path("avg_offload_us").asDouble()).isPositive();
            assertThat(c.path("records_gathered").asLong()).isEqualTo(c.path("records_produced").asLong());
            assertThat(c.path("avg_offload_us_runs")).hasSize(2).anyMatch(v -> v.asDouble() == c.path("avg_offload_us").asDouble());
        });
        assertThat(report.path("configurations").get(0).path("work").asText()).isEqualTo("spin");
        assertThat(cli.execute("bench", "offload", "--work", "nap")).isEqualTo(2);
        assertThat(cli.err()).contains("--work must be sleep or spin, got nap");
        assertThat(cli.execute("bench", "offload", "--reduce", "squash")).isEqualTo(2);
        assertThat(cli.err()).contains("reduce=squash");
    }

    /** The recorder measured like the collectors: the contract's fields, every traced call kept. */
    @Test
    void overheadRecordInterleavesTheTraceRecorder() throws Exception {
        Path json = dir.resolve("record.json");
        int code = cli.execute("bench", "overhead", "--interleave", "100", "--record", "hist", "--ranks", "2", "--hosts", "1",
                "--iterations", "2000", "--warmup", "100", "--warmup-s", "0", "--json", json.toString());
        assertThat(code).as(cli.err()).isZero();
        JsonNode report = JSON.readTree(json.toFile());
        assertThat(report.path("schema").asText()).isEqualTo("eventspace.bench-overhead-interleaved/1");
        assertThat(report.path("record").asText()).isEqualTo("hist");
        assertThat(report.path("design").asText()).contains("the recorder on tree 0's calls, then on tree 1's");
        // Half of each rank's calls went through the recorder: at least the 2000 timed pairs' halves of both ranks.
        assertThat(report.path("events_recorded").asLong()).isGreaterThanOrEqualTo(2L * 2000);
        assertThat(report.path("added_ns_per_call").isNumber()).isTrue();
        assertThat(report.path("result_ok").asBoolean()).isTrue();
        assertThat(cli.execute("bench", "overhead", "--record", "hist", "--ranks", "2")).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(cli.err()).contains("--record hist needs --interleave BLOCK");
    }

    /** Over TCP each host process wraps its own ranks: every traced call is counted back from the hosts. */
    @Test
    void overheadRecordInterleavesTheRecorderInHostProcessesToo() throws Exception {
        Path json = dir.resolve("record-tcp.json");
        int code = cli.execute("bench", "overhead", "--interleave", "100", "--record", "stats", "--ranks", "2", "--hosts", "2",
                "--transport", "tcp", "--iterations", "1000", "--warmup", "50", "--warmup-s", "0", "--json", json.toString());
        assertThat(code).as(cli.err()).isZero();
        JsonNode report = JSON.readTree(json.toFile());
        assertThat(report.path("transport").asText()).isEqualTo("tcp");
        assertThat(report.path("runs")).hasSize(2).allSatisfy(run ->
                // each run: half of each rank's 1000 timed pairs' calls at least, from both host processes
                assertThat(run.path("events_recorded").asLong()).isGreaterThanOrEqualTo(2L * 1000));
        assertThat(report.path("result_ok").asBoolean()).isTrue();
    }

    /**
     * The traffic counters measured like the collectors: with them (both on the measured tree) or alone (--collectors
     * off); either way only the measured tree's messages are counted.
     */
    @Test
    void overheadTrafficMeasuresTheCountersWithOrWithoutCollectors() throws Exception {
        for (String collectors : new String[] {"on", "off"}) {
            Path json = dir.resolve("traffic-" + collectors + ".json");
            Path traffic = dir.resolve("matrix-" + collectors + ".json");
            int code = cli.execute("bench", "overhead", "--interleave", "100", "--ranks", "2", "--hosts", "2", "--iterations",
                    "2000", "--warmup", "100", "--warmup-s", "0", "--collectors", collectors, "--traffic", traffic.toString(),
                    "--json", json.toString());
            assertThat(code).as(cli.err()).isZero();
            JsonNode report = JSON.readTree(json.toFile());
            assertThat(report.path("design").asText()).contains(collectors.equals("on") ? "collectors and traffic counters"
                    : "traffic counters (no collectors)");
            // Rank 1's path: its collector before the hop (2 reads), the served hop's collector above the gred (1: it takes
            // its t4 from the collector below, which reads 2).
            assertThat(report.path("clock_reads_on_critical_path").asInt()).isEqualTo(collectors.equals("on") ? 5 : 0);
            assertThat(report.path("tuple_stores_on_critical_path").asInt()).isEqualTo(collectors.equals("on") ? 3 : 0);
            assertThat(report.path("runs")).allSatisfy(r -> assertThat(r.path("traffic_messages_counted").asLong()).isPositive());
            assertThat(report.path("runs").get(0).path("traffic_scope").asText()).isEqualTo("all;trees:0");
            assertThat(report.path("runs").get(1).path("traffic_scope").asText()).isEqualTo("all;trees:1");
            assertThat(JSON.readTree(traffic.toFile()).path("scope").asText()).isEqualTo("all;trees:0");
        }
        assertThat(cli.execute("bench", "overhead", "--ranks", "2", "--traffic", dir.resolve("t.json").toString()))
                .isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(cli.err()).contains("needs --interleave BLOCK");
    }

    /** bench replay: pairs of a traced run and its replay; the contract's fields; its flags checked at the edge. */
    @Test
    void replayPairsReportTheirErrorsAndTheOriginalsSpread() throws Exception {
        Path json = dir.resolve("replay.json");
        int code = cli.execute("bench", "replay", "--benchmark", "gsum", "--pairs", "2", "--ranks", "2", "--iterations", "500",
                "--warmup", "20", "--warmup-s", "0", "--json", json.toString());
        assertThat(code).as(cli.err()).isZero();
        JsonNode report = JSON.readTree(json.toFile());
        assertThat(report.path("schema").asText()).isEqualTo("eventspace.bench-replay/2");
        assertThat(report.path("pairs")).hasSize(2);
        for (JsonNode pair : report.path("pairs")) {
            assertThat(pair.path("calls").asLong()).isEqualTo(pair.path("events_recorded").asLong()).isPositive();
            assertThat(pair.path("original_wall_s").asDouble()).isPositive();
            assertThat(pair.path("replay_wall_s").asDouble()).isPositive();
            // The replay ran under the conditions the trace recorded for its original (what trace replay defaults to).
            assertThat(pair.path("conditions_differ").isArray()).isTrue();
            assertThat(pair.path("conditions_differ")).isEmpty();
            assertThat(pair.path("load_average_before").isNumber()).isTrue();
            assertThat(pair.path("load_average_after").isNumber()).isTrue();
            // Each replay against the original under the same instrumentation: recorded against traced, unrecorded
            // against unrecorded; and what the recorder cost each.
            double plain = pair.path("uninstrumented_timed_s").asDouble();
            double traced = pair.path("timed_original_s").asDouble();
            double recordedReplay = pair.path("timed_replay_s").asDouble();
            double bareReplay = pair.path("unrecorded_timed_replay_s").asDouble();
            assertThat(plain).isPositive();
            assertThat(bareReplay).isPositive();
            org.assertj.core.data.Offset<Double> exactly = org.assertj.core.data.Offset.offset(1e-9);
            assertThat(pair.path("timed_error_pct").asDouble()).isCloseTo(100 * (recordedReplay - traced) / traced, exactly);
            assertThat(pair.path("timed_error_vs_uninstrumented_pct").asDouble()).isCloseTo(100 * (bareReplay - plain) / plain,
                    exactly);
            assertThat(pair.path("unrecorded_replay_vs_traced_pct").asDouble()).isCloseTo(100 * (bareReplay - traced) / traced,
                    exactly);
            assertThat(pair.path("tracing_cost_pct").asDouble()).isCloseTo(100 * (traced - plain) / plain, exactly);
            assertThat(pair.path("replay_tracing_cost_pct").asDouble()).isCloseTo(
                    100 * (recordedReplay - bareReplay) / bareReplay, exactly);
        }
        assertThat(report.path("unrecorded_replay_vs_traced_pct_iqr")).hasSize(2);
        assertThat(report.path("replay_tracing_cost_pct_median").isNumber()).isTrue();
        assertThat(report.path("timed_error_vs_uninstrumented_pct_iqr")).hasSize(2);
        assertThat(report.path("tracing_cost_pct_median").isNumber()).isTrue();
        assertThat(report.path("error_pct_median").isNumber()).isTrue();
        assertThat(report.path("error_pct_iqr")).hasSize(2);
        assertThat(report.path("original_spread_pct_median").isNumber()).isTrue();
        assertThat(report.path("result_ok").asBoolean()).isTrue();
        assertThat(cli.execute("bench", "replay", "--pairs", "0")).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(cli.err()).contains("--pairs must be >= 1, got 0");
        assertThat(cli.execute("bench", "replay", "--benchmark", "pingpong")).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(cli.err()).contains("--benchmark must be gsum, compute-gsum or sor, got pingpong");
    }
}
