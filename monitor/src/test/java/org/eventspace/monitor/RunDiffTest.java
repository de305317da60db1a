package org.eventspace.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.eventspace.monitor.model.Coverage;
import org.eventspace.monitor.model.RankRecord;
import org.eventspace.monitor.model.RunModel;
import org.eventspace.monitor.model.SlowestRankRule;
import org.eventspace.monitor.model.Verdict;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** {@link RunDiff} on hand-built run models: rows only where both runs have the figure, and what changed most named. */
class RunDiffTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** An MPI run of 4 ranks: rank {@code slow} waits {@code slowWait} µs less than the others, which wait 1000 µs. */
    private static RunModel mpi(int slow, double othersWait, double slowWait, Integer culprit) {
        List<RankRecord> ranks = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            double wait = r == slow ? slowWait : othersWait;
            ranks.add(new RankRecord(r, 0, true, new RankRecord.Exit("finished", null, null, null, null, null), null,
                    302L, 0L, wait, r == slow ? 300.0 : -100.0, r == slow ? 250L : 17L, 300L, 0.0, 0.0,
                    Map.of("MPI_Allreduce", new RankRecord.Calls(300, wait + 50), "MPI_Barrier", new RankRecord.Calls(2, 4))));
        }
        return model(RunModel.MPI, "es_imbalance", ranks, culprit, 0.5);
    }

    private static RunModel model(String kind, String benchmark, List<RankRecord> ranks, Integer culprit, Double wall) {
        Verdict.SlowestRank none = SlowestRankRule.judge(List.of());
        Verdict.SlowestRank slowest = new Verdict.SlowestRank(culprit, 0, 0, null, null, null, null, none.alpha(), 4, null,
                null, null, none.minEffectPct(), culprit != null, culprit != null, culprit,
                culprit == null ? "no rank is slower beyond chance" : "rank " + culprit + " is the slowest rank, beyond chance");
        return new RunModel(RunModel.SCHEMA, kind, benchmark, ranks.size(), 1, kind.equals(RunModel.MPI) ? "mpi" : "jvm",
                wall, true, List.of(), ranks, RunModel.operationsOf(ranks),
                new Verdict(slowest, null, null, slowest.words()),
                new Coverage(100, 100, 0, 1.0, 0, 0, 0, 0, 0, List.of()));
    }

    /** One of our workloads, without a late-sender figure (ours have none), with or without a stats block. */
    private static RunModel workload(double rank1Wait) {
        List<RankRecord> ranks = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            double wait = r == 1 ? rank1Wait : 10;
            ranks.add(new RankRecord(r, 0, true, null, null, 100L, null, wait, 0.0, 50L, 100L, null, null,
                    Map.of("allreduce", new RankRecord.Calls(100, 400 + wait))));
        }
        return model(RunModel.WORKLOAD, "gsum", ranks, null, 1.0);
    }

    private static JsonNode stats(double down, double wait) throws Exception {
        return JSON.readTree(("{'wrappers':{'t0.gred.h0.0':{'kind':'gred','down':{'mean':" + down + "},'up':{'mean':1.0},"
                + "'stages':{'arrival':{'mean':3.0}},'ports':[{'contributor':'rank 0','total':{'mean':2.0},"
                + "'arrival_wait':{'mean':" + wait + "}}]}}}").replace('\'', '"'));
    }

    @Test
    void twoMpiRunsCompareEveryFigureBothHaveAndNameTheRankWhoseWaitChangedMost() {
        RunDiff diff = RunDiff.of(new RunDiff.Run("bal.json", mpi(2, 1000, 1000, null), null),
                new RunDiff.Run("slow.json", mpi(2, 40_000, 10, 2), null));

        assertThat(diff.waitChangedMost().rank()).isNotEqualTo(2);
        assertThat(diff.waitChangedMost().changeUs()).isEqualTo(39_000);
        assertThat(diff.head().get(2)).startsWith("the rank whose wait changed most: rank 0,");
        assertThat(diff.head()).anySatisfy(l -> assertThat(l).isEqualTo("verdict: culprit A none, B rank 2"));
        assertThat(diff.rows()).allSatisfy(r -> {
            assertThat(Double.isFinite(r.a()) && Double.isFinite(r.b())).isTrue();
        });
        assertThat(diff.rows()).anySatisfy(r -> {
            assertThat(r.what()).isEqualTo("MPI_Allreduce mean time per rank");
            assertThat(r.section()).isEqualTo("per operation");
            assertThat(r.verdict()).isEqualTo("slower");
        });
        assertThat(diff.rows()).anySatisfy(r -> {
            assertThat(r.what()).isEqualTo("rank 2 wait at collectives");
            assertThat(r.rank()).isEqualTo(2);
            assertThat(r.ratio()).isEqualTo(0.01);
            assertThat(r.verdict()).isEqualTo("lower");
        });
        assertThat(diff.rows()).anySatisfy(r -> assertThat(r.what()).isEqualTo("rank 3 lateness"));
        // Late-sender waits are 0 on every rank of both runs: one note, not a row per rank.
        assertThat(diff.rows()).noneSatisfy(r -> assertThat(r.what()).endsWith("late-sender wait"));
        String text = diff.text();
        assertThat(text).doesNotContain("a full bar is 0.00").doesNotContain(" -  ")
                .contains(RunDiff.NO_MPI_STAGES).doesNotContain("--monitor stats");
        assertThat(diff.notes()).containsExactly("per rank: late-sender wait is 0 µs on every rank in both runs",
                "stage by stage: " + RunDiff.NO_MPI_STAGES);
        // A section whose values are all 0 (no imbalance in either run) has no bars, and says so.
        RunModel balanced = mpi(2, 1000, 1000, null);
        String same = RunDiff.of(new RunDiff.Run("a.json", balanced, null), new RunDiff.Run("b.json", balanced, null)).text();
        assertThat(same).contains("%: all 0, no bars").doesNotContain("a full bar is 0.00").doesNotContain("a full bar is 0 ")
                .contains("no rank's wait at collectives changed");
        JsonNode doc = diff.toJson(JSON);
        assertThat(doc.path("schema").asText()).isEqualTo("eventspace.diff/2");
        assertThat(doc.at("/verdict/b/culprit").asInt()).isEqualTo(2);
        assertThat(doc.at("/verdict/a/culprit").isNull()).isTrue();
        assertThat(doc.at("/wait_changed_most/rank").asInt()).isZero();
        for (JsonNode row : doc.path("rows")) {
            assertThat(row.path("a").isNumber() && row.path("b").isNumber()).as(row.toString()).isTrue();
        }
    }

    @Test
    void aFigureOnlyOneRunHasIsANoteNeverARowOfDashes() {
        RunDiff diff = RunDiff.of(new RunDiff.Run("mpi.json", mpi(1, 100, 10, null), null),
                new RunDiff.Run("gsum.json", workload(500), null));

        assertThat(diff.rows()).noneSatisfy(r -> assertThat(r.what()).contains("late-sender"));
        assertThat(diff.rows()).noneSatisfy(r -> assertThat(r.what()).startsWith("rank 2"));
        assertThat(diff.notes()).contains("per rank: late-sender wait (2 ranks) only in A",
                "per operation: MPI_Allreduce only in A", "per operation: allreduce only in B",
                "per rank: A has 4 ranks, B 2: the 2 rank(s) only A has are not compared",
                "stage by stage: A is an MPI run; " + RunDiff.NO_MPI_STAGES);
        assertThat(diff.notes().get(0)).startsWith("A is an MPI run, B one of our workloads");
        assertThat(diff.waitChangedMost().rank()).isEqualTo(1);
        assertThat(diff.text()).doesNotContain(" -\n").contains("not compared:");
    }

    @Test
    void twoWorkloadsWithTheStatisticsMonitorCompareStageByStage() throws Exception {
        RunDiff diff = RunDiff.of(new RunDiff.Run("a.json", workload(20), stats(4, 200)),
                new RunDiff.Run("b.json", workload(900), stats(4.1, 20)));

        assertThat(diff.rows()).anySatisfy(r -> {
            assertThat(r.section()).isEqualTo("stages of t0.gred.h0.0");
            assertThat(r.what()).isEqualTo("down");
            assertThat(r.verdict()).isEqualTo("same");
        });
        assertThat(diff.rows()).anySatisfy(r -> {
            assertThat(r.what()).isEqualTo("rank 0: arrival wait");
            assertThat(r.ratio()).isEqualTo(0.1);
            assertThat(r.verdict()).isEqualTo("faster");
        });
        assertThat(diff.rows()).anySatisfy(r -> {
            assertThat(r.what()).isEqualTo("allreduce mean time per rank");
            assertThat(r.verdict()).isEqualTo("slower");
        });
        assertThat(diff.waitChangedMost().rank()).isEqualTo(1);
        assertThat(diff.text()).contains("B/A 0.10  faster").contains("one scale per unit").doesNotContain("--monitor stats");
        // Only one ran the statistics monitor: said so, for that run.
        RunDiff half = RunDiff.of(new RunDiff.Run("a.json", workload(20), stats(4, 200)),
                new RunDiff.Run("b.json", workload(900), null));
        assertThat(half.notes()).contains("stage by stage: B did not run the statistics monitor (the stages come from "
                + "the statistics monitor, --monitor stats)");
    }

    /** A launch block of phases {@code name, seconds, name, seconds, …}. */
    private static JsonNode launch(Object... phases) {
        ObjectNode launch = JSON.createObjectNode();
        ArrayNode list = launch.putArray("phases");
        for (int i = 0; i < phases.length; i += 2) {
            list.addObject().put("phase", (String) phases[i]).put("s", (Double) phases[i + 1]);
        }
        return launch;
    }

    @Test
    void theHostProcessesStartAndEndCompareByPhase() {
        RunDiff diff = RunDiff.of(new RunDiff.Run("a.json", workload(20), null, launch("start", 46.1, "built", 3.3, "exit", 1.0)),
                new RunDiff.Run("b.json", workload(20), null, launch("start", 25.8, "built", 3.4, "merge", 0.1)));
        assertThat(diff.rows()).filteredOn(r -> r.section().equals(RunDiff.LAUNCH)).extracting(RunDiff.Row::what)
                .containsExactly("start", "built");
        assertThat(diff.rows()).anySatisfy(r -> {
            assertThat(r.what()).isEqualTo("start");
            assertThat(r.unit()).isEqualTo("s");
            assertThat(r.verdict()).isEqualTo("faster");
        });
        assertThat(diff.notes()).contains(RunDiff.LAUNCH + ": exit only in A", RunDiff.LAUNCH + ": merge only in B");
        assertThat(diff.text()).contains(RunDiff.LAUNCH);
        // One JVM against host processes: said, not compared.
        RunDiff half = RunDiff.of(new RunDiff.Run("a.json", workload(20), null),
                new RunDiff.Run("b.json", workload(20), null, launch("start", 1.0)));
        assertThat(half.notes()).contains(RunDiff.LAUNCH + ": only B ran host processes (--transport tcp)");
        assertThat(half.rows()).noneMatch(r -> r.section().equals(RunDiff.LAUNCH));
    }

    @Test
    void aDocumentThatIsNotARunReportIsRefusedNamingIt() throws Exception {
        JsonNode good = JSON.valueToTree(mpi(0, 1, 1, null));
        assertThatThrownBy(() -> RunDiff.of("a.json", JSON.readTree("{\"schema\":\"eventspace.compare/1\"}"), "b.json",
                good)).hasMessage("a.json: field 'schema' is 'eventspace.compare/1', expected 'eventspace.run/2'");
        assertThatThrownBy(() -> RunDiff.of("a.json", good, "old.json", JSON.readTree("{\"schema\":\"eventspace.run/1\"}")))
                .hasMessageStartingWith("old.json: field 'schema' is 'eventspace.run/1', expected 'eventspace.run/2' "
                        + "(written by an older eventspace");
        assertThat(RunDiff.of("a.json", good, "b.json", good).rows()).isNotEmpty();
    }
}
