package org.eventspace.trace;

/**
 * How a trace keeps its delta times: the three encodings of Ratn et al., ICS 2008, §3.1–3.3. Every encoding keeps the
 * aggregate statistics; the histogram encodings add bins.
 */
public enum TimeEncoding {
    /** §3.1: count, mean, variance, minimum and maximum (with the ranks that had them) per event. */
    STATS,
    /** §3.2: plus a dynamically balanced histogram per event (Algorithms 1 and 2). */
    HIST,
    /** §3.3: plus one such histogram per previous call site (path-sensitive). */
    PATH;

    public String fileName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    public static TimeEncoding parse(String s) {
        for (TimeEncoding e : values()) {
            if (e.fileName().equals(s)) {
                return e;
            }
        }
        throw new IllegalArgumentException("time encoding must be stats, hist or path, got " + s);
    }
}
