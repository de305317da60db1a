package org.eventspace.wan.cluster;

/**
 * How a multi-cluster job joins its clusters' trees (SPEC §1; dissertation appendix 7.3 §III–IV and appendix 8.1):
 * {@code run --allreduce sequential|magpie|conditional}.
 */
public enum ClusterAllreduce {
    /**
     * One tree over every cluster: the clusters' hierarchy-aware trees joined by an inter-cluster allreduce at the
     * root (LAN style; the builder's {@code hier} tree as it is). A reduce and a broadcast cross the WAN each call.
     */
    SEQUENTIAL,
    /**
     * Each cluster reduces on its own tree; its root sends the cluster's partial result to every other cluster root
     * and each root combines all partials itself (MagPIe's wide-area optimal allreduce): one WAN one-way latency.
     */
    MAGPIE,
    /** As {@link #MAGPIE}, and a conditional allreduce ({@code Comm.allreduceUntil}) is decided as early as it can. */
    CONDITIONAL;

    /** @throws IllegalArgumentException naming what was expected. */
    public static ClusterAllreduce parse(String text) {
        return switch (text.trim()) {
            case "sequential" -> SEQUENTIAL;
            case "magpie" -> MAGPIE;
            case "conditional" -> CONDITIONAL;
            default -> throw new IllegalArgumentException("allreduce '" + text
                    + "': expected sequential, magpie or conditional");
        };
    }

    @Override
    public String toString() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
