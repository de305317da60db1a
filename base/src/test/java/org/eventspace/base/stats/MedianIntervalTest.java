package org.eventspace.base.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;

import org.junit.jupiter.api.Test;

/** {@link MedianInterval}: the order statistics the binomial table gives, and the coverage it promises. */
class MedianIntervalTest {

    private static double[] oneTo(int n) {
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[n - 1 - i] = i + 1; // descending: the method sorts a copy
        }
        return v;
    }

    @Test
    void theOrderStatisticsOfTheBinomialTable() {
        // n = 12: P(B <= 2) = 79/4096 = 1.93 % <= 2.5 % < P(B <= 3) = 7.3 %: x(3) and x(10), coverage 96.1 %
        MedianInterval twelve = MedianInterval.of(oneTo(12), 0.95);
        assertThat(twelve.lower()).isEqualTo(3);
        assertThat(twelve.upper()).isEqualTo(10);
        assertThat(twelve.coverage()).isCloseTo(1 - 2 * 79.0 / 4096, within(1e-12));
        // n = 6: only the extremes, 1 − 2/64 = 96.9 %
        MedianInterval six = MedianInterval.of(oneTo(6), 0.95);
        assertThat(six.lower()).isEqualTo(1);
        assertThat(six.upper()).isEqualTo(6);
        assertThat(six.coverage()).isCloseTo(1 - 2.0 / 64, within(1e-12));
        // n = 20: x(6) and x(15), P(B <= 5) = 2.07 %
        MedianInterval twenty = MedianInterval.of(oneTo(20), 0.95);
        assertThat(twenty.lower()).isEqualTo(6);
        assertThat(twenty.upper()).isEqualTo(15);
        // a lower level, a narrower interval
        MedianInterval eighty = MedianInterval.of(oneTo(12), 0.80);
        assertThat(eighty.lower()).isGreaterThan(twelve.lower());
        assertThat(eighty.upper()).isLessThan(twelve.upper());
    }

    @Test
    void tooFewValuesAreSaidNotWidened() {
        MedianInterval five = MedianInterval.of(oneTo(5), 0.95);
        assertThat(five.known()).isFalse();
        assertThat(five.coverage()).isZero();
        assertThat(MedianInterval.of(new double[0], 0.95).known()).isFalse();
        assertThat(MedianInterval.of(oneTo(6), 0.95).known()).isTrue();
        assertThatThrownBy(() -> MedianInterval.of(oneTo(12), 1.0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("confidence level must be in (0, 1), got 1.0");
    }

    /**
     * The promise itself: over many samples of a bimodal distribution (three in four around 0, one in four 25 higher,
     * as a machine's slow runs are), the interval holds the true median at least as often as its stated coverage, up to
     * the simulation's own error.
     */
    @Test
    void itHoldsTheTrueMedianAsOftenAsItSays() {
        Random random = new Random(42);
        // the true median of the mixture: the 2/3 quantile of the lower mode's uniform [-1, 1], 1/3
        double trueMedian = 1.0 / 3;
        int trials = 20_000;
        int held = 0;
        double coverage = 0;
        for (int t = 0; t < trials; t++) {
            double[] v = new double[12];
            for (int i = 0; i < v.length; i++) {
                double x = random.nextDouble() * 2 - 1;
                v[i] = random.nextInt(4) == 0 ? x + 25 : x;
            }
            MedianInterval m = MedianInterval.of(v, 0.95);
            coverage = m.coverage();
            if (m.lower() <= trueMedian && trueMedian <= m.upper()) {
                held++;
            }
        }
        // binomial standard error of 20 000 trials at 96 %: 0.14 %; allow four of them
        assertThat((double) held / trials).isGreaterThan(coverage - 0.0056);
    }

    /**
     * Against the binomial summed term by term: for every n from 6 to 40 the interval is x(l) … x(n+1−l) for the largest
     * l with P(B < l) ≤ 2.5 %, and its coverage is 1 − 2·P(B < l).
     */
    @Test
    void theOrderStatisticsAndCoverageMatchTheDirectBinomialSum() {
        for (int n = 6; n <= 40; n++) {
            MedianInterval m = MedianInterval.of(oneTo(n), 0.95);
            int l = (int) m.lower();
            assertThat(m.upper()).as("n=%d", n).isEqualTo(n + 1 - l);
            assertThat(below(n, l)).as("n=%d l=%d", n, l).isLessThanOrEqualTo(0.025);
            if (l + 1 <= n / 2) {
                assertThat(below(n, l + 1)).as("n=%d: l=%d is the largest", n, l).isGreaterThan(0.025);
            }
            assertThat(m.coverage()).as("n=%d", n).isCloseTo(1 - 2 * below(n, l), within(1e-12));
        }
    }

    /** P(B < l), B binomial (n, ½), summed directly. */
    private static double below(int n, int l) {
        double sum = 0;
        for (int k = 0; k < l; k++) {
            sum += binomial(n, k) / Math.pow(2, n);
        }
        return sum;
    }

    private static double binomial(int n, int k) {
        double c = 1;
        for (int i = 0; i < k; i++) {
            c = c * (n - i) / (i + 1);
        }
        return c;
    }
}
