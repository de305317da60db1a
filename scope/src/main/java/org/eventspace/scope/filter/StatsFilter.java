package org.eventspace.scope.filter;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * {@code stats}: ToM's StatsFilter (§4.1, Phase A of Figure 4): per event name, across all ranks, for one round,
 * the count, mean, standard deviation, minimum and maximum. Every node computes them "over the data from all its
 * children" and passes them up, so what reaches the front-end is one set of measures per event, whatever the
 * rank count. Stateless; an instance may be shared by threads.
 *
 * <p>What travels is not the measures but a mergeable partial aggregate per event, (count, mean, M2, min, max)
 * ({@code EventStatistics}): a standard deviation cannot be combined from children's standard deviations, and
 * the pairwise (Chan) merge of M2 keeps it accurate where sum-of-squares would cancel. All records a leaf gets
 * for a command count for that command's round; the records' own round fields are not re-checked.
 *
 * <p>Packets up: tag {@link #STATISTICS}, the command's round;
 * {@code records}: one name record per event (rank −1, value 0), sorted by name;
 * {@code longs[i]}: the count of event i;
 * {@code doubles[4i .. 4i+3]}: mean, M2 (sum of squared deviations from the mean), minimum, maximum of event i.
 *
 * <p>Result: {@code round} and {@code events}: event → {count, mean, sd, min, max}; sd is the population standard
 * deviation (the ranks of a round are the whole population).
 */
public final class StatsFilter implements ScopeFilter {
    public static final String NAME = "stats";
    /** Tag of the packets this filter sends up. */
    public static final int STATISTICS = Packet.FIRST_FILTER_TAG + 2;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Packet leaf(Packet command, List<ScopeRecord> records) {
        PacketChecks.requirePull(NAME, command);
        TreeMap<String, EventStatistics> byEvent = new TreeMap<>();
        for (ScopeRecord record : records) {
            byEvent.computeIfAbsent(record.event(), e -> new EventStatistics()).add(record.value());
        }
        return packet(command.round(), byEvent);
    }

    @Override
    public Packet up(Packet command, List<Packet> fromChildren) {
        PacketChecks.requirePull(NAME, command);
        TreeMap<String, EventStatistics> byEvent = new TreeMap<>();
        for (int i = 0; i < fromChildren.size(); i++) {
            Packet child = fromChildren.get(i);
            PacketChecks.requireChild(NAME, command, i, child, STATISTICS);
            mergeInto(byEvent, child, i);
        }
        return packet(command.round(), byEvent);
    }

    @Override
    public Map<String, Object> result(Packet root) {
        TreeMap<String, EventStatistics> byEvent = new TreeMap<>();
        mergeInto(byEvent, root, 0);
        Map<String, Object> events = new TreeMap<>();
        byEvent.forEach((event, statistics) -> events.put(event, statistics.toResult()));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("round", root.round());
        out.put("events", events);
        return out;
    }

    private static Packet packet(long round, SortedMap<String, EventStatistics> byEvent) {
        int n = byEvent.size();
        long[] counts = new long[n];
        double[] doubles = new double[n * EventStatistics.DOUBLES];
        List<ScopeRecord> names = new ArrayList<>(n);
        int i = 0;
        for (Map.Entry<String, EventStatistics> e : byEvent.entrySet()) {
            names.add(NameRecords.of(e.getKey(), round));
            e.getValue().write(counts, i, doubles, i * EventStatistics.DOUBLES);
            i++;
        }
        return new Packet(STATISTICS, round, counts, doubles, names);
    }

    private static void mergeInto(Map<String, EventStatistics> byEvent, Packet packet, int child) {
        int n = packet.records().size();
        if (packet.longs().length != n || packet.doubles().length != n * EventStatistics.DOUBLES) {
            throw PacketChecks.malformed(NAME, child, n + " counts and " + n * EventStatistics.DOUBLES
                    + " doubles for " + n + " events", packet.longs().length + " counts and "
                    + packet.doubles().length + " doubles");
        }
        for (int i = 0; i < n; i++) {
            byEvent.computeIfAbsent(packet.records().get(i).event(), e -> new EventStatistics())
                    .merge(packet.longs(), i, packet.doubles(), i * EventStatistics.DOUBLES);
        }
    }
}
