package org.eventspace.base.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.Size;

import org.junit.jupiter.api.Test;

class MedianTest {
    @Test
    void oddCountIsTheMiddleValue() {
        double[] values = {9, 1, 5};
        assertThat(Median.of(values)).isEqualTo(5.0);
        assertThat(values).containsExactly(9, 1, 5);
    }

    @Test
    void evenCountIsTheMeanOfTheTwoMiddleValues() {
        assertThat(Median.of(new double[] {4, 1, 3, 2})).isEqualTo(2.5);
        assertThat(Median.of(new double[] {7})).isEqualTo(7.0);
    }

    record Run(String name, double offloadUs) {
    }

    @Test
    void lowerOfIsOneRealObservationTheLowerMiddleForAnEvenCount() {
        List<Run> runs = List.of(new Run("a", 40), new Run("b", 10), new Run("c", 30), new Run("d", 20));
        assertThat(Median.lowerOf(runs, Run::offloadUs).name()).isEqualTo("d");
        assertThat(Median.lowerOf(runs.subList(0, 3), Run::offloadUs).name()).isEqualTo("c");
        // Ties keep the sample's order: the earlier of equal keys.
        assertThat(Median.lowerOf(List.of(new Run("x", 1), new Run("y", 1)), Run::offloadUs).name()).isEqualTo("x");
    }

    @Test
    void anEmptySampleIsRefused() {
        assertThatThrownBy(() -> Median.of(new double[0])).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("size=0");
        assertThatThrownBy(() -> Median.lowerOf(List.<Run>of(), Run::offloadUs))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("size=0");
    }

    /** At most half the values lie strictly below the median and at most half strictly above it. */
    @Property(tries = 300)
    void halfTheSampleOnEachSide(@ForAll @Size(min = 1, max = 101) List<@DoubleRange(min = -1e9, max = 1e9) Double> sample) {
        double[] values = sample.stream().mapToDouble(Double::doubleValue).toArray();
        double median = Median.of(values);
        long below = Arrays.stream(values).filter(x -> x < median).count();
        long above = Arrays.stream(values).filter(x -> x > median).count();
        assertThat(2 * below).isLessThanOrEqualTo(values.length);
        assertThat(2 * above).isLessThanOrEqualTo(values.length);

        double lower = Median.lowerOf(new ArrayList<>(sample), Double::doubleValue);
        assertThat(lower).isLessThanOrEqualTo(median);
        assertThat(sample).contains(lower);
        if (values.length % 2 == 1) {
            assertThat(lower).isEqualTo(median);
        }
    }
}
