package org.eventspace.base.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class UniformSampleTest {
    @Test
    void belowItsCapacityItKeepsEveryValue() {
        UniformSample s = new UniformSample(8, 1);
        assertThat(s.median()).isNaN();
        for (double x : new double[] {5, 1, 3}) {
            s.add(x);
        }
        assertThat(s.seen()).isEqualTo(3);
        assertThat(s.median()).isEqualTo(3);
    }

    @Test
    void beyondItsCapacityItsMedianEstimatesTheMedianOfAll() {
        UniformSample s = new UniformSample(256, 7);
        for (int i = 0; i < 100_000; i++) {
            s.add(i % 1000);
        }
        assertThat(s.seen()).isEqualTo(100_000);
        assertThat(s.median()).isCloseTo(500, within(100.0));
        UniformSample copy = s.copy();
        s.add(-1);
        assertThat(copy.seen()).isEqualTo(100_000);
    }
}
