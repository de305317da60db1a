package org.eventspace.comm.testing;

import java.util.List;
import java.util.Map;

import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.TreeShape;

/** A named job layout for parameterized tests; the name is what the test report shows. */
public record Layout(String name, PathmapSpec spec) {
    @Override
    public String toString() {
        return name;
    }

    /** Shapes, host counts, clusters, mappings and tree counts that between them reach every wrapper arrangement. */
    public static List<Layout> several() {
        return List.of(
                new Layout("1 rank, 1 host, flat", TestClusters.spec(1, 1, 1, TreeShape.FLAT)),
                new Layout("5 ranks, 1 host, binary, 2 trees", TestClusters.spec(1, 5, 2, TreeShape.kary(2))),
                new Layout("6 ranks, 3 hosts, hier:2 block, 2 trees", TestClusters.spec(3, 6, 2, TreeShape.hier(2))),
                new Layout("7 ranks, 2x2 hosts, kary:3 cyclic", TestClusters.spec(2, 2, 7, 1, TreeShape.kary(3),
                        TestClusters.cyclicMapping(7, 4), Map.of())),
                new Layout("8 ranks, 4 hosts, flat cyclic, 3 trees", TestClusters.spec(1, 4, 8, 3, TreeShape.FLAT,
                        TestClusters.cyclicMapping(8, 4), Map.of())),
                new Layout("9 ranks, 2x3 hosts, hier:flat uneven, overrides h1=binary c1=kary:2", TestClusters.spec(2, 3, 9, 2,
                        TreeShape.parse("hier:flat"), new int[] {0, 5, 1, 1, 1, 3, 0, 5, 1},
                        Map.of("h1", TreeShape.kary(2), "c1", TreeShape.kary(2)))));
    }
}
