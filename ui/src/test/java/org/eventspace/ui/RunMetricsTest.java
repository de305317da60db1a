package org.eventspace.ui;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.eventspace.monitor.model.Coverage;
import org.eventspace.monitor.model.RankRecord;
import org.eventspace.monitor.model.RunModel;
import org.eventspace.monitor.model.SlowestRankRule;
import org.eventspace.monitor.model.Verdict;
import org.junit.jupiter.api.Test;

/**
 * {@link RunMetrics} on models made by hand: what a program names is escaped by the library, a figure the model does
 * not have has no sample, no candidate is -1, and the format follows the scrape's {@code Accept} header.
 */
class RunMetricsTest {
    /** An MPI run, live: rank 1 of 2 with a host unknown and no figures; the program's name needs escaping. */
    private static RunModel model(String program) {
        RankRecord measured = new RankRecord(0, 0, false, null, null, 40L, 4096L, 1234.5, -12.5, 3L, 10L, 0.1, 2.0,
                Map.of("MPI_Allreduce", new RankRecord.Calls(40, 1500.0)));
        RankRecord blank = new RankRecord(1, null, false, null, null, null, null, null, null, null, null, null, null, null);
        List<RankRecord> ranks = List.of(measured, blank);
        Verdict verdict = new Verdict(SlowestRankRule.judge(List.of()), null, Verdict.Load.of(2, 2, 1), "no verdict");
        Coverage coverage = new Coverage(100, 90, 10, Coverage.gatherRate(90, 10), 1, 2, 3, 4, 5,
                List.of(new Coverage.UnfinishedRank(1, "killed by signal 9 (SIGKILL)")));
        return new RunModel(RunModel.SCHEMA, RunModel.MPI, program, 2, 1, "mpi", null, true, List.of(), ranks,
                RunModel.operationsOf(ranks), verdict, coverage);
    }

    private static String text(String accept, boolean running, RunModel model) {
        return new String(new RunMetrics().answer(accept, running, model).bytes(), StandardCharsets.UTF_8);
    }

    @Test
    void labelValuesFromProgramsAreEscapedByTheLibrary() {
        String text = text(null, true, model("a \"b\"\\c\nd.x"));
        assertThat(text).contains("eventspace_run_info{benchmark=\"a \\\"b\\\"\\\\c\\nd.x\",kind=\"mpi\",transport=\"mpi\"} 1\n");
    }

    @Test
    void figuresTheModelLacksHaveNoSampleAndNoCandidateIsMinusOne() {
        String text = text(null, true, model("p"));
        assertThat(text).contains("eventspace_rank_collective_wait_seconds_total{host=\"0\",rank=\"0\"} 0.0012345\n")
                .contains("eventspace_rank_lateness_seconds{host=\"0\",rank=\"0\"} -1.25E-5\n")
                .contains("eventspace_rank_sent_bytes_total{host=\"0\",rank=\"0\"} 4096.0\n")
                .contains("eventspace_rank_finished{rank=\"1\"} 0.0\n")
                .doesNotContain("eventspace_rank_calls_total{rank=\"1\"}")
                .contains("eventspace_slowest_rank -1.0\n")
                .contains("eventspace_slowest_rank_beyond_chance 0.0\n")
                .doesNotContain("eventspace_slowest_rank_z ")
                .doesNotContain("eventspace_slowest_rank_effect_ratio ")
                .doesNotContain("eventspace_heaviest_path")
                .contains("eventspace_machine_oversubscribed 1.0\n")
                .contains("eventspace_gather_ratio 0.9\n")
                .contains("eventspace_tuples_missed_total 10.0\n")
                .contains("eventspace_tuples_written_total 100.0\n")
                .contains("eventspace_unmatched_point_to_point_calls_total 4.0\n")
                .contains("eventspace_unfinished_ranks_total 1.0\n")
                .contains("eventspace_operation_calls_total{operation=\"MPI_Allreduce\"} 40.0\n")
                .contains("eventspace_operation_time_seconds_total{operation=\"MPI_Allreduce\"} 0.0015\n")
                .contains("eventspace_run_running 1.0\n")
                .doesNotContain("eventspace_run_wall_seconds");
    }

    @Test
    void tuplesWrittenIsAbsentWhileNotCounted() {
        RunModel counted = model("p");
        Coverage c = counted.coverage();
        RunModel uncounted = new RunModel(counted.schema(), counted.kind(), counted.benchmark(), counted.ranks(),
                counted.hosts(), counted.transport(), null, true, List.of(), counted.perRank(), counted.operations(),
                counted.verdict(), new Coverage(0, c.tuplesRead(), c.tuplesMissed(), c.gatherRate(), 0, 0, 0, 0, 0,
                List.of()));
        assertThat(text(null, true, uncounted)).doesNotContain("eventspace_tuples_written")
                .contains("eventspace_tuples_read_total 90.0\n");
    }

    @Test
    void withoutAModelOnlyTheRunsStateIsExposed() {
        String text = text(null, false, null);
        assertThat(text.lines().filter(l -> !l.startsWith("#")))
                .containsExactly("eventspace_run_model_available 0.0", "eventspace_run_running 0.0");
    }

    @Test
    void openMetricsWhenTheScrapeAsksForIt() {
        RunMetrics metrics = new RunMetrics();
        RunModel model = model("p");
        RunMetrics.Exposition open = metrics.answer("application/openmetrics-text;version=1.0.0,text/plain;q=0.5", true,
                model);
        assertThat(open.contentType()).startsWith("application/openmetrics-text");
        String text = new String(open.bytes(), StandardCharsets.UTF_8);
        assertThat(text).endsWith("# EOF\n").contains("# TYPE eventspace_rank_collective_wait_seconds counter\n")
                .contains("# UNIT eventspace_rank_collective_wait_seconds seconds\n")
                .contains("# TYPE eventspace_run info\n");
        RunMetrics.Exposition plain = metrics.answer("text/plain", true, model);
        assertThat(plain.contentType()).startsWith("text/plain; version=0.0.4");
        // Made once per model and format: the same answer until the sampler takes a new model.
        assertThat(metrics.answer("text/plain", true, model)).isSameAs(plain);
        assertThat(metrics.answer("text/plain", false, model)).isNotSameAs(plain);
    }
}
