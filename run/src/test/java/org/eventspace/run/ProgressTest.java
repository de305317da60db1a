package org.eventspace.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** What a long run tells the person watching it. */
class ProgressTest {
    @Test
    void saysThePhaseAndTheIterations() {
        Progress p = Progress.of("gsum, 128 ranks");
        assertThat(p.toString()).startsWith("gsum, 128 ranks: ").endsWith(" s, starting");
        p.phase("warm-up", 300, 0);
        assertThat(p.toString()).endsWith("warm-up, 300 iterations done");
        p.phase("sort calibration round 2, 4096 ints", 300, 1200);
        assertThat(p.toString()).endsWith("sort calibration round 2, 4096 ints, 300 of 1200 iterations");
        p.phase("timed iterations (running)", 0, 20000);
        assertThat(p.toString()).endsWith("timed iterations (running), 20000 iterations");
    }

    @Test
    void theEnvironmentSetsThePeriodAndABadOneIsNamed() {
        assertThat(Progress.periodSeconds(null)).isEqualTo(Progress.PERIOD_S);
        assertThat(Progress.periodSeconds(" ")).isEqualTo(Progress.PERIOD_S);
        assertThat(Progress.periodSeconds("1")).isEqualTo(1);
        assertThat(Progress.periodSeconds(" 60 ")).isEqualTo(60);
        for (String bad : new String[] {"0", "-5", "3601", "1.5", "soon"}) {
            assertThatThrownBy(() -> Progress.periodSeconds(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("ES_PROGRESS_S=" + bad + ": expected whole seconds").hasMessageContaining("1..3600");
        }
    }

    @Test
    void nobodyWatchesTheOtherRanks() {
        Progress.NONE.phase("warm-up", 1, 2);
        assertThat(Progress.NONE.toString()).endsWith("starting");
    }
}
