package org.eventspace.run;

import static org.assertj.core.api.Assertions.assertThat;

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
    void nobodyWatchesTheOtherRanks() {
        Progress.NONE.phase("warm-up", 1, 2);
        assertThat(Progress.NONE.toString()).endsWith("starting");
    }
}
