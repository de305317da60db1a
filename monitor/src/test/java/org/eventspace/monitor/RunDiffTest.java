package org.eventspace.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.Test;

class RunDiffTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode run(double mean, double down, double wait) throws Exception {
        return JSON.readTree(("{'schema':'eventspace.run/1','allreduce_us':{'mean':" + mean + ",'p50':" + mean
                + ",'p99':" + (2 * mean) + ",'max':" + (3 * mean) + "},'wall_s':1.0,'monitors':{'stats':{'wrappers':{"
                + "'t0.gred.h0.0':{'down':{'mean':" + down + "},'up':{'mean':1.0},'ports':[{'contributor':'rank 0',"
                + "'total':{'mean':2.0},'arrival_wait':{'mean':" + wait + "}}]}}},'loadbalance':{'slowest_rank':3}}}")
                .replace('\'', '"'));
    }

    @Test
    void everyStageIsComparedWithItsRatioAndVerdict() throws Exception {
        RunDiff diff = RunDiff.of("a.json", run(10, 4, 200), "b.json", run(8, 4.1, 20));
        assertThat(diff.rows()).anySatisfy(r -> {
            assertThat(r.what()).isEqualTo("allreduce mean");
            assertThat(r.ratio()).isEqualTo(0.8);
            assertThat(r.verdict()).isEqualTo("faster");
        });
        assertThat(diff.rows()).anySatisfy(r -> {
            assertThat(r.section()).isEqualTo("stages of t0.gred.h0.0");
            assertThat(r.what()).isEqualTo("down");
            assertThat(r.verdict()).isEqualTo("same");
        });
        assertThat(diff.rows()).anySatisfy(r -> {
            assertThat(r.what()).isEqualTo("rank 0: arrival wait");
            assertThat(r.ratio()).isEqualTo(0.1);
        });
        assertThat(diff.text()).contains("allreduce mean (µs)").contains("B/A 0.80  faster").contains("one scale per unit");
        assertThat(diff.toJson(JSON).path("schema").asText()).isEqualTo(RunDiff.SCHEMA);
        assertThat(diff.notes()).contains("slowest rank: A 3, B 3");
    }

    @Test
    void aDocumentThatIsNotARunReportIsNamed() throws Exception {
        assertThatThrownBy(() -> RunDiff.of("a.json", JSON.readTree("{\"schema\":\"eventspace.compare/1\"}"), "b.json",
                run(1, 1, 1))).hasMessage("a.json: expected a run report (\"schema\": \"eventspace.run/1\", what run --json "
                + "writes), got schema \"eventspace.compare/1\"");
    }
}
