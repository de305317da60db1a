package org.eventspace.scope.filter;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * {@link TuplesFilter}'s result: every raw tuple record of one round, for a front-end analysis to consume round by
 * round. Its JSON (the report's {@code scope.result}) gives the round and the number of tuples, not the tuples.
 *
 * @param round   the round the tuples were gathered in.
 * @param records two records per tuple ({@link TuplesFilter}), in leaf and child order.
 */
public record TuplesResult(long round, @JsonIgnore List<ScopeRecord> records) implements FilterResult {
    public TuplesResult {
        records = List.copyOf(records);
    }

    @JsonValue
    public Map<String, Object> json() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("round", round);
        out.put("tuples", records.size() / 2);
        return out;
    }
}
