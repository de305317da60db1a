package org.eventspace.scope.filter;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * {@link TuplesFilter}'s result: every raw tuple of one round, for a front-end analysis to consume round by round, as
 * the packet brought them: the collectors' names and {@link TuplesFilter#WORDS_PER_TUPLE} longs per tuple (read them
 * with {@link #collector}, {@link #op}, {@link #failed}, {@link #sequence}, {@link #downNs}, {@link #upNs}). Its JSON
 * (the report's {@code scope.result}) gives the round and the number of tuples, not the tuples. Not copied: the array
 * is the packet's, read it, do not change it.
 *
 * @param round  the round the tuples were gathered in.
 * @param names  the collectors' names the tuples refer to by index.
 * @param tuples the tuples, packed as {@link TuplesFilter} describes, in leaf and child order.
 */
public record TuplesResult(long round, @JsonIgnore List<String> names, @JsonIgnore long[] tuples) implements FilterResult {
    public TuplesResult {
        names = List.copyOf(names);
        if (tuples.length % TuplesFilter.WORDS_PER_TUPLE != 0) {
            throw new IllegalArgumentException("tuples must be a multiple of " + TuplesFilter.WORDS_PER_TUPLE + " longs, got "
                    + tuples.length);
        }
    }

    /** Tuples in the round. */
    public int size() {
        return tuples.length / TuplesFilter.WORDS_PER_TUPLE;
    }

    /** Index into {@link #names} of tuple {@code i}'s collector. */
    public int collector(int i) {
        return (int) (tuples[i * TuplesFilter.WORDS_PER_TUPLE] >>> 32);
    }

    /** Tuple {@code i}'s operation type. */
    public int op(int i) {
        return (int) tuples[i * TuplesFilter.WORDS_PER_TUPLE] & (TuplesFilter.FAILED - 1);
    }

    /** Whether tuple {@code i}'s call failed. */
    public boolean failed(int i) {
        return ((int) tuples[i * TuplesFilter.WORDS_PER_TUPLE] & TuplesFilter.FAILED) != 0;
    }

    public long sequence(int i) {
        return tuples[i * TuplesFilter.WORDS_PER_TUPLE + 1];
    }

    public long downNs(int i) {
        return tuples[i * TuplesFilter.WORDS_PER_TUPLE + 2];
    }

    public long upNs(int i) {
        return tuples[i * TuplesFilter.WORDS_PER_TUPLE + 3];
    }

    @JsonValue
    public Map<String, Object> json() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("round", round);
        out.put("tuples", size());
        return out;
    }
}
