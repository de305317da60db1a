package org.eventspace.sim;

/**
 * What an event scope's filter does to the records on their way up, as far as {@link ScopeModel} needs it: whether
 * a node forwards its subtree's records as they are ({@code concat}) or a summary of fixed size ({@code stats},
 * {@code hist:B}: ToM §4.1–4.2, each node computes its measures "over the data from all its children" and passes
 * them up), and the filter's own CPU per record on top of reading and carrying it ({@link Costs#recordNs()}).
 *
 * <p>A summary's size does not depend on the records under it, only on the events and bins: that is why reduction
 * pays as the scope grows (ToM §5.2). The byte sizes below follow the packet layouts of {@code StatsFilter} and
 * {@code HistFilter} in the scope module (a name record per event, mergeable aggregates, bin counts), rounded; they are
 * estimates of what crosses the last edge, not a codec.
 *
 * @param name           the filter as {@code --filter} writes it, for display.
 * @param summaryEntries entries of a node's summary, each read and carried like a record ({@link Costs#recordNs()});
 *                       0 for a filter that does not reduce ({@code concat}).
 * @param summaryBytes   bytes of a node's summary; 0 when {@code summaryEntries} is 0 (concat moves
 *                       {@link Costs#recordBytes()} per record instead).
 * @param nsPerRecord    the filter's own CPU per record at the leaf that reads it (accumulating statistics, binning);
 *                       not among the calibrated {@link Costs}, so the caller says it.
 * @param lagRounds      rounds a result lags the data it describes (the pipelined 3-phase histogram: 1).
 */
public record ScopeFilterModel(String name, int summaryEntries, double summaryBytes, double nsPerRecord,
                               int lagRounds) {
    /** Bytes of an event's name record in a summary packet (name, rank, round). */
    static final double NAME_BYTES = 24;

    public ScopeFilterModel {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a filter model needs a name, name=" + name);
        }
        if (summaryEntries < 0) {
            throw new IllegalArgumentException("summaryEntries must be >= 0, summaryEntries=" + summaryEntries);
        }
        if (!(summaryBytes >= 0) || Double.isInfinite(summaryBytes)) {
            throw new IllegalArgumentException("summaryBytes must be a finite number >= 0, summaryBytes="
                    + summaryBytes);
        }
        if ((summaryEntries == 0) != (summaryBytes == 0)) {
            throw new IllegalArgumentException("a summary has both entries and bytes or neither, summaryEntries="
                    + summaryEntries + ", summaryBytes=" + summaryBytes);
        }
        if (!(nsPerRecord >= 0) || Double.isInfinite(nsPerRecord)) {
            throw new IllegalArgumentException("nsPerRecord must be a finite number >= 0, nsPerRecord=" + nsPerRecord);
        }
        if (lagRounds < 0) {
            throw new IllegalArgumentException("lagRounds must be >= 0, lagRounds=" + lagRounds);
        }
    }

    /** {@code concat}: every record travels up as it is, so a node's answer grows with its subtree. */
    public static ScopeFilterModel concat() {
        return new ScopeFilterModel("concat", 0, 0, 0, 0);
    }

    /**
     * {@code stats} over {@code events} events: per event a name record, a count and (mean, M2, min, max)
     * ({@code StatisticsLayout}).
     */
    public static ScopeFilterModel stats(int events, double nsPerRecord) {
        requireEvents(events);
        return new ScopeFilterModel("stats", events, events * (NAME_BYTES + 8 + 4 * 8), nsPerRecord, 0);
    }

    /**
     * {@code hist:bins} over {@code events} events, pipelined as the scope module does it (ToM §4.2's three phases in
     * one traversal, the result a round late): per event Phase C's name, bounds and bin counts and Phase A's name and
     * bounds, so two entries per event.
     */
    public static ScopeFilterModel hist(int events, int bins, double nsPerRecord) {
        requireEvents(events);
        if (bins < 1) {
            throw new IllegalArgumentException("bins must be >= 1, bins=" + bins);
        }
        double perEvent = (NAME_BYTES + 2 * 8 + (double) bins * 8) + (NAME_BYTES + 2 * 8);
        return new ScopeFilterModel("hist:" + bins, 2 * events, events * perEvent, nsPerRecord, 1);
    }

    /** Whether a node forwards a fixed-size summary rather than its subtree's records. */
    public boolean reducing() {
        return summaryEntries > 0;
    }

    private static void requireEvents(int events) {
        if (events < 1) {
            throw new IllegalArgumentException("events must be >= 1, events=" + events);
        }
    }
}
