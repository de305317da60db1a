package org.eventspace.wan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LinkSeriesTest {
    private final LinkSeries series = LinkSeries.of(new long[] {1_000, 2_000, 5_000}, new double[] {1, 2, 3});

    @Test
    void aSampleHoldsUntilTheNextOne() {
        assertThat(series.at(1_000)).isEqualTo(1);
        assertThat(series.at(1_999)).isEqualTo(1);
        assertThat(series.at(2_000)).isEqualTo(2);
        assertThat(series.at(4_999)).isEqualTo(2);
        assertThat(series.at(5_000)).isEqualTo(3);
    }

    @Test
    void theFirstValueHoldsBeforeTheFirstSampleAndTheLastAfterTheLast() {
        assertThat(series.at(0)).isEqualTo(1);
        assertThat(series.at(-5)).isEqualTo(1);
        assertThat(series.at(Long.MAX_VALUE)).isEqualTo(3);
    }

    @Test
    void timesMustIncrease() {
        assertThatThrownBy(() -> LinkSeries.of(new long[] {5, 5}, new double[] {1, 2}))
                .hasMessageContaining("strictly increasing, sample 1 at 5 ns");
    }

    @Test
    void summaries() {
        assertThat(series.min()).isEqualTo(1);
        assertThat(series.max()).isEqualTo(3);
        assertThat(series.mean()).isEqualTo(2);
        assertThat(LinkSeries.constant(4).isConstant()).isTrue();
    }
}
