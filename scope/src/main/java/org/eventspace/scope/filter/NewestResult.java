package org.eventspace.scope.filter;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonValue;

import org.eventspace.scope.ResultBoard;

/**
 * {@link NewestFilter}'s result: every host's newest published set as of round {@code round}. Its JSON (the report's
 * {@code scope.result}) lists per host the set's version and record count, not the records: the monitors that published
 * them turn them back into their own report.
 *
 * @param round the round of the pull.
 * @param sets  per host, its newest set (header first).
 */
public record NewestResult(long round, Map<Integer, ResultBoard.Published> sets) implements FilterResult {
    public NewestResult {
        sets = new TreeMap<>(sets);
    }

    /** Every set's records after its header, by host. */
    @JsonIgnore
    public Map<Integer, List<ScopeRecord>> records() {
        Map<Integer, List<ScopeRecord>> out = new TreeMap<>();
        sets.forEach((host, set) -> out.put(host, set.records().subList(Math.min(1, set.records().size()), set.records().size())));
        return out;
    }

    @JsonValue
    public Map<String, Object> json() {
        Map<String, Object> hosts = new LinkedHashMap<>();
        sets.forEach((host, set) -> hosts.put(Integer.toString(host),
                Map.of("version", set.version(), "records", Math.max(0, set.records().size() - 1))));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("round", round);
        out.put("hosts", hosts);
        return out;
    }
}
