package org.eventspace.net;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Conservation of routed traffic, for any matrix on any generated topology (fat trees with 1 or 2 subnets, tori, the
 * example graph): the bytes summed over the links of each route equal the entry times the route's length, so the links
 * together carry Σ entry × route length; and every route is a chain of links from the source node to the destination.
 */
class RoutingProperties {
    @Provide
    Arbitrary<Fabric> fabrics() {
        Arbitrary<Fabric> trees = Combinators.combine(Arbitraries.integers().between(2, 4), Arbitraries.integers().between(1, 3),
                Arbitraries.integers().between(1, 2)).as(FatTree::build);
        Arbitrary<Fabric> tori = Combinators.combine(Arbitraries.integers().between(1, 5), Arbitraries.integers().between(2, 5),
                Arbitraries.integers().between(0, 3)).as((x, y, z) -> Torus.build(z == 0 ? new int[] {x, y} : new int[] {x, y, z}));
        Arbitrary<Fabric> graph = Arbitraries.just(TopologyFile.read(java.nio.file.Path.of("../examples/topology/ring-graph.topo")));
        return Arbitraries.oneOf(trees, tori, graph);
    }

    @Property(tries = 200)
    void bytesOnTheLinksAreEachEntryTimesItsRouteLength(@ForAll("fabrics") Fabric fabric, @ForAll long seed) {
        java.util.Random random = new java.util.Random(seed);
        int n = Math.min(fabric.nodes().size(), 1 + random.nextInt(12));
        long[][] m = new long[n][n];
        long expected = 0;
        for (int s = 0; s < n; s++) {
            for (int d = 0; d < n; d++) {
                m[s][d] = random.nextInt(4) == 0 ? 0 : random.nextInt(1 << 20);
                expected += m[s][d] * fabric.route(s, d, fabric.subnetFor(s, d)).length;
            }
        }
        java.util.List<String> names = FatTreeLoadsTest.names(n);
        LinkLoads loads = LinkLoads.route(fabric, m, HostMapping.inOrder(names, fabric));
        assertThat(loads.totalOnLinks()).isEqualTo(expected).isEqualTo(loads.byteHops());
        // Entry by entry: route one entry alone, and its links carry exactly entry × length.
        int s = random.nextInt(n);
        int d = random.nextInt(n);
        long[][] one = new long[n][n];
        one[s][d] = 1 + random.nextInt(1000);
        LinkLoads single = LinkLoads.route(fabric, one, HostMapping.inOrder(names, fabric));
        int[] route = fabric.route(s, d, fabric.subnetFor(s, d));
        assertThat(single.totalOnLinks()).isEqualTo(one[s][d] * route.length);
        for (int hop : route) {
            assertThat(single.bytes(hop / 2, hop % 2)).isEqualTo(one[s][d]);
        }
    }

    @Property(tries = 100)
    void everyRouteIsAChainFromSourceToDestination(@ForAll("fabrics") Fabric fabric, @ForAll long seed) {
        java.util.Random random = new java.util.Random(seed);
        int s = random.nextInt(fabric.nodes().size());
        int d = random.nextInt(fabric.nodes().size());
        int subnet = fabric.subnetFor(s, d);
        int[] route = fabric.route(s, d, subnet);
        int at = fabric.nodes().get(s).endpoints()[subnet];
        for (int hop : route) {
            Fabric.Link l = fabric.links().get(hop / 2);
            assertThat(hop % 2 == 0 ? l.a() : l.b()).isEqualTo(at);
            at = hop % 2 == 0 ? l.b() : l.a();
        }
        assertThat(at).isEqualTo(s == d ? fabric.nodes().get(s).endpoints()[subnet] : fabric.nodes().get(d).endpoints()[subnet]);
    }
}
