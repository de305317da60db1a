package org.eventspace.run;

import java.util.Locale;

/** The benchmarks {@code eventspace run} knows, by their command-line names. */
public enum Workload {
    /** Threads alternate between two identical allreduce trees, 8-byte sums (dissertation §7.1). */
    GSUM("gsum"),
    /** An integer sort tuned to about half of each iteration, alternating with the allreduce (§7.2). */
    COMPUTE_GSUM("compute-gsum"),
    /** Ranks 0 and 1 bounce a message; one-way latency is half the round trip. */
    PINGPONG("pingpong"),
    /** Red-black SOR on a 2-D grid in row blocks: halo exchange with rank ± 1 and a convergence allreduce ({@link Sor}). */
    SOR("sor"),
    /** A personalised all-to-all over send/recv, every word checked ({@link AllToAll}; ibprof paper §4.1). */
    ALLTOALL("alltoall"),
    /**
     * gsum whose calls alternate between tree 0 and tree 1 (a call uses tree i mod 2): with collectors on tree 0 only,
     * each pair of calls is one monitored and one unmonitored allreduce, timed apart and summed per block
     * ({@code bench overhead --interleave}).
     */
    GSUM_INTERLEAVED("gsum-interleaved");

    private final String label;

    Workload(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public static Workload parse(String text) {
        for (Workload b : values()) {
            if (b.label.equals(text.toLowerCase(Locale.ROOT))) {
                return b;
            }
        }
        throw new IllegalArgumentException("unknown benchmark '" + text + "'; expected gsum, compute-gsum, pingpong, sor, alltoall or gsum-interleaved");
    }
}
