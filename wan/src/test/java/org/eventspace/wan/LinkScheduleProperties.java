package org.eventspace.wan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Whatever arrives, in whatever order and size, on a link whose latency and bandwidth change over time. */
class LinkScheduleProperties {
    record Arrival(long atNs, int bytes) {
    }

    @Property(tries = 300)
    void dueTimesNeverDecreaseAndNoMessageLeavesBeforeLatencyPlusSizeOverBandwidth(
            @ForAll("series") LinkSeries latency, @ForAll("series") LinkSeries bandwidth,
            @ForAll("arrivals") List<Arrival> arrivals) {
        LinkDirection link = new LinkDirection("a", "b", latency, bandwidth, 1);
        LinkSchedule schedule = new LinkSchedule(link, 0);
        long previousDue = Long.MIN_VALUE;
        long wireFree = Long.MIN_VALUE;
        for (Arrival a : arrivals) {
            long due = schedule.schedule(a.atNs(), a.bytes());
            assertThat(due).as("due times on one link never decrease").isGreaterThanOrEqualTo(previousDue);
            // The slowest the link can be is its smallest bandwidth, the shortest its smallest latency: a lower bound
            // computed without the schedule's own arithmetic.
            long floor = a.atNs() + Math.round(latency.min() * 1e6) + (long) Math.floor(a.bytes() * 8e3 / bandwidth.max());
            assertThat(due).as("never before latency + size/bandwidth after arrival").isGreaterThanOrEqualTo(floor - 1);
            // With the values in force at its start, exactly: start = max(arrival, wire free).
            long start = Math.max(a.atNs(), wireFree);
            long left = start + link.transmitNs(start, a.bytes());
            assertThat(due).isGreaterThanOrEqualTo(left + link.latencyNs(start));
            wireFree = left;
            previousDue = due;
        }
        assertThat(schedule.messages()).isEqualTo(arrivals.size());
    }

    @Provide
    Arbitrary<LinkSeries> series() {
        Arbitrary<LinkSeries> constant = Arbitraries.doubles().between(0.001, 100).ofScale(3).map(LinkSeries::constant);
        Arbitrary<LinkSeries> steps = Arbitraries.doubles().between(0.001, 100).ofScale(3).list().ofMinSize(1).ofMaxSize(20)
                .map(values -> {
                    long[] times = new long[values.size()];
                    double[] v = new double[values.size()];
                    for (int i = 0; i < v.length; i++) {
                        times[i] = i * 3_000_000L;
                        v[i] = values.get(i);
                    }
                    return LinkSeries.of(times, v);
                });
        return Arbitraries.oneOf(constant, steps);
    }

    @Provide
    Arbitrary<List<Arrival>> arrivals() {
        // Arrivals mostly increase but may come slightly out of order (two threads stamp, then queue, in either order).
        Arbitrary<Arrival> one = Combinators.combine(Arbitraries.longs().between(0, 60_000_000L),
                Arbitraries.integers().between(0, 70_000)).as(Arrival::new);
        return one.list().ofMinSize(1).ofMaxSize(60);
    }
}
