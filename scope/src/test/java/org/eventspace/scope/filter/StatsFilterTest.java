package org.eventspace.scope.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.eventspace.scope.filter.HistFilterTest.rec;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.eventspace.base.stats.StatisticsSummary;
import org.junit.jupiter.api.Test;

class StatsFilterTest {
    @Test
    void combinesChildrenIntoOneSetOfMeasuresPerEvent() {
        StatsFilter filter = new StatsFilter();
        Packet command = filter.command(4, null);
        Packet root = filter.up(command, List.of(
                filter.leaf(command, List.of(rec(0, "x", 4, 1), rec(1, "x", 4, 3), rec(1, "y", 4, -2))),
                filter.leaf(command, List.of()),
                filter.leaf(command, List.of(rec(2, "x", 4, 5)))));

        assertThat(root.records()).extracting(ScopeRecord::event).containsExactly("x", "y");
        assertThat(root.records()).extracting(ScopeRecord::rank).containsOnly(-1);
        assertThat(root.longs()).containsExactly(3, 1);
        StatsResult result = filter.result(root);
        assertThat(result.round()).isEqualTo(4L);
        assertThat(result.isEmpty()).isFalse();
        StatisticsSummary x = result.events().get("x");
        assertThat(x.count()).isEqualTo(3L);
        assertThat(x.mean()).isEqualTo(3.0);
        assertThat(x.min()).isEqualTo(1.0);
        assertThat(x.max()).isEqualTo(5.0);
        assertThat(x.sd()).isCloseTo(Math.sqrt(8.0 / 3), within(1e-15));
        assertThat(result.events().get("y")).isEqualTo(new StatisticsSummary(1, -2.0, 0.0, -2.0, -2.0, null));
    }

    /**
     * Why the partial aggregate is (n, mean, M2) and not (n, Σx, Σx²): latencies around 1e9 ns with a spread of a
     * few ns. Σx²/n − mean² cancels every significant digit there; Welford's update and Chan's merge keep them.
     */
    @Test
    void standardDeviationStaysAccurateForALargeMeanAndASmallSpread() {
        List<ScopeRecord> records = new ArrayList<>();
        int n = 1000;
        for (int i = 0; i < n; i++) {
            records.add(rec(i, "MPI_Barrier()", 0, 1e9 + i % 10));
        }
        ScopeTreeSimulator tree = ScopeTreeSimulator.kary(100, 3, new FilterSpec.Stats());

        FilterResult result = tree.round(0, host -> records.subList(host * 10, host * 10 + 10));

        StatisticsSummary barrier = StatsFilterProperties.events(result).get("MPI_Barrier()");
        assertThat(barrier.mean()).isCloseTo(1e9 + 4.5, within(1e-6));
        assertThat(barrier.sd()).isCloseTo(Math.sqrt(8.25), within(1e-6)); // sd of 0..9
        double sum = 0;
        double sumOfSquares = 0;
        for (ScopeRecord r : records) {
            sum += r.value();
            sumOfSquares += r.value() * r.value();
        }
        double naive = Math.sqrt(Math.max(0, sumOfSquares / n - (sum / n) * (sum / n)));
        assertThat(Math.abs(naive - Math.sqrt(8.25))).as("the naive form is off").isGreaterThan(0.1);
    }

    /**
     * ToM §4.1, Figure 5: the StatsFilter's view of the FLASH Sod run's MPI_Allreduce() time per iteration, which
     * "uncovered an anomaly that caused the Allreduce performance to drop … during a single iteration at Step 100".
     * Here 1024 ranks on 128 hosts under a fan-out-8 tree, steps 95–105.
     */
    @Test
    void tomFigure5AllreduceStatisticsShowTheAnomalyAtStep100() {
        ScopeTreeSimulator tree = ScopeTreeSimulator.kary(128, 8, FilterSpec.parse("stats"));
        Map<Integer, StatisticsSummary> byStep = new java.util.TreeMap<>();
        for (int step = 95; step <= 105; step++) {
            List<ScopeRecord> records = new ArrayList<>();
            for (int r = 0; r < 1024; r++) {
                records.add(rec(r, "MPI_Allreduce()", step, 40 + (r * 7919 % 20) + (step == 100 ? 900 : 0)));
            }
            FilterResult result = tree.round(step, host -> records.subList(host * 8, host * 8 + 8));
            StatsFilterProperties.assertStatistics(StatsFilterProperties.events(result), records);
            byStep.put(step, StatsFilterProperties.events(result).get("MPI_Allreduce()"));
        }

        for (int step : byStep.keySet()) {
            double mean = byStep.get(step).mean();
            if (step == 100) {
                assertThat(mean).isGreaterThan(900);
            } else {
                assertThat(mean).isLessThan(60);
            }
            assertThat(byStep.get(step).count()).isEqualTo(1024L);
        }
    }

    @Test
    void mixedUpPacketsFailNamingTheChild() {
        StatsFilter filter = new StatsFilter();
        Packet c1 = filter.command(1, null);
        Packet fromRound0 = filter.leaf(filter.command(0, null), List.of(rec(0, "x", 0, 1)));
        Packet truncated = new Packet(StatsFilter.STATISTICS, 1, new long[] {1}, new double[3],
                List.of(NameRecords.of("x", 1)));

        assertThatThrownBy(() -> filter.up(c1, List.of(fromRound0)))
                .hasMessage("stats: child 0 sent tag 102 for round 0, expected tag 102 for round 1");
        assertThatThrownBy(() -> filter.up(c1, List.of(filter.leaf(c1, List.of()), truncated)))
                .hasMessage("stats: malformed packet from child 1: expected 1 counts and 4 doubles for 1 events,"
                        + " found 1 counts and 3 doubles");
    }
}
