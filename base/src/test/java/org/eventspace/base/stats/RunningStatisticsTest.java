package org.eventspace.base.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.Test;

class RunningStatisticsTest {
    @Test
    void measuresOfAKnownSample() {
        RunningStatistics s = new RunningStatistics();
        for (double x : new double[] {2, 4, 4, 4, 5, 5, 7, 9}) {
            s.add(x);
        }
        assertThat(s.count()).isEqualTo(8);
        assertThat(s.mean()).isEqualTo(5.0);
        assertThat(s.variance()).isEqualTo(4.0);          // population variance of the classic example
        assertThat(s.standardDeviation()).isEqualTo(2.0);
        assertThat(s.min()).isEqualTo(2.0);
        assertThat(s.max()).isEqualTo(9.0);
        assertThat(s.m2()).isEqualTo(32.0);
    }

    @Test
    void anEmptyAccumulatorIsNaNAndMergingItChangesNothing() {
        RunningStatistics empty = new RunningStatistics();
        assertThat(empty.count()).isZero();
        assertThat(empty.mean()).isNaN();
        assertThat(empty.standardDeviation()).isNaN();
        assertThat(empty.min()).isNaN();
        assertThat(empty.max()).isNaN();

        RunningStatistics s = new RunningStatistics();
        s.add(3);
        s.add(5);
        s.merge(empty);
        assertThat(s.summary()).isEqualTo(new StatisticsSummary(2, 4.0, 1.0, 3.0, 5.0, null));
        empty.merge(s);
        assertThat(empty.summary()).isEqualTo(s.summary());
    }

    /**
     * The precision case of the scope's statistics: a million values of 1e6 ± 1. The sum-of-squares formula
     * Σx²/n − mean² is off by far more than the variance itself; Welford's update keeps it to rounding.
     */
    @Test
    void aSmallSpreadBesideALargeMeanKeepsItsDigits() {
        RunningStatistics s = new RunningStatistics();
        double sum = 0;
        double sumOfSquares = 0;
        int n = 1_000_000;
        for (int i = 0; i < n; i++) {
            double x = 1e6 + (i % 2 == 0 ? 1 : -1);
            s.add(x);
            sum += x;
            sumOfSquares += x * x;
        }
        assertThat(s.mean()).isEqualTo(1e6);
        assertThat(s.standardDeviation()).isCloseTo(1.0, within(1e-9));
        double naiveVariance = sumOfSquares / n - (sum / n) * (sum / n);
        assertThat(Math.abs(naiveVariance - 1.0)).as("the naive variance's error").isGreaterThan(1e-3);
    }

    @Test
    void resetForgetsEverything() {
        RunningStatistics s = new RunningStatistics();
        s.add(-7);
        s.reset();
        assertThat(s.count()).isZero();
        s.add(2);
        assertThat(s.summary()).isEqualTo(new StatisticsSummary(1, 2.0, 0.0, 2.0, 2.0, null));
    }

    @Test
    void aNegativeCountIsRefusedWithTheValue() {
        assertThatThrownBy(() -> new RunningStatistics().merge(-2, 0, 0, 0, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("count must be >= 0, count=-2");
    }

    @Test
    void addAllocatesNothing() {
        RunningStatistics s = new RunningStatistics();
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 100_000; i++) {
            s.add(i);   // warm up: the JIT compiles add before it is measured
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 1_000_000; i++) {
            s.add(i * 0.5);
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(allocated).as("bytes allocated by a million adds").isLessThan(1024);
    }

    /** The stats filter's per-event object: count, mean, sd, min, max in this order, no median until attached. */
    @Test
    void summaryJsonIsTheStatsFiltersShapeAndAWindowMedianAppearsOnlyWhenAttached() throws Exception {
        RunningStatistics s = new RunningStatistics();
        List<Double> values = new ArrayList<>(List.of(1.0, 3.0, 5.0));
        values.forEach(s::add);
        ObjectMapper json = new ObjectMapper();
        assertThat(json.writeValueAsString(s.summary()))
                .isEqualTo("{\"count\":3,\"mean\":3.0,\"sd\":1.632993161855452,\"min\":1.0,\"max\":5.0}");
        assertThat(json.writeValueAsString(s.summary().withWindowMedian(3.0)))
                .isEqualTo("{\"count\":3,\"mean\":3.0,\"sd\":1.632993161855452,\"min\":1.0,\"max\":5.0,"
                        + "\"window_median\":3.0}");
    }
}
