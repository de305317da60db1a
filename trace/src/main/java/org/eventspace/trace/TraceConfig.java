package org.eventspace.trace;

/**
 * How ranks record: the time encoding and its histogram bins and smoothing interval (Ratn et al. §3.2), the
 * compressor's search window (how many trailing elements a new loop body may span), the per-rank memory budget in
 * trace nodes, and how many rank groups of differing timing one event's deltas may keep through the merge
 * ({@link DeltaTiming#byRanks}). Validated once here; immutable.
 */
public record TraceConfig(TimeEncoding encoding, int bins, int smoothInterval, int window, int maxNodes,
                          int timingGroups) {
    /**
     * Trace elements (a loop counts as one) a repetition may span. 256 because a real time step can be long: LAMMPS'
     * 100-step cycle of neighbour-list rebuilds and thermodynamic output is about 70 elements once its inner loops
     * have folded (at 64 its trace stayed ten times larger). The search costs a hash compare per length tried, for
     * calls that do not continue a loop already found.
     */
    public static final int DEFAULT_WINDOW = 256;
    public static final int DEFAULT_MAX_NODES = 1 << 16;
    /**
     * Rank groups of differing timing one event keeps: enough for the roles a program's ranks play (a root, the edges of
     * a grid, a slow node or two), few enough that a trace of many ranks whose timings all differ stays of bounded
     * size; past it the closest groups merge ({@link DeltaTiming#merge}).
     */
    public static final int DEFAULT_TIMING_GROUPS = 8;

    public TraceConfig {
        if (encoding == null) {
            throw new IllegalArgumentException("time encoding must be set");
        }
        if (bins < 2 || bins > 64) {
            throw new IllegalArgumentException("histogram bins must be 2..64, got " + bins);
        }
        if (smoothInterval < 1) {
            throw new IllegalArgumentException("smoothing interval must be >= 1, got " + smoothInterval);
        }
        if (window < 1) {
            throw new IllegalArgumentException("compression window must be >= 1, got " + window);
        }
        if (maxNodes < 16) {
            throw new IllegalArgumentException("per-rank node budget must be >= 16, got " + maxNodes);
        }
        if (timingGroups < 1) {
            throw new IllegalArgumentException("timing groups per event must be >= 1, got " + timingGroups);
        }
    }

    /** The default bound on rank groups of differing timing ({@link #DEFAULT_TIMING_GROUPS}). */
    public TraceConfig(TimeEncoding encoding, int bins, int smoothInterval, int window, int maxNodes) {
        this(encoding, bins, smoothInterval, window, maxNodes, DEFAULT_TIMING_GROUPS);
    }

    public static TraceConfig of(TimeEncoding encoding) {
        return new TraceConfig(encoding, DeltaHistogram.DEFAULT_BINS, DeltaHistogram.DEFAULT_SMOOTH_INTERVAL,
                DEFAULT_WINDOW, DEFAULT_MAX_NODES);
    }

    public TraceConfig withMaxNodes(int n) {
        return new TraceConfig(encoding, bins, smoothInterval, window, n, timingGroups);
    }

    public TraceConfig withWindow(int w) {
        return new TraceConfig(encoding, bins, smoothInterval, w, maxNodes, timingGroups);
    }

    public TraceConfig withTimingGroups(int g) {
        return new TraceConfig(encoding, bins, smoothInterval, window, maxNodes, g);
    }
}
