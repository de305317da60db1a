package org.eventspace.comm.testing;

import java.time.Duration;
import java.util.Map;

import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.Topology;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.runtime.CommOptions;
import org.eventspace.comm.runtime.InJvmCluster;

/** Simulated jobs for tests: specs over {@code Topology.simulated} and clusters started with a fitting wait policy. */
public final class TestClusters {
    private TestClusters() {
    }

    /** Rank r on host r mod hosts (mpirun --map-by node). */
    public static int[] cyclicMapping(int ranks, int hosts) {
        return PathmapSpec.cyclicMapping(ranks, hosts);
    }

    public static PathmapSpec spec(int clusters, int hostsPerCluster, int ranks, int trees, TreeShape shape,
                                   int[] rankHosts, Map<String, TreeShape> overrides) {
        return new PathmapSpec(Topology.simulated(clusters, hostsPerCluster, 2), ranks, trees, shape, overrides,
                rankHosts, 0, PathmapSpec.DEFAULT_RESULT_WORDS);
    }

    /** Block-mapped ranks on one cluster of {@code hosts} hosts. */
    public static PathmapSpec spec(int hosts, int ranks, int trees, TreeShape shape) {
        return PathmapSpec.of(Topology.simulated(1, hosts, 2), ranks, trees, shape);
    }

    public static InJvmCluster start(PathmapSpec spec) {
        Pathmap pathmap = PathmapBuilder.build(spec);
        return InJvmCluster.start(pathmap, CommOptions.defaults(pathmap.busyThreads()));
    }

    public static InJvmCluster start(PathmapSpec spec, Duration timeout) {
        Pathmap pathmap = PathmapBuilder.build(spec);
        return InJvmCluster.start(pathmap, CommOptions.defaults(pathmap.busyThreads()).withTimeout(timeout));
    }
}
