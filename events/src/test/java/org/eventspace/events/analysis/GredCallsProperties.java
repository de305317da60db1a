package org.eventspace.events.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

import org.eventspace.base.stats.Median;
import org.eventspace.base.stats.RunningStatistics;
import org.eventspace.base.stats.StatisticsSummary;

/**
 * {@link GredCalls} keeps each call's values in rings and folds them into its statistics in blocks; whatever the number
 * of calls (a fold just done, a ring part-filled or wrapped) and the window, every summary equals the statistics of the
 * metric's values computed by its definition one call at a time, and the window median the median of the last W.
 */
class GredCallsProperties {
    @Property(tries = 200)
    void everySummaryEqualsTheMetricsByTheirDefinition(@ForAll @IntRange(min = 1, max = 5) int ports,
                                                       @ForAll @IntRange(min = 1, max = 450) int n,
                                                       @ForAll @IntRange(min = 0, max = 2) int windowChoice,
                                                       @ForAll @LongRange(min = 0, max = 1_000_000) long seed) {
        int window = new int[] {0, 7, 100}[windowChoice];
        SplittableRandom random = new SplittableRandom(seed);
        GredCalls calls = new GredCalls(ports, window);
        Definition expected = new Definition(ports);
        long now = 1_000_000_000L;
        for (int i = 0; i < n; i++) {
            long[] t1 = new long[ports];
            long[] t4 = new long[ports];
            for (int p = 0; p < ports; p++) {
                // Now and then a preempted contributor: a spread of six orders of magnitude in one metric.
                t1[p] = now + random.nextLong(random.nextInt(50) == 0 ? 5_000_000 : 2_000);
            }
            long t1l = Arrays.stream(t1).max().orElseThrow();
            long t2 = t1l + 50 + random.nextLong(500);
            long t3 = t2 + 1_000 + random.nextLong(9_000);
            for (int p = 0; p < ports; p++) {
                t4[p] = t3 + 20 + random.nextLong(3_000);
            }
            expected.add(t1, t4, t2, t3);
            calls.add(t1.clone(), t4.clone(), t2, t3);
            now = Arrays.stream(t4).max().orElseThrow() + random.nextLong(10_000);
        }
        assertThat(calls.calls()).isEqualTo(n);
        same(calls.down(), expected.down, window, "down");
        same(calls.up(), expected.up, window, "up");
        same(calls.below(), expected.below, window, "below");
        same(calls.arrival(), expected.arrival, window, "arrival");
        same(calls.broadcast(), expected.broadcast, window, "broadcast");
        for (int p = 0; p < ports; p++) {
            for (int m = 0; m < 5; m++) {
                same(calls.port(p, m), expected.port[p][m], window, "port " + p + " metric " + m);
            }
            same(calls.arrivalWaitByOrder(p), expected.arrivalByOrder[p], 0, "arrival wait of the " + (p + 1) + "-th");
            same(calls.departureWaitByOrder(p), expected.departureByOrder[p], 0, "departure wait of the " + (p + 1) + "-th");
        }
        GredCalls copy = calls.copy();
        same(copy.down(), expected.down, window, "a copy's down");
        same(copy.port(ports - 1, GredCalls.TOTAL), expected.port[ports - 1][GredCalls.TOTAL], window, "a copy's total");
    }

    private static void same(StatisticsSummary got, List<Double> values, int window, String what) {
        RunningStatistics s = new RunningStatistics();
        values.forEach(s::add);
        StatisticsSummary want = s.summary();
        assertThat(got.count()).as(what + " count").isEqualTo(want.count());
        assertThat(got.min()).as(what + " min").isEqualTo(want.min());
        assertThat(got.max()).as(what + " max").isEqualTo(want.max());
        double scale = Math.max(1, Math.max(Math.abs(want.min()), Math.abs(want.max())));
        assertThat(got.mean()).as(what + " mean").isCloseTo(want.mean(), within(1e-9 * scale));
        assertThat(got.sd()).as(what + " sd").isCloseTo(want.sd(), within(1e-6 * Math.max(1, want.sd())));
        if (window > 0) {
            List<Double> last = values.subList(Math.max(0, values.size() - window), values.size());
            double median = Median.of(last.stream().mapToDouble(Double::doubleValue).toArray());
            assertThat(got.windowMedian()).as(what + " window median").isEqualTo(median);
        }
    }

    /** The metrics of dissertation §7.1, one call at a time, as lists of values. */
    private static final class Definition {
        final List<Double> down = new ArrayList<>();
        final List<Double> up = new ArrayList<>();
        final List<Double> below = new ArrayList<>();
        final List<Double> arrival = new ArrayList<>();
        final List<Double> broadcast = new ArrayList<>();
        final List<Double>[][] port;
        final List<Double>[] arrivalByOrder;
        final List<Double>[] departureByOrder;
        private final int ports;

        @SuppressWarnings("unchecked")
        Definition(int ports) {
            this.ports = ports;
            port = new List[ports][5];
            arrivalByOrder = new List[ports];
            departureByOrder = new List[ports];
            for (int p = 0; p < ports; p++) {
                for (int m = 0; m < 5; m++) {
                    port[p][m] = new ArrayList<>();
                }
                arrivalByOrder[p] = new ArrayList<>();
                departureByOrder[p] = new ArrayList<>();
            }
        }

        void add(long[] t1, long[] t4, long t2, long t3) {
            long t1l = Arrays.stream(t1).max().orElseThrow();
            long t1first = Arrays.stream(t1).min().orElseThrow();
            long t4f = Arrays.stream(t4).min().orElseThrow();
            long t4last = Arrays.stream(t4).max().orElseThrow();
            down.add((double) (t2 - t1l));
            up.add((double) (t4f - t3));
            below.add((double) (t3 - t2));
            arrival.add((double) (t1l - t1first));
            broadcast.add((double) (t4last - t3));
            for (int p = 0; p < ports; p++) {
                port[p][GredCalls.DOWN].add((double) (t2 - t1[p]));
                port[p][GredCalls.UP].add((double) (t4[p] - t3));
                port[p][GredCalls.TOTAL].add((double) ((t4[p] - t1[p]) - (t3 - t2)));
                port[p][GredCalls.ARRIVAL_WAIT].add((double) (t1l - t1[p]));
                port[p][GredCalls.DEPARTURE_WAIT].add((double) (t4[p] - t4f));
            }
            long[] arrivals = t1.clone();
            long[] departures = t4.clone();
            Arrays.sort(arrivals);
            Arrays.sort(departures);
            for (int k = 0; k < ports; k++) {
                arrivalByOrder[k].add((double) (t1l - arrivals[k]));
                departureByOrder[k].add((double) (departures[k] - t4f));
            }
        }
    }
}
