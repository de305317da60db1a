package org.eventspace.wan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.eventspace.comm.pathmap.Entry;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.Topology;
import org.eventspace.comm.pathmap.TreeShape;
import org.junit.jupiter.api.Test;

/** The rerouting of inter-site hops through the gateways, on pathmaps alone. */
class WanPlacementTest {
    private static WanLayout layout(String... lines) {
        return WanFile.parse(List.of(lines), "test.wan", null);
    }

    private static final WanLayout TWO = layout("eventspace-wan 1", "site west", "site east",
            "link west east latency_ms=2 bandwidth_mbit_s=100", "link east west latency_ms=3 bandwidth_mbit_s=50");

    private static Pathmap trees(int clusters, int hostsPerCluster, int ranks, TreeShape shape) {
        return PathmapBuilder.build(PathmapSpec.of(Topology.simulated(clusters, hostsPerCluster, 2), ranks, 2, shape));
    }

    @Test
    void everyHopBetweenSitesGoesThroughBothGatewaysLongcutsAndNothingElseCrosses() {
        for (TreeShape shape : List.of(TreeShape.hier(2), TreeShape.FLAT, TreeShape.kary(2))) {
            Pathmap placed = WanPlacement.place(trees(2, 3, 12, shape), TWO);
            WanPlacement.Sites sites = WanPlacement.sites(TWO, placed.spec().topology());
            int crossings = 0;
            for (Node n : placed.nodes()) {
                if (n.isRoot()) {
                    continue;
                }
                Node p = placed.node(n.parent());
                String from = sites.siteOf(n.host());
                String to = sites.siteOf(p.host());
                if (from.equals(to)) {
                    continue;
                }
                crossings++;
                // The only hop between sites: the proxy on one gateway into the Longcut on the other.
                assertThat(n.kind()).isEqualTo(PathmapBuilder.PROXY);
                assertThat(n.host()).isEqualTo(sites.gateway(from));
                assertThat(p.kind()).isEqualTo(WanPlacement.LONGCUT);
                assertThat(p.host()).isEqualTo(sites.gateway(to));
                assertThat(p.properties()).containsEntry(WanPlacement.UP, to + ">" + from);
                // ... called by the Longcut of the first gateway, which delays the request on the way down.
                List<Node> callers = placed.children(n.id());
                assertThat(callers).singleElement().satisfies(c -> {
                    assertThat(c.kind()).isEqualTo(WanPlacement.LONGCUT);
                    assertThat(c.host()).isEqualTo(sites.gateway(from));
                    assertThat(c.properties()).containsEntry(WanPlacement.DOWN, from + ">" + to);
                });
            }
            assertThat(crossings).as(shape + ": some hop crosses sites").isPositive();
            // Every rank's path to the root crosses at most twice (down one way, and the root's site is one site).
            for (Entry e : placed.entries()) {
                long longcuts = placed.path(e.tree(), e.rank()).stream().filter(n -> n.kind().equals(WanPlacement.LONGCUT))
                        .count();
                boolean remote = !sites.siteOf(placed.spec().hostOf(e.rank())).equals(sites.siteOf(placed.spec().rootHost()));
                assertThat(longcuts % 2).isZero();
                if (remote) {
                    assertThat(longcuts).isPositive();
                }
            }
        }
    }

    @Test
    void aHierTreeSendsOneMessageBetweenTwoSitesPerCall() {
        Pathmap placed = WanPlacement.place(trees(2, 2, 8, TreeShape.hier(2)), TWO);
        // One crossing per tree: the east cluster's join hands one message to the west.
        assertThat(placed.nodes().stream().filter(n -> n.kind().equals(WanPlacement.LONGCUT)).count()).isEqualTo(2 * 2);
    }

    @Test
    void hopsWithinASiteAreLeftAlone() {
        Pathmap trees = trees(2, 2, 8, TreeShape.hier(2));
        Pathmap placed = WanPlacement.place(trees, layout("eventspace-wan 1", "site both cluster=c0", "site other cluster=c1",
                "link both other latency_ms=1 bandwidth_mbit_s=1", "link other both latency_ms=1 bandwidth_mbit_s=1"));
        for (int id = 0; id < trees.nodes().size(); id++) {
            Node before = trees.node(id);
            Node after = placed.node(id);
            if (before.kind().equals(PathmapBuilder.PROXY) && before.host() / 2 == trees.node(before.parent()).host() / 2) {
                assertThat(after).isEqualTo(before);
            }
        }
    }

    @Test
    void aNamedGatewayRunsTheSitesLongcuts() {
        WanLayout gw = layout("eventspace-wan 1", "site west gateway=h1", "site east gateway=h3",
                "link west east latency_ms=2 bandwidth_mbit_s=100", "link east west latency_ms=3 bandwidth_mbit_s=50");
        Pathmap placed = WanPlacement.place(trees(2, 2, 4, TreeShape.hier(2)), gw);
        assertThat(placed.nodes().stream().filter(n -> n.kind().equals(WanPlacement.LONGCUT)).map(Node::host).distinct())
                .containsExactlyInAnyOrder(1, 3);
    }

    @Test
    void whatDoesNotFitIsNamed() {
        assertThatThrownBy(() -> WanPlacement.place(trees(3, 1, 3, TreeShape.hier(2)), TWO))
                .hasMessage("test.wan: 2 sites but the job has 3 clusters (--clusters 2, or name each site's cluster= in the file)");
        WanLayout oneWay = layout("eventspace-wan 1", "site west", "site east", "link west east latency_ms=2 bandwidth_mbit_s=100");
        assertThatThrownBy(() -> WanPlacement.place(trees(2, 1, 2, TreeShape.hier(2)), oneWay))
                .hasMessageContaining("test.wan: no 'link east west' line, but the trees send between sites");
        WanLayout badGateway = layout("eventspace-wan 1", "site west gateway=h2", "site east",
                "link west east latency_ms=2 bandwidth_mbit_s=100", "link east west latency_ms=3 bandwidth_mbit_s=50");
        assertThatThrownBy(() -> WanPlacement.place(trees(2, 2, 4, TreeShape.hier(2)), badGateway))
                .hasMessage("test.wan:2: gateway h2 of site west is not a host of its cluster");
        WanLayout unknownCluster = layout("eventspace-wan 1", "site west cluster=c0", "site east cluster=c9",
                "link west east latency_ms=2 bandwidth_mbit_s=100");
        assertThatThrownBy(() -> WanPlacement.place(trees(2, 1, 2, TreeShape.hier(2)), unknownCluster))
                .hasMessageContaining("test.wan:3: site east names cluster c9, which the job does not have");
    }
}
