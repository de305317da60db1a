package org.eventspace.scope.filter;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

/**
 * The bar for ToM's 3-phase histogram (§4.2): on random data and random tree shapes, pipelined over 3–5
 * rounds and flushed, every round's distributed histogram equals the one computed centrally over all its records
 * with the same bin rule ({@link HistFilter#bin}), bin for bin.
 */
class HistFilterProperties {
    @Provide
    Arbitrary<Integer> bins() {
        // Mostly few bins, where ties and the max-in-last-bin rule bite; the largest count is a unit test.
        return Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.integers().between(1, 16)),
                Tuple.of(1, Arbitraries.integers().between(17, 1000)));
    }

    @Property(tries = 250)
    void distributedPipelinedHistogramEqualsTheCentralOne(@ForAll long seed,
                                                          @ForAll @IntRange(min = 1, max = 40) int ranks,
                                                          @ForAll @IntRange(min = 1, max = 12) int hosts,
                                                          @ForAll @IntRange(min = 3, max = 5) int rounds,
                                                          @ForAll("bins") int bins) {
        Random random = new Random(seed);
        Workload workload = Workload.random(random, ranks, hosts, rounds);
        ScopeTreeSimulator tree = ScopeTreeSimulator.random(hosts, new FilterSpec.Hist(bins), random);

        for (int r = 0; r <= rounds; r++) { // round `rounds` has no records: it flushes round rounds−1
            int round = r;
            FilterResult result = tree.round(round, host -> workload.recordsOf(round, host));

            if (r == 0) {
                assertThat(result.isEmpty()).as("pipeline filling").isTrue();
            } else {
                assertThat(result).as("round %d of %s", r - 1, workload)
                        .isEqualTo(central(workload.rounds().get(r - 1), bins, r - 1));
            }
        }
    }

    /** The histograms of one round computed over all its records at once, in the shape of the filter's result. */
    static HistResult central(List<ScopeRecord> records, int bins, long round) {
        // The per-event histograms the class filter's property checks too, each tagged with its round.
        TreeMap<String, HistResult.Histogram> events = new TreeMap<>();
        ClassFilterProperties.centralHistograms(records, bins).forEach((event, h) ->
                events.put(event, new HistResult.Histogram(round, h.min(), h.max(), h.count(), h.bins())));
        return new HistResult(round, bins, events);
    }
}
