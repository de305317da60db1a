package org.eventspace.scope.filter;

import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * {@link ReduceByFieldFilter}'s result ({@code max:FIELD}, {@code min:FIELD}): per event the one record kept.
 *
 * @param round   the round the records were gathered in.
 * @param extreme whether the largest or the smallest field won, written {@code max} or {@code min}.
 * @param field   the field compared, written {@code value}, {@code rank} or {@code round}.
 * @param events  event name to the record kept, each written as {rank, event, round, value}; sorted by name.
 */
@JsonPropertyOrder({"round", "extreme", "field", "events"})
public record ExtremeResult(long round, ReduceByFieldFilter.Extreme extreme, ReduceByFieldFilter.Field field,
                            SortedMap<String, ScopeRecord> events) implements FilterResult {
    public ExtremeResult {
        events = Collections.unmodifiableSortedMap(new TreeMap<>(events));
    }
}
