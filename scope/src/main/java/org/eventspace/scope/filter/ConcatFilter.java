package org.eventspace.scope.filter;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code concat}: the gather without reduction, every record of the round moved to the front-end in child order.
 * It is ToM's simplest front-end, which "just unpacks and writes the profiles" (§2.3), and the baseline every
 * reducing filter is measured against: its root packet's encoded length is the "total non-reduced data size" of
 * ToM §4.3's reduction factor. Stateless; an instance may be shared by threads.
 *
 * <p>Packets up: tag {@link #RECORDS}, the command's round, the records in leaf production order and child order,
 * no numbers. Result ({@link ConcatResult}): {@code round}, {@code records} (the count, always complete) and
 * {@code listing} (the first {@link #LISTING_LIMIT} records as {rank, event, round, value}), with
 * {@code listing_truncated} when cut.
 */
public final class ConcatFilter implements ScopeFilter {
    public static final String NAME = "concat";
    /** Tag of the packets this filter sends up. */
    public static final int RECORDS = Packet.FIRST_FILTER_TAG;
    /** Most records the result lists; the count is always given in full. */
    public static final int LISTING_LIMIT = 1000;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Packet leaf(Packet command, List<ScopeRecord> records) {
        PacketChecks.requirePull(NAME, command);
        return Packet.ofRecords(RECORDS, command.round(), records);
    }

    @Override
    public Packet up(Packet command, List<Packet> fromChildren) {
        return concatenate(NAME, RECORDS, command, fromChildren);
    }

    /**
     * The children's records in child order, in one packet tagged {@code tag}: the {@code up} of every filter that moves
     * records unreduced ({@code concat}, {@code newest}, {@code tuples}); {@code filter} names it in errors.
     */
    static Packet concatenate(String filter, int tag, Packet command, List<Packet> fromChildren) {
        PacketChecks.requirePull(filter, command);
        int total = 0;
        for (int i = 0; i < fromChildren.size(); i++) {
            Packet child = fromChildren.get(i);
            PacketChecks.requireChild(filter, command, i, child, tag);
            total += child.records().size();
        }
        List<ScopeRecord> all = new ArrayList<>(total);
        for (Packet child : fromChildren) {
            all.addAll(child.records());
        }
        return Packet.ofRecords(tag, command.round(), all);
    }

    @Override
    public ConcatResult result(Packet root) {
        List<ScopeRecord> records = root.records();
        return new ConcatResult(root.round(), records.size(),
                records.subList(0, Math.min(records.size(), LISTING_LIMIT)), records.size() > LISTING_LIMIT);
    }
}
