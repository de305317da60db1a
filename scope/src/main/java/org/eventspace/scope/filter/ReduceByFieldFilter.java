package org.eventspace.scope.filter;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * {@code max:FIELD} / {@code min:FIELD}: per event, the one record with the largest (smallest) field, FIELD one of
 * value, rank, round. EventSpace's load-balance scope is {@code max:value} over down timestamps: per gred only
 * the last arrival matters (EventSpace §4, load-balance monitor), so every inner node can drop the rest and what
 * travels is one record per gred, whatever the rank count. Stateless; an instance may be shared by threads.
 *
 * <p>Ties keep the earlier record: earlier in the leaf's production order, then in child order, so the answer is
 * the same whichever way the tree is shaped. Values compare with {@link Double#compare} (−0.0 below 0.0, NaN
 * above everything), a total order, so a NaN cannot make the result depend on arrival order.
 *
 * <p>Packets up: tag {@link #KEPT}, the command's round, the kept records sorted by event name, no numbers.
 * Result: {@link ExtremeResult}, {@code round}, {@code extreme}, {@code field} and {@code events}: event → {rank,
 * event, round, value}.
 */
public final class ReduceByFieldFilter implements ScopeFilter {
    /** Tag of the packets this filter sends up. */
    public static final int KEPT = Packet.FIRST_FILTER_TAG + 1;

    /** Whether the largest or the smallest field wins. */
    public enum Extreme {
        MAX, MIN;

        /** The spelling on the command line, and in the result's JSON. */
        @JsonValue
        public String text() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The record field compared. */
    public enum Field {
        VALUE, RANK, ROUND;

        /** The spelling on the command line, and in the result's JSON. */
        @JsonValue
        public String text() {
            return name().toLowerCase(Locale.ROOT);
        }

        int compare(ScopeRecord a, ScopeRecord b) {
            return switch (this) {
                case VALUE -> Double.compare(a.value(), b.value());
                case RANK -> Integer.compare(a.rank(), b.rank());
                case ROUND -> Long.compare(a.round(), b.round());
            };
        }
    }

    private final Extreme extreme;
    private final Field field;
    private final String name;

    public ReduceByFieldFilter(Extreme extreme, Field field) {
        this.extreme = extreme;
        this.field = field;
        this.name = extreme.text() + ":" + field.text();
    }

    public Extreme extreme() {
        return extreme;
    }

    public Field field() {
        return field;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Packet leaf(Packet command, List<ScopeRecord> records) {
        PacketChecks.requirePull(name, command);
        TreeMap<String, ScopeRecord> kept = new TreeMap<>();
        for (ScopeRecord record : records) {
            keep(kept, record);
        }
        return Packet.ofRecords(KEPT, command.round(), new ArrayList<>(kept.values()));
    }

    @Override
    public Packet up(Packet command, List<Packet> fromChildren) {
        PacketChecks.requirePull(name, command);
        TreeMap<String, ScopeRecord> kept = new TreeMap<>();
        for (int i = 0; i < fromChildren.size(); i++) {
            Packet child = fromChildren.get(i);
            PacketChecks.requireChild(name, command, i, child, KEPT);
            for (ScopeRecord record : child.records()) {
                keep(kept, record);
            }
        }
        return Packet.ofRecords(KEPT, command.round(), new ArrayList<>(kept.values()));
    }

    /** Keeps {@code candidate} if its field beats the kept one strictly; ties keep the earlier. */
    private void keep(TreeMap<String, ScopeRecord> kept, ScopeRecord candidate) {
        kept.merge(candidate.event(), candidate, (held, next) -> {
            int c = field.compare(next, held);
            boolean better = extreme == Extreme.MAX ? c > 0 : c < 0;
            return better ? next : held;
        });
    }

    @Override
    public ExtremeResult result(Packet root) {
        TreeMap<String, ScopeRecord> events = new TreeMap<>();
        for (ScopeRecord record : root.records()) {
            events.put(record.event(), record);
        }
        return new ExtremeResult(root.round(), extreme, field, events);
    }
}
