package org.eventspace.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class RankLatenessTest {
    @Test
    void theNormalQuantileMatchesTables() {
        assertThat(RankLateness.upperNormalQuantile(0.5)).isCloseTo(0, within(1e-9));
        assertThat(RankLateness.upperNormalQuantile(0.05)).isCloseTo(1.644854, within(1e-5));
        assertThat(RankLateness.upperNormalQuantile(0.01)).isCloseTo(2.326348, within(1e-5));
        assertThat(RankLateness.upperNormalQuantile(0.01 / 32)).isCloseTo(3.4205, within(1e-3));
    }
}
