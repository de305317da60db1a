package org.eventspace.scope.filter;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code hist:BINS}: ToM's HistFilter (§4.2, Figure 4), a histogram of BINS equal-width bins per event across all
 * ranks, computed in the tree by the 3-phase approach. Below the root no node knows the global minimum and
 * maximum, yet every leaf must bin with the same bounds for children's histograms to be summable. So:
 * <ol>
 *   <li>Phase A, up: every leaf sends its per-event minimum and maximum, inner nodes merge them; the leaf
 *   <em>keeps the round's records</em> ("the USF continues to buffer the original performance data").</li>
 *   <li>Phase B, down: the front-end sends the global bounds down in the next command.</li>
 *   <li>Phase C, up: each leaf bins its kept records with those bounds and drops them; inner nodes add their
 *   children's bin counts element by element.</li>
 * </ol>
 * Pipelined ("the phases are non-blocking and can be pipelined"): the command of round r carries round r−1's
 * bounds, taken from {@code previousRoot}, and asks for round r's. One traversal thus does Phase C of round r−1
 * and Phase A of round r, and the result of round r's traversal is round r−1's histogram. The result is
 * {@linkplain FilterResult#none() empty} after the first round, while the pipeline fills.
 *
 * <p><b>Flushing the last round.</b> To complete round R−1 after the producers stopped, run one more round R whose
 * leaves pass no records ({@code command(R, rootOfRoundR−1)}, then {@code leaf(command, List.of())}): the
 * traversal bins round R−1 and its result is round R−1's histogram. (Records a leaf does get in round R wait for
 * round R+1's command like any other.)
 *
 * <p><b>State.</b> Only leaves keep state: one round of records. A leaf bins its kept records when a command
 * brings bounds for exactly that round; if the front-end skipped a round (bounds for another round), the kept
 * records are dropped unbinned and the leaf contributes zero counts, so memory stays one round per leaf. Not
 * thread-safe: one scope node calls its instance from one thread ({@link ScopeFilter}).
 *
 * <p><b>Bins.</b> {@link #bin} is the one rule, used by leaves and by any central reference.
 *
 * <p><b>Command</b> (tag {@link Packet#PULL}, round r): {@code longs[0]}: the round the bounds are for, −1 for none;
 * {@code records}: one name record per bounded event, sorted (round = the bounds' round);
 * {@code doubles[2i], doubles[2i+1]}: minimum and maximum of event i.
 *
 * <p><b>Packets up</b> (tag {@link #HISTOGRAMS}, round r), two sections, Phase C's first:
 * <pre>
 *   longs:   [0] binned round b (−1: nothing binned)  [1] E_C events binned  [2] E_A events of round r
 *            [3 + i*BINS + k] count of bin k of binned event i, i &lt; E_C
 *   doubles: [2i], [2i+1]             bounds (min, max) of binned event i, copied from the command, i &lt; E_C
 *            [2(E_C+j)], [2(E_C+j)+1]  minimum, maximum of event j in round r, j &lt; E_A
 *   records: E_C name records (round b), then E_A name records (round r), each section sorted by name
 * </pre>
 * The Phase C section repeats the command's names and bounds so that the root packet describes itself: the
 * result needs no memory of the command. Its size depends on events and bins only, never on the rank count.
 *
 * <p><b>Result</b> ({@link HistResult}, round r ≥ 1): {@code round} (b = r−1), {@code bins} (BINS) and
 * {@code events}: event → {round, min, max, count, bins: [count per bin]}.
 */
public final class HistFilter implements ScopeFilter {
    /** Tag of the packets this filter sends up. */
    public static final int HISTOGRAMS = Packet.FIRST_FILTER_TAG + 3;
    /** Most bins per histogram. */
    public static final int MAX_BINS = 65536;
    /** The round field of a command or packet section that holds nothing. */
    public static final long NO_ROUND = -1;

    private static final int BINNED_ROUND = 0;
    private static final int BINNED_EVENTS = 1;
    private static final int PHASE_A_EVENTS = 2;
    private static final int BIN_COUNTS = 3;

    private final int bins;
    private final String name;
    /** Leaf state: the round whose records wait for their bounds, and those records. */
    private long keptRound = NO_ROUND;
    private List<ScopeRecord> keptRecords = List.of();

    public HistFilter(int bins) {
        if (bins < 1 || bins > MAX_BINS) {
            throw new IllegalArgumentException("bins must be 1.." + MAX_BINS + ", bins=" + bins);
        }
        this.bins = bins;
        this.name = "hist:" + bins;
    }

    public int bins() {
        return bins;
    }

    @Override
    public String name() {
        return name;
    }

    /**
     * The bin of {@code value} among {@code bins} equal-width bins over [min, max]: bin k holds
     * [min + k·w, min + (k+1)·w) with w = (max − min)/bins, except that {@code value == max} goes in the last bin.
     * When min == max (or the bounds are not an increasing pair, e.g. NaN) everything goes in bin 0. Values
     * outside the bounds are clamped into the first or last bin; with global bounds there are none.
     */
    public static int bin(double value, double min, double max, int bins) {
        if (!(max > min)) {
            return 0;
        }
        double span = max - min;
        double offset = value - min;
        if (span == Double.POSITIVE_INFINITY) { // finite bounds whose difference overflows: halve everything
            span = max / 2 - min / 2;
            offset = value / 2 - min / 2;
        }
        double position = offset / span * bins;
        if (!(position > 0)) {
            return 0;
        }
        if (position >= bins) {
            return bins - 1;
        }
        return (int) position;
    }

    @Override
    public Packet command(long round, Packet previousRoot) {
        if (previousRoot == null) {
            return boundsCommand(round, NO_ROUND, List.of(), new double[0]);
        }
        if (previousRoot.tag() != HISTOGRAMS || previousRoot.round() >= round) {
            throw new IllegalArgumentException(name + ": previousRoot must be a histogram packet (tag " + HISTOGRAMS
                    + ") of a round before " + round + ", tag=" + previousRoot.tag() + ", round="
                    + previousRoot.round());
        }
        Sections root = sections(previousRoot, -1);
        List<String> events = new ArrayList<>(root.phaseAEvents);
        for (int j = 0; j < root.phaseAEvents; j++) {
            events.add(previousRoot.records().get(root.binnedEvents + j).event());
        }
        double[] bounds = Arrays.copyOfRange(previousRoot.doubles(), 2 * root.binnedEvents,
                2 * (root.binnedEvents + root.phaseAEvents));
        return boundsCommand(round, previousRoot.round(), events, bounds);
    }

    /**
     * Phase B: the command of {@code round} carrying the global bounds of {@code boundsRound} ({@link #NO_ROUND}
     * and no events for none), {@code bounds[2i]}, {@code bounds[2i+1]} the minimum and maximum of
     * {@code events.get(i)}. One place for the command's layout, so that a filter composing this one over its own
     * keys ({@link ClassFilter}, ToM §4.3) sends leaves exactly what {@link #leaf} reads.
     */
    static Packet boundsCommand(long round, long boundsRound, List<String> events, double[] bounds) {
        if (bounds.length != 2 * events.size() || boundsRound < NO_ROUND
                || (boundsRound == NO_ROUND && !events.isEmpty())) {
            throw new IllegalArgumentException("bounds of round " + boundsRound + " must be 2 doubles per event,"
                    + " none for round " + NO_ROUND + ", events=" + events.size() + ", doubles=" + bounds.length);
        }
        List<ScopeRecord> names = new ArrayList<>(events.size());
        for (String event : events) {
            names.add(NameRecords.of(event, boundsRound));
        }
        return new Packet(Packet.PULL, round, new long[] {boundsRound}, bounds, names);
    }

    /**
     * The Phase C bin counts of a packet of this filter by event, BINS counts each (the longs from index 3 of the
     * layout above); empty when the packet binned nothing. For a filter that composes this one at its leaves and
     * moves the counts in a layout of its own ({@link ClassFilter}).
     */
    Map<String, long[]> binnedCounts(Packet packet) {
        Sections s = sections(packet, -1);
        Map<String, long[]> counts = new HashMap<>(2 * s.binnedEvents);
        for (int i = 0; i < s.binnedEvents; i++) {
            int from = BIN_COUNTS + i * bins;
            counts.put(packet.records().get(i).event(), Arrays.copyOfRange(packet.longs(), from, from + bins));
        }
        return counts;
    }

    @Override
    public Packet leaf(Packet command, List<ScopeRecord> records) {
        Bounds bounds = bounds(command);
        int events = bounds.names.size();
        long[] longs = new long[BIN_COUNTS + events * bins];
        longs[BINNED_ROUND] = bounds.round;
        longs[BINNED_EVENTS] = events;
        // Phase C for the bounds' round: bin the records kept since its Phase A, then drop them.
        if (bounds.round != NO_ROUND && keptRound == bounds.round && !keptRecords.isEmpty()) {
            Map<String, Integer> index = new HashMap<>(events * 2);
            for (int i = 0; i < events; i++) {
                index.put(bounds.names.get(i).event(), i);
            }
            for (ScopeRecord record : keptRecords) {
                Integer i = index.get(record.event());
                if (i == null) {
                    throw new IllegalStateException(name + ": the bounds for round " + bounds.round
                            + " do not name event '" + record.event() + "' that this leaf sent up in Phase A");
                }
                double min = command.doubles()[2 * i];
                double max = command.doubles()[2 * i + 1];
                longs[BIN_COUNTS + i * bins + bin(record.value(), min, max, bins)]++;
            }
        }
        // Phase A for this round: local bounds up, records kept until the global bounds come down.
        TreeMap<String, double[]> phaseA = new TreeMap<>();
        for (ScopeRecord record : records) {
            double[] minMax = phaseA.computeIfAbsent(record.event(),
                    e -> new double[] {Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY});
            minMax[0] = Math.min(minMax[0], record.value());
            minMax[1] = Math.max(minMax[1], record.value());
        }
        keptRound = command.round();
        keptRecords = List.copyOf(records);
        return packet(command, bounds, longs, phaseA);
    }

    @Override
    public Packet up(Packet command, List<Packet> fromChildren) {
        Bounds bounds = bounds(command);
        int events = bounds.names.size();
        long[] longs = new long[BIN_COUNTS + events * bins];
        longs[BINNED_ROUND] = bounds.round;
        longs[BINNED_EVENTS] = events;
        TreeMap<String, double[]> phaseA = new TreeMap<>();
        for (int c = 0; c < fromChildren.size(); c++) {
            Packet child = fromChildren.get(c);
            PacketChecks.requireChild(name, command, c, child, HISTOGRAMS);
            Sections s = sections(child, c);
            if (s.binnedRound != bounds.round || s.binnedEvents != events) {
                throw PacketChecks.malformed(name, c, "bins of round " + bounds.round + " for " + events
                        + " events", "bins of round " + s.binnedRound + " for " + s.binnedEvents + " events");
            }
            long[] childLongs = child.longs();
            for (int k = BIN_COUNTS; k < longs.length; k++) {
                longs[k] += childLongs[k];
            }
            for (int j = 0; j < s.phaseAEvents; j++) {
                int at = s.binnedEvents + j;
                double min = child.doubles()[2 * at];
                double max = child.doubles()[2 * at + 1];
                phaseA.merge(child.records().get(at).event(), new double[] {min, max},
                        (held, next) -> new double[] {Math.min(held[0], next[0]), Math.max(held[1], next[1])});
            }
        }
        return packet(command, bounds, longs, phaseA);
    }

    @Override
    public FilterResult result(Packet root) {
        Sections s = sections(root, -1);
        if (s.binnedRound == NO_ROUND) {
            return FilterResult.none();
        }
        TreeMap<String, HistResult.Histogram> events = new TreeMap<>();
        for (int i = 0; i < s.binnedEvents; i++) {
            List<Long> counts = new ArrayList<>(bins);
            long total = 0;
            for (int k = 0; k < bins; k++) {
                long count = root.longs()[BIN_COUNTS + i * bins + k];
                counts.add(count);
                total += count;
            }
            events.put(root.records().get(i).event(), new HistResult.Histogram(s.binnedRound, root.doubles()[2 * i],
                    root.doubles()[2 * i + 1], total, counts));
        }
        return new HistResult(s.binnedRound, bins, events);
    }

    private Packet packet(Packet command, Bounds bounds, long[] longs, TreeMap<String, double[]> phaseA) {
        int binned = bounds.names.size();
        longs[PHASE_A_EVENTS] = phaseA.size();
        double[] doubles = new double[2 * (binned + phaseA.size())];
        System.arraycopy(command.doubles(), 0, doubles, 0, 2 * binned);
        List<ScopeRecord> names = new ArrayList<>(binned + phaseA.size());
        names.addAll(bounds.names);
        int at = 2 * binned;
        for (Map.Entry<String, double[]> e : phaseA.entrySet()) {
            names.add(NameRecords.of(e.getKey(), command.round()));
            doubles[at++] = e.getValue()[0];
            doubles[at++] = e.getValue()[1];
        }
        return new Packet(HISTOGRAMS, command.round(), longs, doubles, names);
    }

    private record Bounds(long round, List<ScopeRecord> names) {
    }

    private Bounds bounds(Packet command) {
        PacketChecks.requirePull(name, command);
        int events = command.records().size();
        if (command.longs().length != 1 || command.doubles().length != 2 * events || command.longs()[0] < NO_ROUND
                || (command.longs()[0] == NO_ROUND && events != 0)) {
            throw new IllegalArgumentException(name + ": malformed command for round " + command.round()
                    + ": expected 1 long (the bounds' round, -1 for none) and 2 doubles per named event, found "
                    + Arrays.toString(command.longs()) + ", " + command.doubles().length + " doubles, " + events
                    + " names");
        }
        return new Bounds(command.longs()[0], command.records());
    }

    private record Sections(long binnedRound, int binnedEvents, int phaseAEvents) {
    }

    /** Reads and checks the two section sizes of a histogram packet ({@code child} −1: the root). */
    private Sections sections(Packet packet, int child) {
        long[] longs = packet.longs();
        if (longs.length < BIN_COUNTS) {
            throw malformed(child, BIN_COUNTS + " header longs", longs.length + " longs");
        }
        long binned = longs[BINNED_EVENTS];
        long phaseA = longs[PHASE_A_EVENTS];
        if (binned < 0 || phaseA < 0 || binned + phaseA != packet.records().size()
                || longs.length != BIN_COUNTS + binned * bins
                || packet.doubles().length != 2 * (binned + phaseA)) {
            throw malformed(child, binned + " + " + phaseA + " names, " + (BIN_COUNTS + binned * bins)
                    + " longs and " + 2 * (binned + phaseA) + " doubles", packet.records().size() + " names, "
                    + longs.length + " longs and " + packet.doubles().length + " doubles");
        }
        return new Sections(longs[BINNED_ROUND], (int) binned, (int) phaseA);
    }

    private IllegalArgumentException malformed(int child, String expected, String found) {
        if (child < 0) {
            return new IllegalArgumentException(name + ": malformed histogram packet: expected " + expected
                    + ", found " + found);
        }
        return PacketChecks.malformed(name, child, expected, found);
    }
}
