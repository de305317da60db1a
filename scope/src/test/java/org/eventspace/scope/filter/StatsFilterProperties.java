package org.eventspace.scope.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.eventspace.base.stats.StatisticsSummary;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * ToM's StatsFilter (§4.1) on random data and random trees equals the statistics computed centrally, two-pass,
 * over all records of each round: count, minimum and maximum exactly, mean and standard deviation to rounding.
 */
class StatsFilterProperties {
    @Property(tries = 250)
    void distributedStatisticsEqualTheCentralOnes(@ForAll long seed,
                                                  @ForAll @IntRange(min = 1, max = 40) int ranks,
                                                  @ForAll @IntRange(min = 1, max = 12) int hosts,
                                                  @ForAll @IntRange(min = 1, max = 4) int rounds) {
        Random random = new Random(seed);
        Workload workload = Workload.random(random, ranks, hosts, rounds);
        ScopeTreeSimulator tree = ScopeTreeSimulator.random(hosts, new FilterSpec.Stats(), random);

        for (int r = 0; r < rounds; r++) {
            int round = r;
            FilterResult result = tree.round(round, host -> workload.recordsOf(round, host));

            assertThat(result.round()).isEqualTo((long) r);
            assertStatistics(events(result), workload.rounds().get(r));
        }
    }

    static Map<String, StatisticsSummary> events(FilterResult result) {
        assertThat(result).isInstanceOf(StatsResult.class);
        return ((StatsResult) result).events();
    }

    /** Asserts that {@code byEvent} holds the central statistics of {@code records}, per event name. */
    static void assertStatistics(Map<String, StatisticsSummary> byEvent, List<ScopeRecord> records) {
        TreeMap<String, List<Double>> values = new TreeMap<>();
        for (ScopeRecord record : records) {
            values.computeIfAbsent(record.event(), e -> new ArrayList<>()).add(record.value());
        }
        assertThat(byEvent.keySet()).containsExactlyElementsOf(values.keySet());
        values.forEach((event, v) -> {
            double[] x = v.stream().mapToDouble(Double::doubleValue).toArray();
            double mean = 0;
            double largest = 0;
            for (double d : x) {
                mean += d;
                largest = Math.max(largest, Math.abs(d));
            }
            mean /= x.length;
            double squares = 0;
            for (double d : x) {
                squares += (d - mean) * (d - mean);
            }
            double sd = Math.sqrt(squares / x.length);
            double tolerance = 1e-9 * (1 + largest);
            StatisticsSummary s = byEvent.get(event);
            assertThat(s.count()).as(event).isEqualTo((long) x.length);
            assertThat(s.min()).as(event).isEqualTo(java.util.Arrays.stream(x).min().orElseThrow());
            assertThat(s.max()).as(event).isEqualTo(java.util.Arrays.stream(x).max().orElseThrow());
            assertThat(s.mean()).as(event).isCloseTo(mean, within(tolerance));
            assertThat(s.sd()).as(event).isCloseTo(sd, within(tolerance));
        });
    }
}
