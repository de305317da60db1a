package org.eventspace.scope.filter;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

import org.eventspace.base.stats.RunningStatistics;
import org.eventspace.base.stats.StatisticsSummary;

/**
 * {@code stats}: ToM's StatsFilter (§4.1, Phase A of Figure 4): per event name, across all ranks, for one round,
 * the count, mean, standard deviation, minimum and maximum. Every node computes them "over the data from all its
 * children" and passes them up, so what reaches the front-end is one set of measures per event, whatever the
 * rank count. Stateless; an instance may be shared by threads.
 *
 * <p>What travels is not the measures but a mergeable partial aggregate per event, (count, mean, M2, min, max)
 * ({@code RunningStatistics}, laid out as {@link StatisticsLayout}): a standard deviation cannot be combined from
 * children's standard deviations, and the pairwise (Chan) merge of M2 keeps it accurate where sum-of-squares would
 * cancel. All records a leaf gets for a command count for that command's round; the records' own round fields
 * are not re-checked.
 *
 * <p>Packets up: tag {@link #STATISTICS}, the command's round;
 * {@code records}: one name record per event (rank −1, value 0), sorted by name;
 * {@code longs[i]}: the count of event i;
 * {@code doubles[4i .. 4i+3]}: event i's {@link StatisticsLayout} (mean, M2, minimum, maximum).
 *
 * <p>Result ({@link StatsResult}): {@code round} and {@code events}: event → {count, mean, sd, min, max}; sd is
 * the population standard deviation (the ranks of a round are the whole population).
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
        TreeMap<String, RunningStatistics> byEvent = new TreeMap<>();
        for (ScopeRecord record : records) {
            byEvent.computeIfAbsent(record.event(), e -> new RunningStatistics()).add(record.value());
        }
        return packet(command.round(), byEvent);
    }

    @Override
    public Packet up(Packet command, List<Packet> fromChildren) {
        PacketChecks.requirePull(NAME, command);
        TreeMap<String, RunningStatistics> byEvent = new TreeMap<>();
        for (int i = 0; i < fromChildren.size(); i++) {
            Packet child = fromChildren.get(i);
            PacketChecks.requireChild(NAME, command, i, child, STATISTICS);
            mergeInto(byEvent, child, i);
        }
        return packet(command.round(), byEvent);
    }

    @Override
    public StatsResult result(Packet root) {
        TreeMap<String, RunningStatistics> byEvent = new TreeMap<>();
        mergeInto(byEvent, root, 0);
        TreeMap<String, StatisticsSummary> events = new TreeMap<>();
        byEvent.forEach((event, statistics) -> events.put(event, statistics.summary()));
        return new StatsResult(root.round(), events);
    }

    private static Packet packet(long round, SortedMap<String, RunningStatistics> byEvent) {
        int n = byEvent.size();
        long[] counts = new long[n];
        double[] doubles = new double[n * StatisticsLayout.DOUBLES];
        List<ScopeRecord> names = new ArrayList<>(n);
        int i = 0;
        for (Map.Entry<String, RunningStatistics> e : byEvent.entrySet()) {
            names.add(NameRecords.of(e.getKey(), round));
            write(e.getValue(), counts, i, doubles, i * StatisticsLayout.DOUBLES);
            i++;
        }
        return new Packet(STATISTICS, round, counts, doubles, names);
    }

    private static void mergeInto(Map<String, RunningStatistics> byEvent, Packet packet, int child) {
        int n = packet.records().size();
        if (packet.longs().length != n || packet.doubles().length != n * StatisticsLayout.DOUBLES) {
            throw PacketChecks.malformed(NAME, child, n + " counts and " + n * StatisticsLayout.DOUBLES
                    + " doubles for " + n + " events", packet.longs().length + " counts and "
                    + packet.doubles().length + " doubles");
        }
        for (int i = 0; i < n; i++) {
            merge(byEvent.computeIfAbsent(packet.records().get(i).event(), e -> new RunningStatistics()),
                    packet.longs(), i, packet.doubles(), i * StatisticsLayout.DOUBLES);
        }
    }

    /** Stores {@code s}'s count at {@code longs[countIndex]} and the rest from {@code doubles[doubleIndex]}. */
    static void write(RunningStatistics s, long[] longs, int countIndex, double[] doubles, int doubleIndex) {
        longs[countIndex] = s.count();
        doubles[doubleIndex + StatisticsLayout.MEAN_OFFSET] = s.count() == 0 ? 0.0 : s.mean();
        doubles[doubleIndex + StatisticsLayout.M2_OFFSET] = s.m2();
        doubles[doubleIndex + StatisticsLayout.MIN_OFFSET] = s.count() == 0 ? Double.POSITIVE_INFINITY : s.min();
        doubles[doubleIndex + StatisticsLayout.MAX_OFFSET] = s.count() == 0 ? Double.NEGATIVE_INFINITY : s.max();
    }

    /** Merges into {@code s} the statistics stored by {@link #write} at those indexes. */
    static void merge(RunningStatistics s, long[] longs, int countIndex, double[] doubles, int doubleIndex) {
        s.merge(longs[countIndex], doubles[doubleIndex + StatisticsLayout.MEAN_OFFSET],
                doubles[doubleIndex + StatisticsLayout.M2_OFFSET], doubles[doubleIndex + StatisticsLayout.MIN_OFFSET],
                doubles[doubleIndex + StatisticsLayout.MAX_OFFSET]);
    }
}
