package org.eventspace.ui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.eventspace.base.json.Json;
import org.eventspace.monitor.model.Coverage;
import org.eventspace.monitor.model.RankRecord;
import org.eventspace.monitor.model.RunModel;
import org.eventspace.monitor.model.SlowestRankRule;
import org.eventspace.monitor.model.Verdict;
import org.eventspace.mpi.MpiPathmap;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** A report file as the dashboard's source and as the one page of {@code report}: any run/2 report, ours or MPI's. */
class RunFileSourceTest {
    private static final ObjectMapper JSON = Json.mapper();

    /** A run of 4 ranks in which rank 2 came last 250 times of 300, named when {@code named}; its headline has markup. */
    private static RunModel model(String kind, boolean named) {
        List<RankRecord> ranks = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            ranks.add(new RankRecord(r, 0, true, null, null, 301L, 0L, r == 2 ? 300.0 : 30_000.0, r == 2 ? 900.0 : -300.0,
                    r == 2 ? 250L : 17L, 300L, 0.0, 0.0, Map.of("MPI_Allreduce", new RankRecord.Calls(300, 1000))));
        }
        Verdict.SlowestRank none = SlowestRankRule.judge(List.of());
        Verdict.SlowestRank v = new Verdict.SlowestRank(2, 250, 300, 0.83, 0.25, 20.0, 2.8, none.alpha(), 4, 900.0, 12.0,
                "world", none.minEffectPct(), true, named, named ? 2 : null, "rank 2 <b>is</b> slow & late");
        return new RunModel(RunModel.SCHEMA, kind, "es_imbalance", 4, 1, kind.equals(RunModel.MPI) ? "mpi" : "jvm", 0.5,
                true, List.of(), ranks, RunModel.operationsOf(ranks),
                new Verdict(v, new Verdict.HeaviestPath(List.of("collective instances", "rank 2"), 2, 0.83, true),
                        Verdict.Load.of(2, 4, 1), v.words()),
                new Coverage(1204, 1204, 0, 1.0, 0, 0, 0, 0, 0, List.of()));
    }

    @Test
    void anMpiReportIsDrawnOnTheFlatGredWithEachRanksFiguresFromTheModel() {
        JsonNode report = JSON.valueToTree(model(RunModel.MPI, true));
        RunFileSource source = new RunFileSource("slow.json", report);
        MpiPathmap tree = MpiPathmap.of(4, 1);
        assertThat(source.pathmap().spec().ranks()).isEqualTo(4);
        assertThat(source.info().tree()).isEqualTo("flat");
        JsonNode lb = source.monitors().orElseThrow().path("loadbalance");
        assertThat(lb.path("slowest_rank").asInt()).isEqualTo(2);
        JsonNode gred = lb.path("greds").path(tree.gred());
        assertThat(gred.path("last_arrivals").get(tree.port(2)).asLong()).isEqualTo(250);
        assertThat(gred.path("mean_arrival_wait_us").get(tree.port(0)).asDouble()).isEqualTo(100.0);
        assertThat(lb.path("heaviest_path")).extracting(JsonNode::asText).containsExactlyElementsOf(tree.pathFromRoot(2));
        assertThat(lb.path("trees").get(0).path("slowest_rank").asInt()).isEqualTo(2);

        ObjectNode frame = new DashboardFrames(source, JSON).next(0);
        assertThat(frame.path("ranks").get(0).path("arrival_wait_us").asDouble()).isEqualTo(100.0);
        assertThat(frame.path("ranks").get(2).path("last_share").asDouble()).isGreaterThan(0.8);

        // Not named (within chance): nothing is orange in the ranks' pane, the heaviest path is still drawn.
        RunFileSource within = new RunFileSource("bal.json", JSON.valueToTree(model(RunModel.MPI, false)));
        assertThat(within.monitors().orElseThrow().path("loadbalance").path("slowest_rank").isNull()).isTrue();
    }

    @Test
    void thePageShowsTheHeadlineAndCoverageEscapedAndTheComparisonHasNoEmptyRow() {
        JsonNode a = JSON.valueToTree(model(RunModel.MPI, false));
        JsonNode b = JSON.valueToTree(model(RunModel.MPI, true));
        String page = RunReportPage.html("bal.json", a, "slow.json", b);
        assertThat(page).contains("rank 2 \\u003cb>is\\u003c/b> slow & late").doesNotContain("<b>is</b>")
                .contains("<p id=\"verdict-headline\">rank 2 &lt;b&gt;is&lt;/b&gt; slow &amp; late</p>")
                .contains("coverage: 1204 of 1204 tuples read").contains("\"verdict\":{\"headline\"")
                .contains("id=\"verdict-panel\"").contains("no rank's wait at collectives changed")
                .contains("MPI runs have no stages");
        assertThat(page).doesNotContain("\"a\":null").doesNotContain("\"b\":null");
    }

    @Test
    void aReportThatIsNotARun2OrCannotBeDrawnIsRefusedNamingWhy() throws Exception {
        assertThatThrownBy(() -> new RunFileSource("x.json", JSON.readTree("{\"schema\": \"eventspace.diff/1\"}")))
                .hasMessage("x.json: field 'schema' is 'eventspace.diff/1', expected 'eventspace.run/2'");
        assertThatThrownBy(() -> new RunFileSource("old.json", JSON.readTree("{\"schema\": \"eventspace.run/1\"}")))
                .hasMessageStartingWith("old.json: field 'schema' is 'eventspace.run/1', expected 'eventspace.run/2' "
                        + "(written by an older eventspace");
        ObjectNode ours = JSON.valueToTree(model(RunModel.WORKLOAD, false));
        ours.put("clusters", 1).put("trees", 2).put("tree", "config");
        assertThatThrownBy(() -> new RunFileSource("y.json", ours)).hasMessageContaining("y.json: its tree 'config'");
        ours.put("clusters", 0);
        assertThatThrownBy(() -> new RunFileSource("z.json", ours)).hasMessageContaining("z.json: field 'clusters'");
        ours.put("clusters", 1).put("tree", "hier:2");
        assertThat(new RunFileSource("w.json", ours).pathmap().spec().trees()).isEqualTo(2);
    }
}
