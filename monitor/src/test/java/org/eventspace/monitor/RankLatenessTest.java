package org.eventspace.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;

import org.eventspace.base.json.Json;
import org.eventspace.monitor.model.SlowestRankRule;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

class RankLatenessTest {
    @Test
    void aRankIsJudgedAmongItsSiblingsAndPoolsItsTrees() throws Exception {
        // Two trees; rank 1 last at 90 of 100 calls of each, 50 µs later than the mean; a proxy port is not a rank.
        JsonNode greds = Json.mapper().readTree("""
                {"g0": {"calls": 100, "contributors": ["rank 0", "rank 1", "proxy h1"], "last_arrivals": [5, 90, 5],
                        "mean_arrival_wait_us": [60, 10, 80], "span_us": 20000},
                 "g1": {"calls": 100, "contributors": ["rank 0", "rank 1"], "last_arrivals": [10, 90],
                        "mean_arrival_wait_us": [50, 0], "span_us": 21000}}""");
        List<SlowestRankRule.Evidence> evidence = RankLateness.evidence(greds);
        assertThat(evidence).extracting(SlowestRankRule.Evidence::rank).containsExactly(0, 1);
        SlowestRankRule.Evidence one = evidence.get(1);
        assertThat(one.lastArrivals()).isEqualTo(180);
        assertThat(one.instances()).isEqualTo(200);
        assertThat(one.expectedLast()).isCloseTo(100 / 3.0 + 50, within(1e-9));
        // g0: mean wait 50, rank 1 waits 10 → 40 µs a call; g1: mean 25, waits 0 → 25 µs a call.
        assertThat(one.latenessUs()).isCloseTo(40 * 100 + 25 * 100, within(1e-9));
        assertThat(one.spanUs()).isEqualTo(21000);
        assertThat(one.where()).isEqualTo("g0");
    }
}
