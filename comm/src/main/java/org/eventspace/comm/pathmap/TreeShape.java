package org.eventspace.comm.pathmap;

/**
 * The shape of a spanning tree: how many contributors each gred joins and whether joins follow the
 * hierarchy (intra-host before inter-host, intra-cluster before inter-cluster).
 *
 * <p>Written as {@code flat}, {@code binary}, {@code kary:K}, {@code hier:K} or {@code butterfly[:K]};
 * {@link #parse} is the only place that reads those strings.
 */
public record TreeShape(Kind kind, int fanout) {
    /**
     * {@code BUTTERFLY}: each host joins its own ranks (with greds of the fan-out, flat by default), then the hosts
     * exchange partial results in log₂ H rounds of recursive doubling, one message each way per round, and every host
     * keeps the whole result: no root, no reply waited for.
     */
    public enum Kind { FLAT, KARY, HIER, BUTTERFLY }

    public static final TreeShape FLAT = new TreeShape(Kind.FLAT, Integer.MAX_VALUE);

    public TreeShape {
        if (fanout < 2) {
            throw new IllegalArgumentException("a tree's fan-out must be >= 2, fanout=" + fanout);
        }
    }

    public static TreeShape kary(int k) {
        return new TreeShape(Kind.KARY, k);
    }

    public static TreeShape hier(int k) {
        return new TreeShape(Kind.HIER, k);
    }

    /** Recursive doubling between hosts after a join of each host's ranks with greds of fan-out {@code localFanout}. */
    public static TreeShape butterfly(int localFanout) {
        return new TreeShape(Kind.BUTTERFLY, localFanout);
    }

    /**
     * Parses {@code flat}, {@code binary}, {@code kary:K}, {@code hier:K} or {@code butterfly[:K]} (K ≥ 2;
     * {@code hier:flat} joins each level in one gred; a butterfly joins each host's ranks in one gred unless K says).
     *
     * @throws IllegalArgumentException naming what was expected.
     */
    public static TreeShape parse(String text) {
        String s = text.trim();
        if (s.equals("flat")) {
            return FLAT;
        }
        if (s.equals("binary")) {
            return kary(2);
        }
        if (s.equals("butterfly")) {
            return butterfly(Integer.MAX_VALUE);
        }
        int colon = s.indexOf(':');
        if (colon > 0) {
            String kind = s.substring(0, colon);
            String arg = s.substring(colon + 1);
            if (kind.equals("hier") && arg.equals("flat")) {
                return new TreeShape(Kind.HIER, Integer.MAX_VALUE);
            }
            if (kind.equals("kary") || kind.equals("hier") || kind.equals("butterfly")) {
                int k;
                try {
                    k = Integer.parseInt(arg);
                } catch (NumberFormatException e) {
                    k = -1;
                }
                if (k >= 2) {
                    return kind.equals("kary") ? kary(k) : kind.equals("hier") ? hier(k) : butterfly(k);
                }
                throw new IllegalArgumentException("tree '" + text + "': fan-out must be an integer >= 2");
            }
        }
        throw new IllegalArgumentException("tree '" + text + "': expected flat, binary, kary:K, hier:K or butterfly[:K]");
    }

    @Override
    public String toString() {
        return switch (kind) {
            case FLAT -> "flat";
            case KARY -> fanout == 2 ? "binary" : "kary:" + fanout;
            case HIER -> "hier:" + (fanout == Integer.MAX_VALUE ? "flat" : fanout);
            case BUTTERFLY -> fanout == Integer.MAX_VALUE ? "butterfly" : "butterfly:" + fanout;
        };
    }
}
