package org.eventspace.scope;

/**
 * How a gather wrapper reads its children (EventSpace paper §4.2, "Event scopes"): {@code seq} reads them one
 * after the other in the calling thread; {@code par:N} hands them to N helper threads of the wrapper, which read
 * them in parallel. Table 2 of the paper shows the trade: helper threads raise the gather rate (51% → 99% for
 * gsum on 49 hosts) and may cost overhead (none → 3% on a LAN multi-cluster). Immutable.
 *
 * @param helpers helper threads per gather wrapper; 0 for {@code seq}.
 */
public record GatherMode(int helpers) {
    /** Most helper threads one gather wrapper may start. */
    public static final int MAX_HELPERS = 256;
    public static final GatherMode SEQUENTIAL = new GatherMode(0);

    public GatherMode {
        if (helpers < 0 || helpers > MAX_HELPERS) {
            throw new IllegalArgumentException("gather helper threads must be in [0, " + MAX_HELPERS + "], helpers=" + helpers);
        }
    }

    public static GatherMode parallel(int helpers) {
        if (helpers < 1) {
            throw new IllegalArgumentException("gather 'par:" + helpers + "': a parallel gather needs at least one helper thread");
        }
        return new GatherMode(helpers);
    }

    /**
     * Parses {@code seq} or {@code par:N} (1 ≤ N ≤ {@value #MAX_HELPERS}).
     *
     * @throws IllegalArgumentException naming the text and what was expected.
     */
    public static GatherMode parse(String text) {
        String s = text.trim();
        if (s.equals("seq")) {
            return SEQUENTIAL;
        }
        if (s.startsWith("par:")) {
            int n;
            try {
                n = Integer.parseInt(s.substring(4));
            } catch (NumberFormatException e) {
                n = -1;
            }
            if (n >= 1 && n <= MAX_HELPERS) {
                return new GatherMode(n);
            }
            throw new IllegalArgumentException("gather '" + text + "': helper threads must be an integer in [1, "
                    + MAX_HELPERS + "]");
        }
        throw new IllegalArgumentException("gather '" + text + "': expected seq or par:N");
    }

    public boolean sequential() {
        return helpers == 0;
    }

    @Override
    public String toString() {
        return helpers == 0 ? "seq" : "par:" + helpers;
    }
}
