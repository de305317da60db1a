package org.eventspace.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;

import org.HdrHistogram.Histogram;
import org.eventspace.base.json.Json;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/** A rank result's wire form: the fields in their documented order, optional ones absent, and a lossless round trip. */
class RankResultTest {
    private static List<String> names(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    @Test
    void aPlainResultHasNoBlocksAndNoErrorAndRoundTrips() {
        Histogram h = RankResult.newHistogram();
        h.recordValue(1_500);
        h.recordValue(42_000);
        RankResult r = new RankResult(3, 9_000_000, 1_000, 250, true, null, h, 77);
        JsonNode json = r.toJson(Json.mapper());
        assertThat(names(json)).containsExactly("rank", "wall_ns", "iterations", "compute_ns", "sort_length", "result_ok",
                "histogram");
        RankResult back = RankResult.fromJson(json);
        assertThat(back.rank()).isEqualTo(3);
        assertThat(back.wallNanos()).isEqualTo(9_000_000);
        assertThat(back.computeNanos()).isEqualTo(250);
        assertThat(back.sortLength()).isEqualTo(77);
        assertThat(back.resultOk()).isTrue();
        assertThat(back.error()).isNull();
        assertThat(back.blocks()).isEmpty();
        assertThat(back.latencies()).isEqualTo(h);
    }

    @Test
    void aFailedInterleavedResultKeepsItsBlocksAndItsError() {
        RankResult r = new RankResult(1, 5, 4, 0, false, "rank 1: timed out", RankResult.newHistogram(), 0,
                new long[] {10, 20});
        JsonNode json = r.toJson(Json.mapper());
        assertThat(names(json)).containsExactly("rank", "wall_ns", "iterations", "compute_ns", "sort_length", "result_ok",
                "blocks", "error", "histogram");
        RankResult back = RankResult.fromJson(json);
        assertThat(back.blocks()).containsExactly(10, 20);
        assertThat(back.error()).isEqualTo("rank 1: timed out");
        assertThat(back.resultOk()).isFalse();
    }

    @Test
    void aResultWithoutItsHistogramIsRefusedNamingIt() {
        JsonNode json = Json.mapper().createObjectNode().put("rank", 0);
        assertThatThrownBy(() -> RankResult.fromJson(json)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("malformed rank result");
    }
}
