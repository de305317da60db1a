package org.eventspace.scope.filter;

import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import org.eventspace.base.stats.StatisticsSummary;

/**
 * {@link StatsFilter}'s result (ToM §4.1): per event, across all ranks, one round's count, mean, population
 * standard deviation, minimum and maximum.
 *
 * @param round  the round the records were gathered in.
 * @param events event name to its statistics, written {count, mean, sd, min, max}; sorted by name.
 */
@JsonPropertyOrder({"round", "events"})
public record StatsResult(long round, SortedMap<String, StatisticsSummary> events) implements FilterResult {
    public StatsResult {
        events = Collections.unmodifiableSortedMap(new TreeMap<>(events));
    }
}
