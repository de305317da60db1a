package org.eventspace.scope.filter;

import java.util.List;

/**
 * {@code tuples}: every trace tuple of the hosts, whole, to the front-end — the centralised analysis of the EventSpace
 * paper (§4.3, §6 Table 1), where the front-end analyses raw tuples instead of the hosts analysing their own. Nothing is
 * reduced: it is the most a scope can move, and the baseline the distributed analysis ({@link NewestFilter}) is
 * measured against.
 *
 * <p>A leaf gives this filter each tuple as two records ({@link #readsRawTuples()}): {@code (op, "<collector>>", sequence,
 * t_down)} and {@code (op, "<collector><", sequence, t_up)}, where op is the tuple's operation type with
 * {@link #FAILED} added for a failed call and the times are the tuple's nanosecond timestamps as doubles (exact while
 * they stay below 2^53 ns, 104 days of a host's monotonic clock; 2 ns steps beyond). Packets up: tag {@link #TUPLES},
 * the records in leaf and child order. Result: {@link TuplesResult}, every record of the round.
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
        return Packet.ofRecords(TUPLES, command.round(), records);
    }

    @Override
    public Packet up(Packet command, List<Packet> fromChildren) {
        return ConcatFilter.concatenate(NAME, TUPLES, command, fromChildren);
    }

    @Override
    public TuplesResult result(Packet root) {
        return new TuplesResult(root.round(), root.records());
    }
}
