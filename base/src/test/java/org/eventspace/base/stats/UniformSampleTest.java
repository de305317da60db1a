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

    /**
     * Li's skips keep Algorithm R's promise: each of N values ends up in a sample of k with probability k/N. Over 4 000
     * seeded samples of 8 out of 64, every value's count is within 5 standard deviations of 500 (a wrong skip
     * distribution favours early or late values by far more), and so is every tenth of the stream's.
     */
    @Test
    void everyValueIsInTheSampleWithTheSameProbability() {
        int n = 64;
        int k = 8;
        int trials = 4_000;
        long[] kept = new long[n];
        for (int t = 0; t < trials; t++) {
            UniformSample s = new UniformSample(k, 1_000 + t);
            for (int i = 0; i < n; i++) {
                s.add(i);
            }
            for (double v : s.valuesForTest()) {
                kept[(int) v]++;
            }
        }
        double expected = (double) trials * k / n;
        double sd = Math.sqrt(trials * ((double) k / n) * (1 - (double) k / n));
        for (int i = 0; i < n; i++) {
            assertThat((double) kept[i]).as("value " + i).isCloseTo(expected, within(5 * sd));
        }
        long firstHalf = 0;
        for (int i = 0; i < n / 2; i++) {
            firstHalf += kept[i];
        }
        assertThat((double) firstHalf).as("the first half of the stream").isCloseTo(trials * k / 2.0,
                within(5 * Math.sqrt(trials * k / 4.0)));
    }

    @Test
    void aLongStreamStillEntersTheSample() {
        // Skips grow with the stream; the sample must still be replaced: of a million, the first 16 survive with
        // probability about 16·16/10^6 each time.
        long changed = 0;
        UniformSample t = new UniformSample(16, 4);
        for (int i = 0; i < 1_000_000; i++) {
            t.add(i);
        }
        for (double v : t.valuesForTest()) {
            if (v >= 16) {
                changed++;
            }
        }
        assertThat(changed).as("values from beyond the first 16 in the sample").isEqualTo(16);
        assertThat(t.median()).isCloseTo(500_000, within(250_000.0));
    }
}
