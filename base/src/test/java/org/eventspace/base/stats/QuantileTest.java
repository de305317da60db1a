package org.eventspace.base.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.Size;

import org.junit.jupiter.api.Test;

/** Hyndman and Fan's type 7: the spread {@code bench overhead} and {@code bench replay} report. */
class QuantileTest {
    @Test
    void quantilesOfFivePairsAreTheMedianAndTheQuartiles() {
        double[] pct = {759.6, 288.7, 380.8, 270.2, 74.9};
        assertThat(Quantile.of(pct, 0.5)).isEqualTo(288.7);
        assertThat(Quantile.of(pct, 0)).isEqualTo(74.9);
        assertThat(Quantile.of(pct, 1)).isEqualTo(759.6);
        assertThat(Quantile.of(pct, 0.25)).isEqualTo(270.2);
        assertThat(Quantile.of(pct, 0.75)).isEqualTo(380.8);
        assertThat(pct).containsExactly(759.6, 288.7, 380.8, 270.2, 74.9);
    }

    @Test
    void quantilesBetweenRanksAreInterpolated() {
        double[] pct = {4, 1, 3, 2};
        assertThat(Quantile.of(pct, 0.5)).isEqualTo(2.5);
        assertThat(Quantile.of(pct, 0.25)).isEqualTo(1.75);
        assertThat(Quantile.of(pct, 0.75)).isEqualTo(3.25);
        assertThat(Quantile.of(new double[] {7}, 0.25)).isEqualTo(7);
    }

    @Test
    void anEmptySampleOrAqOutsideTheUnitIntervalIsRefused() {
        assertThatThrownBy(() -> Quantile.of(new double[0], 0.5)).hasMessageContaining("size=0");
        assertThatThrownBy(() -> Quantile.of(new double[] {1}, 1.5)).hasMessageContaining("q=1.5");
    }

    @Property(tries = 300)
    void theHalfQuantileIsTheMedian(@ForAll @Size(min = 1, max = 50) @DoubleRange(min = -1e6, max = 1e6) double[] values) {
        assertThat(Quantile.of(values, 0.5)).isCloseTo(Median.of(values),
                org.assertj.core.api.Assertions.within(1e-9 * (1 + Math.abs(Median.of(values)))));
    }

    @Property(tries = 300)
    void quantilesAreMonotoneInQ(@ForAll @Size(min = 1, max = 50) @DoubleRange(min = -1e6, max = 1e6) double[] values,
                                 @ForAll @DoubleRange(min = 0, max = 1) double a,
                                 @ForAll @DoubleRange(min = 0, max = 1) double b) {
        double lo = Math.min(a, b);
        double hi = Math.max(a, b);
        assertThat(Quantile.of(values, lo)).isLessThanOrEqualTo(Quantile.of(values, hi));
    }
}
