package org.eventspace.trace;

import java.util.Map;
import java.util.TreeMap;

/**
 * The delta times of one event in one of the encodings of Ratn et al. §3: statistics always, a dynamically balanced
 * histogram for {@link TimeEncoding#HIST}, one histogram per previous call site for {@link TimeEncoding#PATH} (§3.3:
 * "each histogram has an associated stack signature, which must be the same as the stack signature of the previous
 * operation"). Not thread-safe.
 *
 * <p>Adding a sample allocates nothing once the event's histograms exist: the path histograms are found by a linear
 * scan of an {@code int[]} of previous sites (a handful per event), not through the map, whose {@code Integer} keys
 * would box a site id per lookup; the map is kept beside it, sorted, for the readers.
 */
public final class DeltaTiming {
    final TimeStats stats = new TimeStats();
    DeltaHistogram hist;
    final TreeMap<Integer, DeltaHistogram> paths;
    private int[] pathSites = new int[0];
    private DeltaHistogram[] pathHists = new DeltaHistogram[0];
    private final TraceConfig config;

    DeltaTiming(TraceConfig config) {
        this.config = config;
        this.paths = config.encoding() == TimeEncoding.PATH ? new TreeMap<>() : null;
    }

    void add(long v, int rank, int previousSite) {
        stats.add(v, rank);
        switch (config.encoding()) {
            case STATS -> {
            }
            case HIST -> {
                if (hist == null) {
                    hist = DeltaHistogram.create(v, config.bins(), config.smoothInterval());
                } else {
                    hist.add(v);
                }
            }
            case PATH -> {
                DeltaHistogram h = path(previousSite);
                if (h == null) {
                    putPath(previousSite, DeltaHistogram.create(v, config.bins(), config.smoothInterval()));
                } else {
                    h.add(v);
                }
            }
        }
    }

    void merge(DeltaTiming o) {
        stats.merge(o.stats);
        if (o.hist != null) {
            if (hist == null) {
                hist = copy(o.hist);
            } else {
                hist.merge(o.hist);
            }
        }
        if (o.paths != null && paths != null) {
            for (Map.Entry<Integer, DeltaHistogram> e : o.paths.entrySet()) {
                DeltaHistogram h = path(e.getKey());
                if (h == null) {
                    putPath(e.getKey(), copy(e.getValue()));
                } else {
                    h.merge(e.getValue());
                }
            }
        }
    }

    /** The histogram of the calls whose previous call was at {@code previousSite}, or null. */
    DeltaHistogram path(int previousSite) {
        int[] sites = pathSites;
        for (int i = 0; i < sites.length; i++) {
            if (sites[i] == previousSite) {
                return pathHists[i];
            }
        }
        return null;
    }

    /** Adds the histogram of a previous site this event has not seen yet. */
    void putPath(int previousSite, DeltaHistogram h) {
        if (paths == null) {
            throw new IllegalStateException("path histograms belong to time encoding path, this event's is "
                    + config.encoding());
        }
        int n = pathSites.length;
        pathSites = java.util.Arrays.copyOf(pathSites, n + 1);
        pathHists = java.util.Arrays.copyOf(pathHists, n + 1);
        pathSites[n] = previousSite;
        pathHists[n] = h;
        paths.put(previousSite, h);
    }

    private static DeltaHistogram copy(DeltaHistogram h) {
        double[] sd = new double[h.k];
        for (int i = 0; i < h.k; i++) {
            sd[i] = h.binSd(i);
        }
        DeltaHistogram c = DeltaHistogram.restore(h.lo.clone(), h.hi.clone(), h.freq.clone(), h.avg.clone(), sd);
        System.arraycopy(h.m2, 0, c.m2, 0, h.k);
        return c;
    }

    public TimeStats stats() {
        return stats;
    }

    /** The histogram of {@link TimeEncoding#HIST}, or null. */
    public DeltaHistogram histogram() {
        return hist;
    }

    /** The histograms by previous call site of {@link TimeEncoding#PATH}; empty otherwise. */
    public Map<Integer, DeltaHistogram> paths() {
        return paths == null ? Map.of() : paths;
    }

    TraceConfig config() {
        return config;
    }
}
