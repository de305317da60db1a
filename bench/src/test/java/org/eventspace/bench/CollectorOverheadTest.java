package org.eventspace.bench;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.run.Workload;
import org.eventspace.run.RunConfig;
import org.junit.jupiter.api.Test;

/** What {@code bench overhead} refuses (its quantiles are base.stats' {@code Quantile}, tested there). */
class CollectorOverheadTest {
    @Test
    void onlyGsumAndComputeGsumHaveAnOverhead() {
        RunConfig pingpong = new RunConfig(Workload.PINGPONG, RunConfig.shortcut(2, 1, 1, TreeShape.hier(8)), "jvm", 10, 10,
                Duration.ofSeconds(5), 1);
        assertThatThrownBy(() -> new CollectorOverhead(pingpong, 3)).hasMessageContaining("benchmark=pingpong");
    }
}
