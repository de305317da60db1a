package org.eventspace.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.run.Workload;
import org.eventspace.run.RunConfig;
import org.junit.jupiter.api.Test;

/** The spread {@code bench overhead} reports: quantiles interpolated linearly between closest ranks (R's type 7). */
class CollectorOverheadTest {
    @Test
    void quantilesOfFivePairsAreTheMedianAndTheQuartiles() {
        double[] pct = {759.6, 288.7, 380.8, 270.2, 74.9};
        assertThat(CollectorOverhead.quantile(pct, 0.5)).isEqualTo(288.7);
        assertThat(CollectorOverhead.quantile(pct, 0)).isEqualTo(74.9);
        assertThat(CollectorOverhead.quantile(pct, 1)).isEqualTo(759.6);
        assertThat(CollectorOverhead.quantile(pct, 0.25)).isEqualTo(270.2);
        assertThat(CollectorOverhead.quantile(pct, 0.75)).isEqualTo(380.8);
    }

    @Test
    void quantilesBetweenRanksAreInterpolated() {
        double[] pct = {4, 1, 3, 2};
        assertThat(CollectorOverhead.quantile(pct, 0.5)).isEqualTo(2.5);
        assertThat(CollectorOverhead.quantile(pct, 0.25)).isEqualTo(1.75);
        assertThat(CollectorOverhead.quantile(pct, 0.75)).isEqualTo(3.25);
        assertThat(CollectorOverhead.quantile(new double[] {7}, 0.25)).isEqualTo(7);
    }

    @Test
    void onlyGsumAndComputeGsumHaveAnOverhead() {
        RunConfig pingpong = new RunConfig(Workload.PINGPONG, RunConfig.shortcut(2, 1, 1, TreeShape.hier(8)), "jvm", 10, 10,
                Duration.ofSeconds(5), 1);
        assertThatThrownBy(() -> new CollectorOverhead(pingpong, 3)).hasMessageContaining("benchmark=pingpong");
    }
}
