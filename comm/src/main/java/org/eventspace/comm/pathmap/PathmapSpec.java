package org.eventspace.comm.pathmap;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * A validated pathmap description: topology, the application's ranks and trees, and the mapping of ranks
 * and the result element to hosts. Built once at the edge (from a file by {@link PathmapConfig} or from CLI
 * flags) and immutable after.
 *
 * @param topology     clusters, hosts and CPUs.
 * @param ranks        application threads, 0..ranks-1.
 * @param trees        identical trees the application alternates between (gsum uses two).
 * @param shape        default shape of every tree.
 * @param overrides    per-branch shapes: a host name overrides the join of that host's ranks, a cluster name
 *                     the join of that cluster's hosts (only meaningful for {@code hier} trees).
 * @param rankHosts    host id of every rank.
 * @param rootHost     host of the core wrapper and the result element.
 * @param resultWords  largest collective payload in 64-bit words the result element holds.
 */
public record PathmapSpec(Topology topology, int ranks, int trees, TreeShape shape, Map<String, TreeShape> overrides,
                          int[] rankHosts, int rootHost, int resultWords) {
    public static final int DEFAULT_RESULT_WORDS = 16_384;

    public PathmapSpec {
        overrides = Map.copyOf(overrides);
        rankHosts = rankHosts.clone();
        if (ranks < 1) {
            throw new IllegalArgumentException("ranks must be >= 1, ranks=" + ranks);
        }
        if (trees < 1) {
            throw new IllegalArgumentException("trees must be >= 1, trees=" + trees);
        }
        if (rankHosts.length != ranks) {
            throw new IllegalArgumentException("mapping names " + rankHosts.length + " ranks but ranks=" + ranks);
        }
        for (int r = 0; r < ranks; r++) {
            if (rankHosts[r] < 0 || rankHosts[r] >= topology.size()) {
                throw new IllegalArgumentException("rank " + r + " is mapped to host " + rankHosts[r]
                        + " but the topology has hosts 0.." + (topology.size() - 1));
            }
        }
        if (rootHost < 0 || rootHost >= topology.size()) {
            throw new IllegalArgumentException("root host " + rootHost + " is not in the topology");
        }
        for (String branch : overrides.keySet()) {
            if (topology.hostId(branch) < 0 && !topology.clusters().contains(branch)) {
                throw new IllegalArgumentException("override names '" + branch + "', which is neither a host nor a cluster");
            }
        }
        if (resultWords < 1) {
            throw new IllegalArgumentException("resultWords must be >= 1, resultWords=" + resultWords);
        }
    }

    /** Block mapping: ranks spread over hosts in contiguous runs, as evenly as possible (mpirun --map-by slot). */
    public static int[] blockMapping(int ranks, int hosts) {
        int[] map = new int[ranks];
        for (int r = 0; r < ranks; r++) {
            map[r] = (int) ((long) r * hosts / ranks);
        }
        return map;
    }

    /** Cyclic mapping: ranks dealt round robin over hosts in topology order (mpirun --map-by node). */
    public static int[] cyclicMapping(int ranks, int hosts) {
        int[] map = new int[ranks];
        for (int r = 0; r < ranks; r++) {
            map[r] = r % hosts;
        }
        return map;
    }

    /** The common case: {@code ranks} ranks block-mapped on a topology, one shape, result on host 0. */
    public static PathmapSpec of(Topology topology, int ranks, int trees, TreeShape shape) {
        return new PathmapSpec(topology, ranks, trees, shape, Map.of(), blockMapping(ranks, topology.size()), 0,
                DEFAULT_RESULT_WORDS);
    }

    public int[] rankHosts() {
        return rankHosts.clone();
    }

    public int hostOf(int rank) {
        return rankHosts[rank];
    }

    /** The ranks mapped to {@code host}, in rank order. */
    public List<Integer> ranksOn(int host) {
        List<Integer> list = new ArrayList<>();
        for (int r = 0; r < rankHosts.length; r++) {
            if (rankHosts[r] == host) {
                list.add(r);
            }
        }
        return list;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PathmapSpec p && topology.equals(p.topology) && ranks == p.ranks && trees == p.trees
                && shape.equals(p.shape) && overrides.equals(p.overrides) && Arrays.equals(rankHosts, p.rankHosts)
                && rootHost == p.rootHost && resultWords == p.resultWords;
    }

    @Override
    public int hashCode() {
        return topology.hashCode() * 31 + Arrays.hashCode(rankHosts);
    }

    @Override
    public String toString() {
        return "PathmapSpec{hosts=" + topology.size() + ", ranks=" + ranks + ", trees=" + trees + ", shape=" + shape
                + ", overrides=" + overrides + ", rootHost=" + rootHost + '}';
    }
}
