package org.eventspace.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;

import org.HdrHistogram.Histogram;
import org.eventspace.comm.pathmap.TreeShape;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

class RunReportTest {
    private static RunConfig config(Workload benchmark, int ranks) {
        return new RunConfig(benchmark, RunConfig.shortcut(ranks, Math.min(2, ranks), 1, TreeShape.hier(2)), "tcp", 1_000, 10,
                Duration.ofMillis(250), Duration.ofSeconds(5), 1, "yield", 65_536);
    }

    private static RankResult rank(int rank, long wallNanos, long... latencies) {
        Histogram h = RankResult.newHistogram();
        for (long l : latencies) {
            h.recordValue(l);
        }
        return new RankResult(rank, wallNanos, 1_000, 0, true, null, h);
    }

    @Test
    void meanIsTheSlowestRanksWallTimePerIterationAndPercentilesMergeAllRanks() {
        RunReport report = new RunReport(config(Workload.GSUM, 2), List.of(rank(0, 2_000_000, 1_000, 1_000),
                rank(1, 3_000_000, 5_000, 5_000)));

        assertThat(report.meanUs()).isEqualTo(3.0);
        assertThat(report.percentileUs(99)).isCloseTo(5.0, org.assertj.core.data.Offset.offset(0.05));
        assertThat(report.resultOk()).isTrue();
    }

    @Test
    void aCallLongerThanTheHistogramsRangeIsRecordedNotFatal() {
        // The first collective of 31 500 ranks in one JVM took 26 s, within the timeout; every rank failed recording it.
        RankResult slow = RankResult.fromJson(rank(0, 30_000_000_000L, 1_000, 26_000_000_000L).toJson(new ObjectMapper()));
        RunReport report = new RunReport(config(Workload.GSUM, 2), List.of(slow, rank(1, 2_000_000, 1_000)));

        assertThat(report.resultOk()).isTrue();
        assertThat(report.percentileUs(100)).isGreaterThan(25e6);
    }

    @Test
    void aMissingRankOrAWrongResultMakesTheRunFailAndSaysWhich() {
        RankResult wrong = new RankResult(1, 1_000, 1_000, 0, false, null, RankResult.newHistogram());
        RunReport report = new RunReport(config(Workload.GSUM, 3), List.of(rank(0, 1_000, 10), wrong));

        assertThat(report.resultOk()).isFalse();
        assertThat(report.errors()).contains("expected results from 3 ranks, got 2", "rank 1: got a wrong result");
    }

    @Test
    void errorsFromOutsideTheRanksAreKeptAndFailTheRun() {
        RunReport report = new RunReport(config(Workload.GSUM, 1), List.of(rank(0, 1_000, 10)),
                List.of("host 1 reported no result (exit code 137)"));

        assertThat(report.resultOk()).isFalse();
        assertThat(report.errors()).containsExactly("host 1 reported no result (exit code 137)");
    }

    @Test
    void aRunInWhichNoRankFinishedHasNoFiguresRatherThanZeros() {
        RunReport report = new RunReport(config(Workload.GSUM, 2),
                List.of(RankResult.failed(0, "gred timed out"), RankResult.failed(1, "gred timed out")));
        ObjectNode json = report.toJson(new ObjectMapper());

        assertThat(report.measured()).isFalse();
        assertThat(json.path("allreduce_us").path("mean").isNull()).isTrue();
        assertThat(json.path("allreduce_us").path("p99").isNull()).isTrue();
        assertThat(report.summary()).contains("allreduce latency: not measured").doesNotContain("0.00 µs")
                .doesNotContain("-1.0 B");
    }

    @Test
    void jsonCarriesTheRunContract() {
        ObjectNode json = new RunReport(config(Workload.PINGPONG, 2), List.of(rank(0, 2_000_000, 900), rank(1, 2_000_000, 900)))
                .toJson(new ObjectMapper());

        assertThat(json.path("schema").asText()).isEqualTo("eventspace.run/2");
        assertThat(json.path("transport").asText()).isEqualTo("tcp");
        assertThat(json.path("tree").asText()).isEqualTo("hier:2");
        assertThat(json.path("pingpong_us").path("mean").asDouble()).isEqualTo(1.0);
        assertThat(json.has("allreduce_us")).isFalse();
    }

    @Test
    void rankResultsSurviveTheTripFromAHostProcess() {
        ObjectMapper json = new ObjectMapper();
        RankResult sent = rank(3, 123_456, 700, 800, 900);

        RankResult got = RankResult.fromJson(sent.toJson(json));

        assertThat(got.rank()).isEqualTo(3);
        assertThat(got.wallNanos()).isEqualTo(123_456);
        assertThat(got.latencies().getTotalCount()).isEqualTo(3);
        assertThat(got.latencies().getMaxValue()).isEqualTo(sent.latencies().getMaxValue());
    }

    @Test
    void runConfigurationsSurviveTheTripToAHostProcess() {
        RunConfig sent = config(Workload.COMPUTE_GSUM, 4);

        RunConfig got = RunConfigCodec.decode(RunConfigCodec.encode(sent));

        assertThat(got).isEqualTo(sent);
    }

    @Test
    void aGarbledConfigurationArgumentIsRejectedWithAReason() {
        assertThatThrownBy(() -> RunConfigCodec.decode("not base64 at all!"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("malformed run configuration");
    }

    @Test
    void theSortIsSizedToTakeAboutTheTimeAskedFor() {
        int small = IntegerSort.lengthTakingNanos(1_000);
        int large = IntegerSort.lengthTakingNanos(200_000);

        assertThat(small).isGreaterThanOrEqualTo(16);
        assertThat(large).isGreaterThan(small);
    }
}
