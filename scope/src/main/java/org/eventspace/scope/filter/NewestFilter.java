package org.eventspace.scope.filter;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.eventspace.scope.ResultBoard;

/**
 * {@code newest}: gathers the hosts' published analysis results ({@link ResultBoard}) instead of trace tuples — the
 * distributed analysis of the EventSpace paper §4.3, where "only the newest state" of the intermediate results need
 * reach the front-end. A leaf passes its host's newest set once (a pull that finds no newer set sends nothing), inner
 * nodes concatenate, and the front-end's instance keeps the newest set of every host it has heard from, so its result
 * is always the whole job's newest state even when a round brought only some hosts' sets.
 *
 * <p>Packets up: tag {@link #SETS}, the command's round, the sets' records (each set headed by its
 * {@link ResultBoard#HEADER} record). Result: {@link NewestResult}.
 */
public final class NewestFilter implements ScopeFilter {
    public static final String NAME = "newest";
    /** Tag of the packets this filter sends up. */
    public static final int SETS = Packet.FIRST_FILTER_TAG + 5;

    /** At the front-end: every host's newest set. */
    private final Map<Integer, ResultBoard.Published> newest = new TreeMap<>();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean readsResults() {
        return true;
    }

    @Override
    public Packet leaf(Packet command, List<ScopeRecord> records) {
        PacketChecks.requirePull(NAME, command);
        return Packet.ofRecords(SETS, command.round(), records);
    }

    @Override
    public Packet up(Packet command, List<Packet> fromChildren) {
        PacketChecks.requirePull(NAME, command);
        List<ScopeRecord> all = new ArrayList<>();
        for (int i = 0; i < fromChildren.size(); i++) {
            Packet child = fromChildren.get(i);
            PacketChecks.requireChild(NAME, command, i, child, SETS);
            all.addAll(child.records());
        }
        return Packet.ofRecords(SETS, command.round(), all);
    }

    @Override
    public NewestResult result(Packet root) {
        List<ScopeRecord> records = root.records();
        int i = 0;
        while (i < records.size()) {
            ScopeRecord header = records.get(i);
            if (!header.event().equals(ResultBoard.HEADER)) {
                throw new IllegalArgumentException(NAME + ": round " + root.round() + ": record " + i + " is '"
                        + header.event() + "', expected a set's header " + ResultBoard.HEADER);
            }
            int end = i + 1;
            while (end < records.size() && !records.get(end).event().equals(ResultBoard.HEADER)) {
                end++;
            }
            int host = (int) header.value();
            ResultBoard.Published before = newest.get(host);
            if (before == null || before.version() < header.round()) {
                newest.put(host, new ResultBoard.Published(header.round(), records.subList(i, end)));
            }
            i = end;
        }
        return new NewestResult(root.round(), newest);
    }
}
