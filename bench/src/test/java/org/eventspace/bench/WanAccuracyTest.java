package org.eventspace.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.eventspace.wan.LinkDirection;
import org.eventspace.wan.WanFile;
import org.eventspace.wan.WanLayout;

/** The accuracy benchmark's model of K synchronised connections and its checks; the runs themselves are the command's. */
class WanAccuracyTest {
    /** 1 ms each way, 8 Mbit/s: 1000 bytes take 1 ms on the wire. */
    private static final LinkDirection BA = LinkDirection.constant("b", "a", 1, 8);
    private static final LinkDirection AB = LinkDirection.constant("a", "b", 1, 8);

    @Test
    void oneConnectionIsAPingPong() {
        // 1 ms + 1 ms on the wire + 1 ms + 1 ms back.
        assertThat(WanAccuracy.modelNs(BA, AB, 1, 1000, 3, 10)).isEqualTo(4_000_000);
    }

    @Test
    void twoConnectionsShareTheWireEachWay() {
        // Iteration 0: requests at 0 and 0 leave the wire at 1 and 2 ms, due at 2 and 3 ms; root at 3 ms; replies leave
        // the wire at 4 and 5 ms, due at 5 and 6 ms. Next requests at 5 and 6 ms: leave at 6 and 7, due 7 and 8; root 8;
        // replies due 10 and 11: each rank's iteration took 5 ms (5 → 10, 6 → 11), not the 8 ms of two lone messages.
        assertThat(WanAccuracy.modelNs(BA, AB, 2, 1000, 1, 1)).isEqualTo(5_000_000);
        assertThat(WanAccuracy.modelNs(BA, AB, 2, 1000, 1, 4)).isEqualTo(5_000_000);
    }

    @Test
    void theBenchmarkNeedsBothLinksOfItsFirstTwoSites() {
        WanLayout oneWay = WanFile.parse(List.of("eventspace-wan 1", "site a", "site b",
                "link a b latency_ms=1 bandwidth_mbit_s=1"), "x.wan", null);
        assertThatThrownBy(() -> new WanAccuracy.Config(oneWay, java.nio.file.Path.of("x.wan"), List.of(8), List.of(1), 1, 0))
                .hasMessageContaining("x.wan: the benchmark needs both links between its first two sites, a and b");
        WanLayout two = WanFile.parse(List.of("eventspace-wan 1", "site a", "site b",
                "link a b latency_ms=1 bandwidth_mbit_s=1", "link b a latency_ms=1 bandwidth_mbit_s=1"), "x.wan", null);
        assertThatThrownBy(() -> new WanAccuracy.Config(two, java.nio.file.Path.of("x.wan"), List.of(12), List.of(1), 1, 0))
                .hasMessageContaining("multiples of 8");
    }

    @Test
    void aShortRunMeetsTheModelWithinItsOwnMeasurementAndReportsTheGateways() {
        WanLayout two = WanFile.parse(List.of("eventspace-wan 1", "site a", "site b",
                "link a b latency_ms=2 bandwidth_mbit_s=100", "link b a latency_ms=2 bandwidth_mbit_s=100"), "x.wan", null);
        WanAccuracy.Config config = new WanAccuracy.Config(two, java.nio.file.Path.of("x.wan"), List.of(8), List.of(2), 5, 1);
        WanAccuracy.Row row = WanAccuracy.row(config, 2, 8);
        // Lower bound only (the emulator never releases early); how close is the benchmark's measurement, not a test's.
        assertThat(row.wanUs()).isGreaterThanOrEqualTo(row.modelUs());
        assertThat(row.released()).isEqualTo(2L * 2 * (5 + 1));
        assertThat(row.configuredTwoWayUs()).isEqualTo(4001.28);
    }
}
