package org.eventspace.scope.filter;

import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import org.eventspace.base.stats.StatisticsSummary;

/**
 * {@link ClassFilter}'s result (ToM §4.3): an earlier round's functional classes, each with per-event statistics
 * and histograms, and the reduction factor of the packet that carried them.
 *
 * @param round           the round the classes describe (one before the pull's).
 * @param scheme          the classification scheme as given: {@code all}, {@code comm} or a regular expression.
 * @param bins            bins per (class, event) histogram.
 * @param classes         how many classes.
 * @param rawBytes        what a concatenating gather would have moved to the root for the round.
 * @param reducedBytes    the root packet that carried the round's classes and histograms.
 * @param reductionFactor {@code rawBytes / reducedBytes} (ToM §4.3).
 * @param classList       the classes, by id (signed order).
 */
@JsonPropertyOrder({"round", "scheme", "bins", "classes", "raw_bytes", "reduced_bytes", "reduction_factor",
        "class_list"})
public record ClassResult(long round, String scheme, int bins, int classes,
                          @JsonProperty("raw_bytes") long rawBytes,
                          @JsonProperty("reduced_bytes") long reducedBytes,
                          @JsonProperty("reduction_factor") double reductionFactor,
                          @JsonProperty("class_list") List<FunctionalClass> classList) implements FilterResult {
    public ClassResult {
        classList = List.copyOf(classList);
    }

    /**
     * One functional class.
     *
     * @param id         the class id, 16 hex digits ({@link ClassFilter#classId}).
     * @param rankCount  ranks in the class.
     * @param members    the ranks as strided runs in text: {@code 3}, {@code 0-7}, {@code 0-126/2}.
     * @param events     event name to its statistics across the class's ranks; sorted by name.
     * @param histograms event name to its histogram over [min, max] of its statistics; sorted by name.
     */
    @JsonPropertyOrder({"id", "rank_count", "members", "events", "histograms"})
    public record FunctionalClass(String id, @JsonProperty("rank_count") int rankCount, List<String> members,
                                  SortedMap<String, StatisticsSummary> events,
                                  SortedMap<String, Histogram> histograms) {
        public FunctionalClass {
            members = List.copyOf(members);
            events = Collections.unmodifiableSortedMap(new TreeMap<>(events));
            histograms = Collections.unmodifiableSortedMap(new TreeMap<>(histograms));
        }
    }

    /**
     * One (class, event) histogram: {@code bins} equal-width bins over the event's [min, max] in the class.
     *
     * @param min   the lower bound, the event's minimum in the class.
     * @param max   the upper bound, its maximum.
     * @param count values binned, the sum of {@code bins}.
     * @param bins  the count per bin, lowest first.
     */
    @JsonPropertyOrder({"min", "max", "count", "bins"})
    public record Histogram(double min, double max, long count, List<Long> bins) {
        public Histogram {
            bins = List.copyOf(bins);
        }
    }
}
