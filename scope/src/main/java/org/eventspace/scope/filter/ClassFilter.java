package org.eventspace.scope.filter;

import static org.eventspace.scope.filter.HistFilter.NO_ROUND;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

import org.eventspace.base.stats.RunningStatistics;
import org.eventspace.base.stats.StatisticsSummary;

/**
 * {@code class:SCHEME}: ToM's ClassFilter (§4.3), functional classification of ranks with a histogram per class and
 * event. Global statistics and histograms "lose considerable spatial distribution information" when ranks play
 * different roles: imbalance <em>within</em> a class and <em>across</em> classes look alike. So each rank gets a
 * class id, a hash of the names of its events that the {@link ClassScheme} selects, ranks with equal ids are one
 * class, and "within these classes distributed histogramming using the 3-Phase approach is carried out". Complete
 * profile information is kept: a class covers <em>all</em> events of its ranks, the scheme only decides who is
 * grouped with whom.
 *
 * <p><b>Class id</b> ({@link #classId}): 64-bit FNV-1a over the selected names, sorted, each name's UTF-8 bytes
 * followed by the byte 0xFF. ToM hashes the concatenated names; the separator (a byte UTF-8 never contains) keeps
 * {a, bc} and {ab, c} apart. Ranks whose selected sets differ but hash alike would share a class — with 64 bits
 * and a few thousand distinct sets that chance is below 1e-12, and a class's ranklist still names its members.
 * A rank is assumed to produce all of a round's records on one host (one leaf), as it does. Records of a host
 * (rank −1: a collector inside the tree) have no rank to classify; they count only as raw data.
 *
 * <p><b>The 3 phases over (class, event) keys.</b> A class id is known at the leaf as soon as a rank's records
 * are, but the bins of a class's event need that key's <em>global</em> minimum and maximum (ToM §4.2), so the
 * histograms are pipelined exactly as {@link HistFilter}'s: round r's command carries round r−1's bounds, one
 * traversal does Phase C of round r−1 and Phase A of round r. The leaves reuse HistFilter itself rather than a copy:
 * each leaf classifies its ranks, rewrites every record's event to the key {@code <class id, 16 hex digits>|<event>}
 * and hands the keyed records to a {@link HistFilter} of its own, which keeps them for one round and bins them with
 * {@link HistFilter#bin} when the bounds come (or drops them if the front-end skipped that round). The commands are
 * HistFilter's ({@code HistFilter.boundsCommand}) over those keys.
 *
 * <p><b>A round's classes travel with its histograms.</b> A leaf also keeps the round's classes (ranklists and
 * per-event statistics) and sends them up in the next traversal, beside the bins. So the root packet of round r+1
 * holds round r's classes <em>and</em> histograms and describes itself: the front-end needs no memory of earlier
 * roots, a consumer reads a round's classes and distribution in one result, and the reduction factor measures the
 * one packet that carries them. The cost is the same one-round latency as HistFilter's: the result is
 * {@linkplain FilterResult#none() empty} after the first round, and a flush round whose leaves pass no records
 * ({@code command(R, rootOfRoundR−1)}, then {@code leaf(command, List.of())}) completes round R−1.
 *
 * <p><b>Why the layout is not HistFilter's packet beside a class packet.</b> ToM §4.3 trades classification
 * detail against "the extra data that it generates", and its reduction factor is the measure. HistFilter's packet
 * repeats every key's name and bounds and spends a word per bin count; beside a class packet that names the same
 * keys, a few ranks' worth of records (the two-role job at 8 ranks) would cost twice their raw size. Here a key's
 * name travels once, its bounds are not sent up at all — the histogram's minimum and maximum are its statistics'
 * (the global Phase A bounds of a round are exactly the merged minimum and maximum of that round's records) — and
 * the bin counts are {@code PackedCounts} (a byte each below 128).
 *
 * <p><b>Per class</b>: the ranklist as strided runs ({@code RankList}: even ranks are one run, so a class's size
 * in the packet does not grow with its rank count), per event the mergeable statistics of {@link StatsFilter}
 * (count, mean, M2, min, max; merged exactly for count/min/max and by Chan's formula for mean and M2) and BINS bin
 * counts, added element by element up the tree.
 *
 * <p><b>Reduction factor</b> (ToM §4.3: "the total non-reduced data size divided by data size with reduction"):
 * the non-reduced size is what {@link ConcatFilter} would move to the root for the round, the encoded length of
 * one packet holding all its raw records (host records included); the reduced size is the encoded length of the
 * root packet that carries the round's classes and histograms. Each leaf counts its raw records' encoded words
 * and sends the count up with the classes. That root packet also carries the next round's Phase A (its keys and
 * bounds), as HistFilter's does; a flush round's carries none.
 *
 * <p><b>Command</b>: HistFilter's ({@code HistFilter.boundsCommand}), tag {@link Packet#PULL}, round r:
 * {@code longs[0]} the round b = r−1 the bounds are for (−1 for none), one name record per key
 * {@code <class id hex>|<event>}, {@code doubles[2i], doubles[2i+1]} the minimum and maximum of key i.
 *
 * <p><b>Packets up</b> (tag {@link #CLASSES}, round r): Phase C's classes of round b first, then Phase A's keys of
 * round r, in the longs and doubles {@link ClassPacketLayout} describes; the records are one name record per event
 * of each class of round b (round b), then of each class of round r (round r).
 *
 * <p><b>Result</b> ({@link ClassResult}; round r ≥ 1, empty at round 0): {@code round} (b = r−1), {@code scheme},
 * {@code bins}, {@code classes} (how many), {@code raw_bytes}, {@code reduced_bytes}, {@code reduction_factor}, and
 * {@code class_list}: per class {id (16 hex digits), rank_count, members (runs as text: {@code 3}, {@code 0-7},
 * {@code 0-126/2}), events: event → {count, mean, sd, min, max}, histograms: event → {min, max, count, bins:
 * [count per bin]}}, bins by {@link HistFilter#bin} over [min, max].
 *
 * <p><b>State.</b> Only leaves keep state: one round of classes and keyed records. Not thread-safe: one scope
 * node calls its instance from one thread ({@link ScopeFilter}).
 */
public final class ClassFilter implements ScopeFilter {
    /** Tag of the packets this filter sends up. */
    public static final int CLASSES = Packet.FIRST_FILTER_TAG + 4;
    /** Bins per (class, event) histogram of a filter made from {@code class:SCHEME}. */
    public static final int DEFAULT_BINS = 16;
    /** Between the class id and the event name in a histogram key. */
    public static final char KEY_SEPARATOR = '|';

    private static final long FNV_OFFSET_BASIS = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;
    private static final int NAME_SEPARATOR = 0xFF;

    /** Doubles per key of HistFilter's bounds command: minimum, maximum. */
    private static final int COMMAND_BOUNDS = 2;

    private final ClassScheme scheme;
    private final int bins;
    private final String name;
    /** Leaf: the 3-phase histogram over (class, event) keys; it keeps the round's keyed records until Phase C. */
    private final HistFilter histograms;
    /** Leaf state: the round whose classes wait for their histograms, those classes, and its raw record words. */
    private long keptRound = NO_ROUND;
    private TreeMap<Long, FunctionalClass> keptClasses = new TreeMap<>();
    private long keptRawWords;

    /** A filter with {@link #DEFAULT_BINS} bins per histogram, as {@code class:SCHEME} makes. */
    public ClassFilter(ClassScheme scheme) {
        this(scheme, DEFAULT_BINS);
    }

    /** A filter with {@code bins} bins per (class, event) histogram, 1..{@link HistFilter#MAX_BINS}. */
    public ClassFilter(ClassScheme scheme, int bins) {
        this.scheme = Objects.requireNonNull(scheme, "scheme");
        this.histograms = new HistFilter(bins);
        this.bins = bins;
        this.name = "class:" + scheme.text();
    }

    public ClassScheme scheme() {
        return scheme;
    }

    public int bins() {
        return bins;
    }

    /** {@code class:SCHEME}; the bins are not part of it (the command line has no syntax for them). */
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

    /** The histogram key of {@code event} in class {@code id}: {@code <id, 16 hex digits>|<event>}. */
    static String histogramKey(long id, String event) {
        return keyPrefix(id) + event;
    }

    private static String keyPrefix(long id) {
        return String.format("%016x", id) + KEY_SEPARATOR;
    }

    @Override
    public Packet command(long round, Packet previousRoot) {
        if (previousRoot == null) {
            return HistFilter.boundsCommand(round, NO_ROUND, List.of(), new double[0]);
        }
        if (previousRoot.tag() != CLASSES || previousRoot.round() >= round) {
            throw new IllegalArgumentException(name + ": previousRoot must be a class packet (tag " + CLASSES
                    + ") of a round before " + round + ", tag=" + previousRoot.tag() + ", round="
                    + previousRoot.round());
        }
        Sections root = new Sections();
        read(previousRoot, -1, root);
        List<String> keys = new ArrayList<>();
        List<double[]> minMax = new ArrayList<>();
        root.phaseA.forEach((id, events) -> {
            String prefix = keyPrefix(id);
            events.forEach((event, bounds) -> {
                keys.add(prefix + event);
                minMax.add(bounds);
            });
        });
        double[] bounds = new double[COMMAND_BOUNDS * keys.size()];
        for (int i = 0; i < keys.size(); i++) {
            bounds[COMMAND_BOUNDS * i] = minMax.get(i)[0];
            bounds[COMMAND_BOUNDS * i + 1] = minMax.get(i)[1];
        }
        return HistFilter.boundsCommand(round, previousRoot.round(), keys, bounds);
    }

    @Override
    public Packet leaf(Packet command, List<ScopeRecord> records) {
        PacketChecks.requirePull(name, command);
        long boundsRound = boundsRound(command);
        // Phase A of this round: classify the ranks, then key each rank's records by (class, event).
        long rawWords = 0;
        Map<Integer, List<ScopeRecord>> byRank = new LinkedHashMap<>();
        for (ScopeRecord record : records) {
            rawWords += PacketCodec.encodedLength(record);
            if (record.rank() >= 0) {
                byRank.computeIfAbsent(record.rank(), r -> new ArrayList<>()).add(record);
            }
        }
        Sections out = new Sections();
        TreeMap<Long, FunctionalClass> classes = new TreeMap<>();
        List<ScopeRecord> keyed = new ArrayList<>(records.size());
        for (Map.Entry<Integer, List<ScopeRecord>> rank : byRank.entrySet()) {
            TreeSet<String> selected = new TreeSet<>();
            for (ScopeRecord record : rank.getValue()) {
                if (scheme.selects(record.event())) {
                    selected.add(record.event());
                }
            }
            long id = classId(selected);
            String prefix = keyPrefix(id);
            FunctionalClass c = classes.computeIfAbsent(id, x -> new FunctionalClass());
            TreeMap<String, double[]> bounds = out.phaseA.computeIfAbsent(id, x -> new TreeMap<>());
            c.ranks.add(rank.getKey());
            for (ScopeRecord record : rank.getValue()) {
                c.events.computeIfAbsent(record.event(), e -> new ClassEvent()).statistics.add(record.value());
                bounds.merge(record.event(), new double[] {record.value(), record.value()}, ClassFilter::widen);
                keyed.add(new ScopeRecord(record.rank(), prefix + record.event(), record.round(), record.value()));
            }
        }
        Packet binnedKeys = histogramsLeaf(command, keyed);
        // Phase C of the bounds' round: the kept classes get the bins of their keys. If the front-end skipped
        // that round, HistFilter dropped the kept records unbinned and the kept classes go with them.
        out.binnedRound = boundsRound;
        if (boundsRound != NO_ROUND && keptRound == boundsRound) {
            Map<String, long[]> counts = histograms.binnedCounts(binnedKeys);
            keptClasses.forEach((id, c) -> {
                String prefix = keyPrefix(id);
                c.events.forEach((event, e) -> e.bins = Objects.requireNonNull(counts.get(prefix + event),
                        "HistFilter binned no key " + prefix + event));
            });
            out.binned.putAll(keptClasses);
            out.rawWords = keptRawWords;
        }
        keptRound = command.round();
        keptClasses = classes;
        keptRawWords = rawWords;
        return packet(command.round(), out);
    }

    private Packet histogramsLeaf(Packet command, List<ScopeRecord> keyed) {
        try {
            return histograms.leaf(command, keyed);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + ": " + e.getMessage(), e);
        } catch (IllegalStateException e) {
            throw new IllegalStateException(name + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Packet up(Packet command, List<Packet> fromChildren) {
        PacketChecks.requirePull(name, command);
        Sections merged = new Sections();
        merged.binnedRound = boundsRound(command);
        for (int i = 0; i < fromChildren.size(); i++) {
            Packet child = fromChildren.get(i);
            PacketChecks.requireChild(name, command, i, child, CLASSES);
            long binnedRound = read(child, i, merged);
            if (binnedRound != merged.binnedRound) {
                throw PacketChecks.malformed(name, i, "classes of round " + merged.binnedRound + " (the command's"
                        + " bounds)", "classes of round " + binnedRound);
            }
        }
        return packet(command.round(), merged);
    }

    @Override
    public FilterResult result(Packet root) {
        Sections s = new Sections();
        long round = read(root, -1, s);
        if (round == NO_ROUND) {
            return FilterResult.none();
        }
        long rawBytes = (long) PacketLayout.WORD_BYTES * (PacketLayout.HEADER_WORDS + s.rawWords);
        long reducedBytes = (long) PacketLayout.WORD_BYTES * PacketCodec.encodedLength(root);
        List<ClassResult.FunctionalClass> classList = new ArrayList<>(s.binned.size());
        s.binned.forEach((id, c) -> {
            TreeMap<String, StatisticsSummary> events = new TreeMap<>();
            TreeMap<String, ClassResult.Histogram> histogramsOfClass = new TreeMap<>();
            c.events.forEach((event, e) -> {
                StatisticsSummary statistics = e.statistics.summary();
                events.put(event, statistics);
                List<Long> counts = new ArrayList<>(bins);
                for (long count : e.bins) {
                    counts.add(count);
                }
                histogramsOfClass.put(event, new ClassResult.Histogram(statistics.min(), statistics.max(),
                        statistics.count(), counts));
            });
            classList.add(new ClassResult.FunctionalClass(String.format("%016x", id), c.ranks.size(),
                    RankList.text(c.ranks.runs()), events, histogramsOfClass));
        });
        return new ClassResult(round, scheme.text(), bins, s.binned.size(), rawBytes, reducedBytes,
                (double) rawBytes / reducedBytes, classList);
    }

    /** A functional class while it is being built or merged: its ranks and its events. */
    private static final class FunctionalClass {
        final RankList ranks = new RankList();
        final TreeMap<String, ClassEvent> events = new TreeMap<>();
    }

    /** One event of a class: its statistics and, once binned (Phase C), its bin counts. */
    private static final class ClassEvent {
        final RunningStatistics statistics = new RunningStatistics();
        long[] bins;
    }

    /** A packet's content: Phase C's classes of the binned round and Phase A's bounds per class and event. */
    private static final class Sections {
        long binnedRound = NO_ROUND;
        long rawWords;
        final TreeMap<Long, FunctionalClass> binned = new TreeMap<>();
        final TreeMap<Long, TreeMap<String, double[]>> phaseA = new TreeMap<>();
    }

    private static double[] widen(double[] held, double[] next) {
        held[0] = Math.min(held[0], next[0]);
        held[1] = Math.max(held[1], next[1]);
        return held;
    }

    private long boundsRound(Packet command) {
        long[] longs = command.longs();
        if (longs.length != 1 || longs[0] < NO_ROUND) {
            throw new IllegalArgumentException(name + ": malformed command for round " + command.round()
                    + ": expected 1 long (the bounds' round, -1 for none), found " + Arrays.toString(longs));
        }
        return longs[0];
    }

    private Packet packet(long round, Sections s) {
        int longCount = ClassPacketLayout.HEADER_LONGS;
        int binnedEvents = 0;
        List<long[]> runs = new ArrayList<>(s.binned.size());
        for (FunctionalClass c : s.binned.values()) {
            long[] r = c.ranks.runs();
            runs.add(r);
            longCount += ClassPacketLayout.BINNED_CLASS_HEADER_LONGS + r.length + c.events.size();
            binnedEvents += c.events.size();
        }
        int phaseAEvents = 0;
        for (TreeMap<String, double[]> events : s.phaseA.values()) {
            longCount += ClassPacketLayout.PHASE_A_CLASS_LONGS;
            phaseAEvents += events.size();
        }
        long[] counts = new long[binnedEvents * bins];
        double[] doubles = new double[binnedEvents * ClassPacketLayout.BINNED_EVENT_DOUBLES
                + phaseAEvents * ClassPacketLayout.PHASE_A_EVENT_DOUBLES];
        List<ScopeRecord> names = new ArrayList<>(binnedEvents + phaseAEvents);
        // The classes and Phase A first; the packed bins, whose length depends on the counts, after them.
        int at = ClassPacketLayout.HEADER_LONGS;
        int event = 0;
        int d = 0;
        long[] sections = new long[longCount];
        sections[ClassPacketLayout.BINNED_ROUND_INDEX] = s.binnedRound;
        sections[ClassPacketLayout.RAW_WORDS_INDEX] = s.rawWords;
        sections[ClassPacketLayout.BINNED_CLASSES_INDEX] = s.binned.size();
        sections[ClassPacketLayout.PHASE_A_CLASSES_INDEX] = s.phaseA.size();
        int classIndex = 0;
        for (Map.Entry<Long, FunctionalClass> e : s.binned.entrySet()) {
            FunctionalClass c = e.getValue();
            long[] r = runs.get(classIndex++);
            sections[at + ClassPacketLayout.BINNED_CLASS_ID_OFFSET] = e.getKey();
            sections[at + ClassPacketLayout.BINNED_CLASS_RUNS_OFFSET] = r.length / RankList.RUN_LONGS;
            sections[at + ClassPacketLayout.BINNED_CLASS_EVENTS_OFFSET] = c.events.size();
            at += ClassPacketLayout.BINNED_CLASS_HEADER_LONGS;
            System.arraycopy(r, 0, sections, at, r.length);
            at += r.length;
            for (Map.Entry<String, ClassEvent> ce : c.events.entrySet()) {
                names.add(NameRecords.of(ce.getKey(), s.binnedRound));
                StatsFilter.write(ce.getValue().statistics, sections, at++, doubles, d);
                d += ClassPacketLayout.BINNED_EVENT_DOUBLES;
                System.arraycopy(ce.getValue().bins, 0, counts, event++ * bins, bins);
            }
        }
        for (Map.Entry<Long, TreeMap<String, double[]>> e : s.phaseA.entrySet()) {
            sections[at + ClassPacketLayout.PHASE_A_CLASS_ID_OFFSET] = e.getKey();
            sections[at + ClassPacketLayout.PHASE_A_CLASS_EVENTS_OFFSET] = e.getValue().size();
            at += ClassPacketLayout.PHASE_A_CLASS_LONGS;
            for (Map.Entry<String, double[]> b : e.getValue().entrySet()) {
                names.add(NameRecords.of(b.getKey(), round));
                doubles[d + ClassPacketLayout.PHASE_A_MIN_OFFSET] = b.getValue()[0];
                doubles[d + ClassPacketLayout.PHASE_A_MAX_OFFSET] = b.getValue()[1];
                d += ClassPacketLayout.PHASE_A_EVENT_DOUBLES;
            }
        }
        long[] longs = Arrays.copyOf(sections, at + PackedCounts.words(counts));
        PackedCounts.pack(counts, longs, at);
        return new Packet(CLASSES, round, longs, doubles, names);
    }

    /**
     * Merges a packet's sections into {@code into} ({@code child} −1: the root) and returns the round its classes
     * describe.
     */
    private long read(Packet packet, int child, Sections into) {
        long[] longs = packet.longs();
        double[] doubles = packet.doubles();
        List<ScopeRecord> names = packet.records();
        if (longs.length < ClassPacketLayout.HEADER_LONGS
                || longs[ClassPacketLayout.BINNED_ROUND_INDEX] < NO_ROUND
                || longs[ClassPacketLayout.RAW_WORDS_INDEX] < 0
                || longs[ClassPacketLayout.BINNED_CLASSES_INDEX] < 0
                || longs[ClassPacketLayout.PHASE_A_CLASSES_INDEX] < 0
                || (longs[ClassPacketLayout.BINNED_ROUND_INDEX] == NO_ROUND
                        && longs[ClassPacketLayout.BINNED_CLASSES_INDEX] != 0)) {
            throw malformed(child, "a header of " + ClassPacketLayout.HEADER_LONGS + " longs: binned round >= -1, raw"
                    + " words >= 0, class counts >= 0, no classes for round -1", Arrays.toString(Arrays.copyOf(longs,
                    Math.min(longs.length, ClassPacketLayout.HEADER_LONGS))));
        }
        int at = ClassPacketLayout.HEADER_LONGS;
        int event = 0;
        int d = 0;
        List<ClassEvent> binnedEvents = new ArrayList<>();
        List<Long> eventCounts = new ArrayList<>();
        for (long k = 0; k < longs[ClassPacketLayout.BINNED_CLASSES_INDEX]; k++) {
            if (at + ClassPacketLayout.BINNED_CLASS_HEADER_LONGS > longs.length) {
                throw malformed(child, "the header of class " + k + " at long " + at, longs.length + " longs");
            }
            long id = longs[at + ClassPacketLayout.BINNED_CLASS_ID_OFFSET];
            long runCount = longs[at + ClassPacketLayout.BINNED_CLASS_RUNS_OFFSET];
            long eventCount = longs[at + ClassPacketLayout.BINNED_CLASS_EVENTS_OFFSET];
            at += ClassPacketLayout.BINNED_CLASS_HEADER_LONGS;
            if (runCount < 0 || eventCount < 0 || at + runCount * RankList.RUN_LONGS + eventCount > longs.length
                    || event + eventCount > names.size()
                    || d + eventCount * ClassPacketLayout.BINNED_EVENT_DOUBLES > doubles.length) {
                throw malformed(child, "class " + k + " with runs and events within the packet", runCount + " runs, "
                        + eventCount + " events at long " + at + " of " + longs.length);
            }
            FunctionalClass c = into.binned.computeIfAbsent(id, x -> new FunctionalClass());
            at = c.ranks.addRuns(longs, at, (int) runCount, name, child);
            for (long i = 0; i < eventCount; i++) {
                ClassEvent e = c.events.computeIfAbsent(names.get(event++).event(), x -> new ClassEvent());
                StatsFilter.merge(e.statistics, longs, at, doubles, d);
                binnedEvents.add(e);
                eventCounts.add(longs[at++]);
                d += ClassPacketLayout.BINNED_EVENT_DOUBLES;
            }
        }
        for (long k = 0; k < longs[ClassPacketLayout.PHASE_A_CLASSES_INDEX]; k++) {
            if (at + ClassPacketLayout.PHASE_A_CLASS_LONGS > longs.length) {
                throw malformed(child, "the header of Phase A class " + k + " at long " + at, longs.length
                        + " longs");
            }
            long id = longs[at + ClassPacketLayout.PHASE_A_CLASS_ID_OFFSET];
            long eventCount = longs[at + ClassPacketLayout.PHASE_A_CLASS_EVENTS_OFFSET];
            at += ClassPacketLayout.PHASE_A_CLASS_LONGS;
            if (eventCount < 0 || event + eventCount > names.size()
                    || d + eventCount * ClassPacketLayout.PHASE_A_EVENT_DOUBLES > doubles.length) {
                throw malformed(child, "Phase A class " + k + " with events within the packet", eventCount
                        + " events from name " + event + " of " + names.size());
            }
            TreeMap<String, double[]> bounds = into.phaseA.computeIfAbsent(id, x -> new TreeMap<>());
            for (long i = 0; i < eventCount; i++) {
                double[] minMax = {doubles[d + ClassPacketLayout.PHASE_A_MIN_OFFSET],
                        doubles[d + ClassPacketLayout.PHASE_A_MAX_OFFSET]};
                bounds.merge(names.get(event++).event(), minMax, ClassFilter::widen);
                d += ClassPacketLayout.PHASE_A_EVENT_DOUBLES;
            }
        }
        if (event != names.size() || d != doubles.length) {
            throw malformed(child, event + " names and " + d + " doubles for "
                    + longs[ClassPacketLayout.BINNED_CLASSES_INDEX] + " + "
                    + longs[ClassPacketLayout.PHASE_A_CLASSES_INDEX] + " classes", names.size() + " names and " + doubles.length + " doubles");
        }
        long[] counts;
        try {
            counts = PackedCounts.unpack(longs, at, longs.length, binnedEvents.size() * bins);
        } catch (IllegalArgumentException e) {
            throw malformed(child, binnedEvents.size() + " × " + bins + " packed bin counts from long " + at,
                    e.getMessage());
        }
        for (int i = 0; i < binnedEvents.size(); i++) {
            long sum = 0;
            for (int k = 0; k < bins; k++) {
                sum += counts[i * bins + k];
            }
            if (sum != eventCounts.get(i)) {
                throw malformed(child, "bins of binned event " + i + " summing to its count " + eventCounts.get(i),
                        "a sum of " + sum);
            }
            ClassEvent e = binnedEvents.get(i);
            if (e.bins == null) {
                e.bins = new long[bins];
            }
            for (int k = 0; k < bins; k++) {
                e.bins[k] += counts[i * bins + k];
            }
        }
        into.rawWords += longs[ClassPacketLayout.RAW_WORDS_INDEX];
        return longs[ClassPacketLayout.BINNED_ROUND_INDEX];
    }

    private IllegalArgumentException malformed(int child, String expected, String found) {
        if (child < 0) {
            return new IllegalArgumentException(name + ": malformed class packet: expected " + expected + ", found "
                    + found);
        }
        return PacketChecks.malformed(name, child, expected, found);
    }
}
