package org.eventspace.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.run.Workload;
import org.eventspace.run.RunConfig;
import org.eventspace.run.RunReport;
import org.eventspace.run.RankResult;
import org.junit.jupiter.api.Test;

class InterleavedOverheadTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void studentsQuantileMatchesTables() {
        assertThat(InterleavedOverhead.t975(9)).isCloseTo(2.262, within(0.005));
        assertThat(InterleavedOverhead.t975(29)).isCloseTo(2.045, within(0.002));
        assertThat(InterleavedOverhead.t975(99)).isCloseTo(1.984, within(0.001));
    }

    /** Known block sums: tree 0 takes 110 ns per call, tree 1 100 ± 1: +10 %, +10 ns, a tight interval. */
    @Test
    void thePairedDifferenceAndItsIntervalComeFromTheBlocks() {
        RunConfig config = InterleavedOverhead.config(new RunConfig(Workload.GSUM, RunConfig.shortcut(2, 1, 1, TreeShape.hier(8)),
                "jvm", 1000, 10, Duration.ofSeconds(5), 1), 100);
        long[] blocks = new long[20];
        for (int k = 0; k < 10; k++) {
            blocks[2 * k] = 110 * 100;
            blocks[2 * k + 1] = (100 + (k % 2 == 0 ? 1 : -1)) * 100;
        }
        RankResult rank = new RankResult(0, 1, 2000, 0, true, null, RankResult.newHistogram(), 0, blocks);
        RankResult other = new RankResult(1, 1, 2000, 0, true, null, RankResult.newHistogram(), 0, blocks);
        ObjectNode r = InterleavedOverhead.analyse(config, new RunReport(config, List.of(rank, other)), JSON);
        assertThat(r.path("blocks").asInt()).isEqualTo(10);
        assertThat(r.path("added_ns_per_call").asDouble()).isCloseTo(10, within(1e-9));
        assertThat(r.path("overhead_pct").asDouble()).isCloseTo(10, within(0.05));
        double low = r.path("overhead_pct_ci95").get(0).asDouble();
        double high = r.path("overhead_pct_ci95").get(1).asDouble();
        assertThat(low).isLessThan(10).isGreaterThan(9);
        assertThat(high).isGreaterThan(10).isLessThan(11);
        assertThat(config.collectorSettings().trees()).containsExactly(0);
    }
}
