package org.eventspace.trace;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One parameter of a merged event across ranks: an ordered list of (value, ranklist) pairs, ScalaTrace's encoding of
 * the "generally rare mismatches" of end-points and sizes (Ratn et al. §5.5). When every rank agrees it is one pair.
 * Ordered by value, so the encoding is the same whatever the merge order. Immutable.
 */
public final class Params {
    /** One value and the ranks that passed it. */
    public record Entry(long value, RankList ranks) {
    }

    private final List<Entry> entries;

    private Params(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    public static Params single(long value, RankList ranks) {
        return new Params(List.of(new Entry(value, ranks)));
    }

    public static Params of(List<Entry> entries) {
        List<Entry> sorted = new ArrayList<>(entries);
        sorted.sort((a, b) -> Long.compare(a.value, b.value));
        return new Params(sorted);
    }

    public List<Entry> entries() {
        return entries;
    }

    public boolean uniform() {
        return entries.size() == 1;
    }

    /** The value {@code rank} passed; {@code Long.MIN_VALUE} if the rank is in no entry. */
    public long valueFor(int rank) {
        for (Entry e : entries) {
            if (e.ranks.contains(rank)) {
                return e.value;
            }
        }
        return Long.MIN_VALUE;
    }

    public Params union(Params other) {
        List<Entry> out = new ArrayList<>(entries);
        for (Entry e : other.entries) {
            boolean found = false;
            for (int i = 0; i < out.size(); i++) {
                if (out.get(i).value == e.value) {
                    out.set(i, new Entry(e.value, out.get(i).ranks.union(e.ranks)));
                    found = true;
                    break;
                }
            }
            if (!found) {
                out.add(e);
            }
        }
        return of(out);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Params other && entries.equals(other.entries);
    }

    @Override
    public int hashCode() {
        return entries.hashCode();
    }

    @Override
    public String toString() {
        if (entries.size() == 1) {
            return Long.toString(entries.get(0).value);
        }
        List<String> parts = new ArrayList<>();
        for (Entry e : entries) {
            parts.add(e.value + "@" + e.ranks);
        }
        return String.join(" ", Collections.unmodifiableList(parts));
    }
}
