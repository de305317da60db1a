package org.eventspace.monitor.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.eventspace.base.json.Json;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** {@link RunModel#read} refuses a report whose structure contradicts itself before anything sizes itself by it. */
class RunModelReadTest {
    private static ObjectNode report(int ranks) {
        List<RankRecord> perRank = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            perRank.add(new RankRecord(r, 0, true, null, null, 10L, null, 1.0, 0.0, 1L, 10L, null, null,
                    Map.of("allreduce", new RankRecord.Calls(10, 20))));
        }
        Verdict.SlowestRank none = SlowestRankRule.none("no verdict");
        RunModel model = new RunModel(RunModel.SCHEMA, RunModel.WORKLOAD, "gsum", ranks, 1, "jvm", 1.0, true, List.of(),
                perRank, RunModel.operationsOf(perRank), new Verdict(none, null, null, none.words()),
                new Coverage(10, 10, 0, 1.0, 0, 0, 0, 0, 0, List.of()));
        return model.toJson(Json.mapper());
    }

    @Test
    void aReportAsWrittenReadsBack() {
        RunModel read = RunModel.read(report(3), "run.json");
        assertThat(read.ranks()).isEqualTo(3);
        assertThat(read.perRank()).hasSize(3);
    }

    @Test
    void moreRanksClaimedThanListedIsRefusedNamingBothNumbers() {
        ObjectNode doc = report(2).put("ranks", 100_000);
        assertThatThrownBy(() -> RunModel.read(doc, "big.json")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("big.json: field 'ranks' is 100000 but 'per_rank' lists 2 ranks (a report lists every rank once)");
    }

    @Test
    void ranksOutOfOrderNegativeOrNotIntegersAreRefusedNamingTheField() {
        ObjectNode swapped = report(2);
        ((ObjectNode) swapped.get("per_rank").get(0)).put("rank", 1);
        assertThatThrownBy(() -> RunModel.read(swapped, "r.json")).hasMessageStartingWith("r.json: per_rank/0/rank must be 0");
        assertThatThrownBy(() -> RunModel.read(report(2).put("ranks", -1), "r.json"))
                .hasMessageStartingWith("r.json: field 'ranks' must be a rank count");
        assertThatThrownBy(() -> RunModel.read(report(2).put("ranks", 1e10), "r.json"))
                .hasMessageStartingWith("r.json: field 'ranks' must be a rank count");
        assertThatThrownBy(() -> RunModel.read(report(2).put("hosts", "many"), "r.json"))
                .hasMessageStartingWith("r.json: field 'hosts' must be a host count");
        ObjectNode extra = report(2);
        ((ArrayNode) extra.get("per_rank")).add(extra.get("per_rank").get(1).deepCopy());
        assertThatThrownBy(() -> RunModel.read(extra, "r.json"))
                .hasMessage("r.json: field 'ranks' is 2 but 'per_rank' lists 3 ranks (a report lists every rank once)");
    }

    /** Found by the run-report fuzzer: each of these read without complaint and then broke the text summary. */
    @Test
    void aNullVerdictCoverageHeadlineOrPathlessHeaviestPathIsRefusedWhenRead() {
        assertThatThrownBy(() -> RunModel.read(report(2).putNull("verdict"), "r.json"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("r.json: field 'verdict' must be an object");
        assertThatThrownBy(() -> RunModel.read(report(2).putNull("coverage"), "r.json"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("r.json: field 'coverage' must be an object");
        ObjectNode noHeadline = report(2);
        ((ObjectNode) noHeadline.get("verdict")).putNull("headline");
        assertThatThrownBy(() -> RunModel.read(noHeadline, "r.json")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at verdict");
        ObjectNode pathless = report(2);
        ((ObjectNode) pathless.get("verdict")).putObject("heaviest_path");
        assertThatThrownBy(() -> RunModel.read(pathless, "r.json")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at verdict.heaviest_path");
        RunModel fine = RunModel.read(report(2), "r.json");
        assertThat(RunText.lines(fine)).isNotEmpty();
    }
}
