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
        return ConcatFilter.concatenate(NAME, SETS, command, fromChildren);
    }

    @Override
    public NewestResult result(Packet root) {
        List<ScopeRecord> records = root.records();
        int i = 0;
        while (i < records.size()) {
            ScopeRecord header = records.get(i);
            boolean valuesOnly = header.event().equals(ResultBoard.VALUES_HEADER);
            if (!valuesOnly && !header.event().equals(ResultBoard.HEADER)) {
                throw new IllegalArgumentException(NAME + ": round " + root.round() + ": record " + i + " is '"
                        + header.event() + "', expected a set's header " + ResultBoard.HEADER + " or " + ResultBoard.VALUES_HEADER);
            }
            int end = i + 1;
            while (end < records.size() && !isHeader(records.get(end))) {
                end++;
            }
            int host = (int) header.value();
            ResultBoard.Published before = newest.get(host);
            List<ScopeRecord> set = records.subList(i, end);
            if (valuesOnly) {
                set = named(host, before, set, root.round());
            }
            if (before == null || before.version() < header.round()) {
                newest.put(host, new ResultBoard.Published(header.round(), set));
            }
            i = end;
        }
        return new NewestResult(root.round(), newest);
    }

    private static boolean isHeader(ScopeRecord r) {
        return r.event().equals(ResultBoard.HEADER) || r.event().equals(ResultBoard.VALUES_HEADER);
    }

    /** A values-only set with the events of {@code named}, the host's last set, put back record for record. */
    private static List<ScopeRecord> named(int host, ResultBoard.Published named, List<ScopeRecord> values, long round) {
        if (named == null || named.records().size() != values.size()) {
            throw new IllegalArgumentException(NAME + ": round " + round + ": host " + host + " sent " + (values.size() - 1)
                    + " values without names, but its last set sent whole has "
                    + (named == null ? "not arrived" : (named.records().size() - 1) + " records"));
        }
        List<ScopeRecord> out = new ArrayList<>(values.size());
        out.add(new ScopeRecord(-1, ResultBoard.HEADER, values.get(0).round(), values.get(0).value()));
        for (int k = 1; k < values.size(); k++) {
            ScopeRecord v = values.get(k);
            out.add(new ScopeRecord(v.rank(), named.records().get(k).event(), v.round(), v.value()));
        }
        return out;
    }
}
