package org.eventspace.scope.filter;

import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * {@link HistFilter}'s result: ToM's 3-phase histogram (§4.2) of an earlier round, per event.
 *
 * @param round  the round the histograms are of (one before the pull's: the pipeline's depth).
 * @param bins   bins per histogram.
 * @param events event name to its histogram; sorted by name.
 */
@JsonPropertyOrder({"round", "bins", "events"})
public record HistResult(long round, int bins, SortedMap<String, Histogram> events) implements FilterResult {
    public HistResult {
        events = Collections.unmodifiableSortedMap(new TreeMap<>(events));
    }

    /**
     * One event's histogram: {@code bins} equal-width bins over [min, max] (the round's global bounds, Phase A),
     * a value's bin by {@link HistFilter#bin}.
     *
     * @param round the round binned.
     * @param min   the lower bound, the smallest value of the round.
     * @param max   the upper bound, the largest value.
     * @param count the values binned, the sum of {@code bins}.
     * @param bins  the count per bin, lowest first.
     */
    @JsonPropertyOrder({"round", "min", "max", "count", "bins"})
    public record Histogram(long round, double min, double max, long count, List<Long> bins) {
        public Histogram {
            bins = List.copyOf(bins);
        }
    }
}
