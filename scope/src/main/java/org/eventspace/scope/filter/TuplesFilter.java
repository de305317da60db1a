package org.eventspace.scope.filter;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code tuples}: every trace tuple of the hosts, whole, to the front-end — the centralised analysis of the EventSpace
 * paper (§4.3, §6 Table 1), where the front-end analyses raw tuples instead of the hosts analysing their own. Nothing is
 * reduced: it is the most a scope can move, and the baseline the distributed analysis ({@link NewestFilter}) is
 * measured against.
 *
 * <p>A leaf gives this filter each tuple as two records ({@link #readsRawTuples()}): {@code (op, "<collector>>", sequence,
 * t_down)} and {@code (op, "<collector><", sequence, t_up)}, where op is the tuple's operation type with
 * {@link #FAILED} added for a failed call and the times are the tuple's nanosecond timestamps as doubles (exact while
 * they stay below 2^53 ns, 104 days of a host's monotonic clock; 2 ns steps beyond).
 *
 * <p>Packets up (tag {@link #TUPLES}) are packed, not records: a collector's name travels once per packet, as a name
 * record whose index the tuples refer to, and each tuple is {@link #WORDS_PER_TUPLE} longs, in leaf and child order:
 * <pre>
 *   word 0   collector's name index (high 32 bits) | op, with FAILED (low 32 bits)
 *   word 1   sequence
 *   word 2   t_down, ns
 *   word 3   t_up, ns
 * </pre>
 * 32 bytes a tuple instead of two records with the name in each (80 bytes for names like {@code t0.ec.h0.1}: 2.5×
 * fewer), and no text to encode or decode per
 * tuple. Result: {@link TuplesResult}, the round's names and tuples as they arrived.
 */
public final class TuplesFilter implements ScopeFilter {
    public static final String NAME = "tuples";
    /** Tag of the packets this filter sends up. */
    public static final int TUPLES = Packet.FIRST_FILTER_TAG + 6;
    /** Added to a record's op when the tuple's call failed. */
    public static final int FAILED = 1 << 16;
    /** The suffix of a tuple's first record (its t_down). */
    public static final char DOWN = '>';
    /** The suffix of a tuple's second record (its t_up). */
    public static final char UP = '<';
    /** Longs per tuple in a packet. */
    public static final int WORDS_PER_TUPLE = 4;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean readsRawTuples() {
        return true;
    }

    @Override
    public Packet leaf(Packet command, List<ScopeRecord> records) {
        PacketChecks.requirePull(NAME, command);
        if (records.size() % 2 != 0) {
            throw new IllegalArgumentException(NAME + ": a leaf gives two records per tuple, got " + records.size());
        }
        Map<String, Integer> index = new HashMap<>();
        List<ScopeRecord> names = new ArrayList<>();
        long[] longs = new long[records.size() / 2 * WORDS_PER_TUPLE];
        for (int i = 0, w = 0; i < records.size(); i += 2, w += WORDS_PER_TUPLE) {
            ScopeRecord down = records.get(i);
            ScopeRecord up = records.get(i + 1);
            String event = down.event();
            if (event.isEmpty() || event.charAt(event.length() - 1) != DOWN) {
                throw new IllegalArgumentException(NAME + ": record " + i + " is '" + event
                        + "', expected a tuple's first record '<collector>" + DOWN + "'");
            }
            Integer n = index.get(event);
            if (n == null) {
                n = names.size();
                index.put(event, n);
                names.add(NameRecords.of(event.substring(0, event.length() - 1), command.round()));
            }
            longs[w] = ((long) n << 32) | (down.rank() & 0xFFFF_FFFFL);
            longs[w + 1] = down.round();
            longs[w + 2] = (long) down.value();
            longs[w + 3] = (long) up.value();
        }
        return new Packet(TUPLES, command.round(), longs, new double[0], names);
    }

    /** The children's packets joined: their name tables appended, each child's name indices shifted past the ones before. */
    @Override
    public Packet up(Packet command, List<Packet> fromChildren) {
        PacketChecks.requirePull(NAME, command);
        int words = 0;
        int nameCount = 0;
        for (int i = 0; i < fromChildren.size(); i++) {
            Packet child = fromChildren.get(i);
            PacketChecks.requireChild(NAME, command, i, child, TUPLES);
            if (child.longs().length % WORDS_PER_TUPLE != 0) {
                throw new IllegalArgumentException(NAME + ": child " + i + " sent " + child.longs().length
                        + " longs, not a multiple of " + WORDS_PER_TUPLE);
            }
            words += child.longs().length;
            nameCount += child.records().size();
        }
        long[] longs = new long[words];
        List<ScopeRecord> names = new ArrayList<>(nameCount);
        int w = 0;
        for (Packet child : fromChildren) {
            long shift = (long) names.size() << 32;
            long[] from = child.longs();
            for (int i = 0; i < from.length; i += WORDS_PER_TUPLE, w += WORDS_PER_TUPLE) {
                longs[w] = from[i] + shift;
                longs[w + 1] = from[i + 1];
                longs[w + 2] = from[i + 2];
                longs[w + 3] = from[i + 3];
            }
            names.addAll(child.records());
        }
        return new Packet(TUPLES, command.round(), longs, new double[0], names);
    }

    @Override
    public TuplesResult result(Packet root) {
        List<String> names = new ArrayList<>(root.records().size());
        for (ScopeRecord r : root.records()) {
            names.add(r.event());
        }
        return new TuplesResult(root.round(), names, root.longs());
    }
}
