package org.eventspace.scope.filter;

import java.util.Map;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * The front-end's reading of a root packet ({@link ScopeFilter#result}): one immutable record per filter, which
 * Jackson writes as the {@code result} object of a run report's {@code scope} block. Every result names the round
 * it describes — the pull's own for a one-phase filter, an earlier one for a pipelined filter (ToM's 3-phase
 * histogram, §4.2, gives round r−1's histogram in round r's traversal) — and a pipelined filter that has no
 * complete round yet answers {@link #none()}.
 *
 * <p>The JSON of each record (field names, nesting, order) is the documented output of its filter; renaming a
 * component changes the report.
 */
public sealed interface FilterResult
        permits FilterResult.None, ConcatResult, ExtremeResult, StatsResult, HistResult, ClassResult, NewestResult,
        TuplesResult {
    /** The round of the records the result describes; {@link HistFilter#NO_ROUND} when it is {@link #isEmpty()}. */
    long round();

    /** Whether the result describes no round yet (a pipelined filter's first pull). */
    @JsonIgnore
    default boolean isEmpty() {
        return false;
    }

    /** The result of a pull that completed no round: written as {@code {}}. */
    static FilterResult none() {
        return None.INSTANCE;
    }

    /** No complete round yet; its JSON is the empty object. */
    record None() implements FilterResult {
        static final None INSTANCE = new None();

        @Override
        public long round() {
            return HistFilter.NO_ROUND;
        }

        @Override
        public boolean isEmpty() {
            return true;
        }

        @JsonValue
        public Map<String, Object> json() {
            return Map.of();
        }
    }
}
