package org.eventspace.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.InputStream;
import java.util.List;

import org.eventspace.base.json.Json;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.Topology;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.events.CollectorPlacement;
import org.eventspace.monitor.model.SlowestRankRule;
import org.eventspace.monitor.model.Verdict;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

class RankLatenessTest {
    private static Pathmap pathmap(int ranks, int hosts, int trees, TreeShape shape) {
        return CollectorPlacement.place(PathmapBuilder.build(PathmapSpec.of(Topology.simulated(1, hosts, 8), ranks, trees,
                shape)));
    }

    @Test
    void aRankIsJudgedAmongItsSiblingsAndPoolsItsTrees() throws Exception {
        // hier:2 over 2 hosts × 2 ranks, two trees: t<t>.gred.h0.0 joins ranks 0 and 1; the gred above joins two
        // subtrees, which are no rank's. Rank 1 last at 90 of 100 calls of each tree, 40 and 25 µs later than the mean.
        JsonNode greds = Json.mapper().readTree("""
                {"t0.gred.h0.0": {"calls": 100, "contributors": ["rank 0", "rank 1"], "last_arrivals": [10, 90],
                        "mean_arrival_wait_us": [90, 10], "span_us": 20000},
                 "t0.gred.h0.1": {"calls": 100, "contributors": ["t0.gred.h0.0", "t0.proxy.h1.0"],
                        "last_arrivals": [50, 50], "mean_arrival_wait_us": [5, 5], "span_us": 20000},
                 "t1.gred.h0.0": {"calls": 100, "contributors": ["rank 0", "rank 1"], "last_arrivals": [10, 90],
                        "mean_arrival_wait_us": [50, 0], "span_us": 21000}}""");
        List<SlowestRankRule.Evidence> evidence = RankLateness.evidence(greds, pathmap(4, 2, 2, TreeShape.parse("hier:2")));
        assertThat(evidence).extracting(SlowestRankRule.Evidence::rank).containsExactly(0, 1);
        SlowestRankRule.Evidence one = evidence.get(1);
        assertThat(one.lastArrivals()).isEqualTo(180);
        assertThat(one.instances()).isEqualTo(200);
        assertThat(one.expectedLast()).isCloseTo(100, within(1e-9));
        // t0: mean wait 50, rank 1 waits 10 → 40 µs a call; t1: mean 25, waits 0 → 25 µs a call.
        assertThat(one.latenessUs()).isCloseTo(40 * 100 + 25 * 100, within(1e-9));
        assertThat(one.spanUs()).isEqualTo(21000);
        assertThat(one.where()).isEqualTo("t0.gred.h0.0");
    }

    /**
     * The greds of a real run (file header) in which rank 14, on host h1, was 200 µs slow: on a flat tree over 4 hosts
     * it enters the root gred through a proxy, and every remote rank arrives after every local one. Judged only among
     * the local ranks (as contributors named "rank N") it was never judged, and rank 0 was named "slowest" with z −7.
     */
    @Test
    void aSlowRankBehindAProxyOnAFlatTreeIsNamed() throws Exception {
        JsonNode greds;
        try (InputStream in = RankLatenessTest.class.getResourceAsStream("flat-4-hosts-slow-rank-14.json")) {
            greds = Json.mapper().readTree(in);
        }
        Pathmap pathmap = pathmap(32, 4, 2, TreeShape.FLAT);
        List<SlowestRankRule.Evidence> evidence = RankLateness.evidence(greds, pathmap);
        assertThat(evidence).as("every rank is judged, the remote ones at their proxy's port").hasSize(32);
        assertThat(RankLateness.notJudged(greds, pathmap)).isEmpty();
        assertThat(RankLateness.waits(greds, pathmap)).as("a rank behind a proxy has its wait too").hasSize(32)
                .containsEntry(14, 903.0 * 854 + 822.6 * 853);
        SlowestRankRule.Evidence fourteen = evidence.get(14);
        assertThat(fourteen.lastArrivals()).isEqualTo(270 + 342);
        assertThat(fourteen.instances()).isEqualTo(854 + 853);
        // Its like siblings are the ports from h1: last at 383 of tree 0's calls and 444 of tree 1's, an eighth each.
        assertThat(fourteen.expectedLast()).isCloseTo((383 + 444) / 8.0, within(1e-9));
        Verdict.SlowestRank verdict = SlowestRankRule.judge(evidence);
        assertThat(verdict.culprit()).as(verdict.words()).isEqualTo(14);
        assertThat(verdict.beyondChance()).isTrue();
        assertThat(verdict.z()).isGreaterThan(verdict.criticalZ());
        assertThat(verdict.effectPct()).isGreaterThan(SlowestRankRule.MIN_EFFECT_PCT);
        assertThat(verdict.rank()).isEqualTo(14);
        // The local ranks are judged among themselves: never last, never late against each other by much.
        assertThat(evidence.get(0).lastArrivals()).isEqualTo(1);
        assertThat(Math.abs(evidence.get(0).latenessUs()) / evidence.get(0).spanUs()).isLessThan(0.05);
    }

    @Test
    void aRankWithNoLikeSiblingIsNotJudgedAndSaysSo() throws Exception {
        // flat over 4 hosts, one rank each: rank 0 is the only local port; ranks 1–3 each come through a proxy of
        // their own host and are judged among one another.
        JsonNode greds = Json.mapper().readTree("""
                {"t0.gred.h0.0": {"calls": 100, "contributors": ["rank 0", "t0.proxy.h1.0", "t0.proxy.h2.0",
                        "t0.proxy.h3.0"], "last_arrivals": [0, 10, 80, 10],
                        "mean_arrival_wait_us": [300, 100, 20, 100], "span_us": 10000}}""");
        Pathmap pathmap = pathmap(4, 4, 1, TreeShape.FLAT);
        List<SlowestRankRule.Evidence> evidence = RankLateness.evidence(greds, pathmap);
        assertThat(evidence).extracting(SlowestRankRule.Evidence::rank).containsExactly(1, 2, 3);
        assertThat(evidence.get(1).expectedLast()).isCloseTo(100 / 3.0, within(1e-9));
        assertThat(evidence.get(1).latenessUs()).isCloseTo((220 / 3.0 - 20) * 100, within(1e-9));
        assertThat(RankLateness.notJudged(greds, pathmap)).containsExactly(0);
    }
}
