package org.eventspace.scope.filter;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@code class:SCHEME}: ToM's ClassFilter (§4.3), functional classification of ranks. Global statistics "lose
 * considerable spatial distribution information" when ranks play different roles; so each rank gets a class id,
 * a hash of the names of its events that the {@link ClassScheme} selects, ranks with equal ids are one class, and
 * the statistics are kept per class and per event. Complete profile information is kept: a class's statistics
 * cover <em>all</em> events of its ranks, the scheme only decides who is grouped with whom. Stateless; an instance
 * may be shared by threads.
 *
 * <p><b>Class id</b> ({@link #classId}): 64-bit FNV-1a over the selected names, sorted, each name's UTF-8 bytes
 * followed by the byte 0xFF. ToM hashes the concatenated names; the separator (a byte UTF-8 never contains) keeps
 * {a, bc} and {ab, c} apart. Ranks whose selected sets differ but hash alike would share a class — with 64 bits
 * and a few thousand distinct sets that chance is below 1e-12, and a class's ranklist still names its members.
 * A rank is assumed to produce all of a round's records on one host (one leaf), as it does.
 *
 * <p><b>Per class</b>: the ranklist as strided runs ({@code RankList}: even ranks are one run, so a class's size
 * in the packet does not grow with its rank count) and per event the mergeable statistics of {@link StatsFilter}
 * (count, mean, M2, min, max; merged exactly for count/min/max and by Chan's formula for mean and M2). ToM also
 * histograms within classes with the 3-phase approach; here the per-class measures are one-phase statistics, so a
 * classification costs one traversal per round (a per-class {@link HistFilter} would compose on top).
 *
 * <p><b>Reduction factor</b> (ToM §4.3: "the total non-reduced data size divided by data size with reduction"):
 * the non-reduced size is what {@link ConcatFilter} would move to the root for the round, the encoded length of
 * one packet holding all raw records; the reduced size is the encoded length of this filter's root packet. Each
 * leaf counts its raw records' encoded words and the counts are summed up the tree.
 *
 * <p><b>Packets up</b> (tag {@link #CLASSES}, the command's round), classes sorted by id (signed), events of a
 * class sorted by name:
 * <pre>
 *   longs:   [0] raw record words below this node  [1] C classes
 *            then per class: id, R runs, E events, R × (first, last, stride), E counts
 *   doubles: per class, per event: mean, M2, min, max
 *   records: per class, per event: a name record (rank −1, value 0)
 * </pre>
 *
 * <p><b>Result</b>: {@code round}, {@code scheme}, {@code classes} (how many), {@code raw_bytes},
 * {@code reduced_bytes}, {@code reduction_factor}, and {@code class_list}: per class {id (16 hex digits),
 * rank_count, members (runs as text: {@code 3}, {@code 0-7}, {@code 0-126/2}), events: event → {count, mean, sd,
 * min, max}}.
 */
public final class ClassFilter implements ScopeFilter {
    /** Tag of the packets this filter sends up. */
    public static final int CLASSES = Packet.FIRST_FILTER_TAG + 4;

    private static final long FNV_OFFSET_BASIS = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;
    private static final int NAME_SEPARATOR = 0xFF;

    private static final int RAW_WORDS = 0;
    private static final int CLASS_COUNT = 1;
    private static final int FIRST_CLASS = 2;

    private final ClassScheme scheme;
    private final String name;

    public ClassFilter(ClassScheme scheme) {
        this.scheme = scheme;
        this.name = "class:" + scheme.text();
    }

    public ClassScheme scheme() {
        return scheme;
    }

    @Override
    public String name() {
        return name;
    }

    /** The class id of a rank whose selected event names are {@code selectedNames} (any order, no duplicates). */
    public static long classId(Iterable<String> selectedNames) {
        TreeSet<String> sorted = new TreeSet<>();
        selectedNames.forEach(sorted::add);
        long hash = FNV_OFFSET_BASIS;
        for (String event : sorted) {
            for (byte b : event.getBytes(StandardCharsets.UTF_8)) {
                hash = (hash ^ (b & 0xFF)) * FNV_PRIME;
            }
            hash = (hash ^ NAME_SEPARATOR) * FNV_PRIME;
        }
        return hash;
    }

    @Override
    public Packet leaf(Packet command, List<ScopeRecord> records) {
        PacketChecks.requirePull(name, command);
        long rawWords = 0;
        Map<Integer, List<ScopeRecord>> byRank = new LinkedHashMap<>();
        for (ScopeRecord record : records) {
            rawWords += PacketCodec.encodedLength(record);
            // A record of a host (rank −1: a collector inside the tree, not on a rank's path) has no rank to
            // classify; it still counts as raw data a concatenating gather would have moved.
            if (record.rank() >= 0) {
                byRank.computeIfAbsent(record.rank(), r -> new ArrayList<>()).add(record);
            }
        }
        TreeMap<Long, FunctionalClass> classes = new TreeMap<>();
        for (Map.Entry<Integer, List<ScopeRecord>> rank : byRank.entrySet()) {
            TreeSet<String> selected = new TreeSet<>();
            for (ScopeRecord record : rank.getValue()) {
                if (scheme.selects(record.event())) {
                    selected.add(record.event());
                }
            }
            FunctionalClass c = classes.computeIfAbsent(classId(selected), id -> new FunctionalClass());
            c.ranks.add(rank.getKey());
            for (ScopeRecord record : rank.getValue()) {
                c.events.computeIfAbsent(record.event(), e -> new EventStatistics()).add(record.value());
            }
        }
        return packet(command.round(), rawWords, classes);
    }

    @Override
    public Packet up(Packet command, List<Packet> fromChildren) {
        PacketChecks.requirePull(name, command);
        long rawWords = 0;
        TreeMap<Long, FunctionalClass> classes = new TreeMap<>();
        for (int i = 0; i < fromChildren.size(); i++) {
            Packet child = fromChildren.get(i);
            PacketChecks.requireChild(name, command, i, child, CLASSES);
            rawWords += mergeInto(classes, child, i);
        }
        return packet(command.round(), rawWords, classes);
    }

    @Override
    public Map<String, Object> result(Packet root) {
        TreeMap<Long, FunctionalClass> classes = new TreeMap<>();
        long rawWords = mergeInto(classes, root, -1);
        long rawBytes = (long) PacketLayout.WORD_BYTES * (PacketLayout.HEADER_WORDS + rawWords);
        long reducedBytes = (long) PacketLayout.WORD_BYTES * PacketCodec.encodedLength(root);
        List<Map<String, Object>> classList = new ArrayList<>(classes.size());
        classes.forEach((id, c) -> {
            Map<String, Object> events = new TreeMap<>();
            c.events.forEach((event, statistics) -> events.put(event, statistics.toResult()));
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("id", String.format("%016x", id));
            entry.put("rank_count", c.ranks.size());
            entry.put("members", RankList.text(c.ranks.runs()));
            entry.put("events", events);
            classList.add(entry);
        });
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("round", root.round());
        out.put("scheme", scheme.text());
        out.put("classes", classes.size());
        out.put("raw_bytes", rawBytes);
        out.put("reduced_bytes", reducedBytes);
        out.put("reduction_factor", (double) rawBytes / reducedBytes);
        out.put("class_list", classList);
        return out;
    }

    /** A functional class while it is being built or merged: its ranks and its per-event statistics. */
    private static final class FunctionalClass {
        final RankList ranks = new RankList();
        final TreeMap<String, EventStatistics> events = new TreeMap<>();
    }

    private static Packet packet(long round, long rawWords, TreeMap<Long, FunctionalClass> classes) {
        int longCount = FIRST_CLASS;
        int eventCount = 0;
        List<long[]> runs = new ArrayList<>(classes.size());
        for (FunctionalClass c : classes.values()) {
            long[] r = c.ranks.runs();
            runs.add(r);
            longCount += 3 + r.length + c.events.size();
            eventCount += c.events.size();
        }
        long[] longs = new long[longCount];
        double[] doubles = new double[eventCount * EventStatistics.DOUBLES];
        List<ScopeRecord> names = new ArrayList<>(eventCount);
        longs[RAW_WORDS] = rawWords;
        longs[CLASS_COUNT] = classes.size();
        int at = FIRST_CLASS;
        int event = 0;
        int classIndex = 0;
        for (Map.Entry<Long, FunctionalClass> e : classes.entrySet()) {
            FunctionalClass c = e.getValue();
            long[] r = runs.get(classIndex++);
            longs[at++] = e.getKey();
            longs[at++] = r.length / RankList.RUN_LONGS;
            longs[at++] = c.events.size();
            System.arraycopy(r, 0, longs, at, r.length);
            at += r.length;
            for (Map.Entry<String, EventStatistics> s : c.events.entrySet()) {
                names.add(NameRecords.of(s.getKey(), round));
                s.getValue().write(longs, at++, doubles, event++ * EventStatistics.DOUBLES);
            }
        }
        return new Packet(CLASSES, round, longs, doubles, names);
    }

    /** Merges a packet's classes into {@code classes} in order; returns its raw record words. */
    private long mergeInto(TreeMap<Long, FunctionalClass> classes, Packet packet, int child) {
        long[] longs = packet.longs();
        List<ScopeRecord> names = packet.records();
        if (longs.length < FIRST_CLASS || longs[CLASS_COUNT] < 0 || longs[RAW_WORDS] < 0) {
            throw malformed(child, "raw words >= 0 and a class count >= 0", longs.length + " longs");
        }
        int at = FIRST_CLASS;
        int event = 0;
        for (long k = 0; k < longs[CLASS_COUNT]; k++) {
            if (at + 3 > longs.length) {
                throw malformed(child, "the header of class " + k + " at long " + at, longs.length + " longs");
            }
            long id = longs[at];
            long runCount = longs[at + 1];
            long eventCount = longs[at + 2];
            at += 3;
            if (runCount < 0 || eventCount < 0 || at + runCount * RankList.RUN_LONGS + eventCount > longs.length
                    || event + eventCount > names.size()
                    || (event + eventCount) * EventStatistics.DOUBLES > packet.doubles().length) {
                throw malformed(child, "class " + k + " with runs and events within the packet", runCount + " runs, "
                        + eventCount + " events at long " + at + " of " + longs.length);
            }
            FunctionalClass c = classes.computeIfAbsent(id, x -> new FunctionalClass());
            at = c.ranks.addRuns(longs, at, (int) runCount, name, child);
            for (long i = 0; i < eventCount; i++) {
                c.events.computeIfAbsent(names.get(event).event(), x -> new EventStatistics())
                        .merge(longs, at++, packet.doubles(), event * EventStatistics.DOUBLES);
                event++;
            }
        }
        if (at != longs.length || event != names.size() || event * EventStatistics.DOUBLES != packet.doubles().length) {
            throw malformed(child, at + " longs, " + event + " names and " + event * EventStatistics.DOUBLES
                    + " doubles for " + longs[CLASS_COUNT] + " classes", longs.length + " longs, " + names.size()
                    + " names and " + packet.doubles().length + " doubles");
        }
        return longs[RAW_WORDS];
    }

    private IllegalArgumentException malformed(int child, String expected, String found) {
        if (child < 0) {
            return new IllegalArgumentException(name + ": malformed class packet: expected " + expected + ", found "
                    + found);
        }
        return PacketChecks.malformed(name, child, expected, found);
    }
}
