package org.eventspace.net;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Per-link loads of an all-to-all on a 16-node 2-level fat tree (4-ary 2-tree) with D-mod-k routing, computed by hand. */
class FatTreeLoadsTest {
    private static final long B = 1000;

    @Test
    void allToAllOnA16NodeFatTreeGivesTheLoadsComputedByHand() {
        Fabric tree = FatTree.build(4, 2, 1);
        assertThat(tree.nodes()).hasSize(16);
        // 16 node links + 4 leaf switches × 4 up-links = 32 links.
        assertThat(tree.links()).hasSize(32);
        long[][] matrix = new long[16][16];
        for (int s = 0; s < 16; s++) {
            for (int d = 0; d < 16; d++) {
                matrix[s][d] = s == d ? 0 : B;
            }
        }
        LinkLoads loads = LinkLoads.route(tree, matrix, HostMapping.inOrder(names(16), tree));
        // By hand. Node p hangs from leaf L1-(p div 4); a leaf's up-port j leads to spine L2-j.
        // - Node link n_p — L1: up, p sends B to each of the 15 others: 15 B; down, 15 others send B to p: 15 B.
        // - Leaf L1-g — spine L2-j, up: traffic from g's 4 nodes to destinations outside g whose D-mod-k up-port is j,
        //   i.e. d mod 4 = j: one such d in each of the 3 other groups, so 4 sources × 3 destinations × B = 12 B.
        // - Spine L2-j — leaf L1-g, down: traffic to g's node d = 4g + j (the only one of g reached through L2-j) from
        //   the 12 nodes outside g: 12 B.
        // Total: 16 × 2 × 15 B + 16 × 2 × 12 B = 864 B; every route is 2 links inside a leaf (16 × 3 pairs) or 4 links
        // through a spine (16 × 12 pairs): (48 × 2 + 192 × 4) × B = 864 B as well.
        for (Fabric.Link l : tree.links()) {
            Fabric.Device a = tree.device(l.a());
            Fabric.Device b = tree.device(l.b());
            long expected = a.kind() == Fabric.Kind.ENDPOINT || b.kind() == Fabric.Kind.ENDPOINT ? 15 * B : 12 * B;
            assertThat(loads.bytes(l.id(), 0)).as("%s -> %s", a.name(), b.name()).isEqualTo(expected);
            assertThat(loads.bytes(l.id(), 1)).as("%s -> %s", b.name(), a.name()).isEqualTo(expected);
        }
        assertThat(loads.totalOnLinks()).isEqualTo(864 * B).isEqualTo(loads.byteHops());
        assertThat(loads.hottest(1).get(0)[2]).isEqualTo(15 * B);
    }

    @Test
    void dModKSendsEveryRouteToOneDestinationThroughTheSameSpine() {
        Fabric tree = FatTree.build(4, 2, 1);
        for (int d = 0; d < 16; d++) {
            for (int s = 0; s < 16; s++) {
                if (s == d) {
                    assertThat(tree.route(s, d, 0)).isEmpty();
                    continue;
                }
                if (s / 4 == d / 4) {
                    assertThat(tree.route(s, d, 0)).hasSize(2);
                    continue;
                }
                int[] route = tree.route(s, d, 0);
                assertThat(route).hasSize(4);
                Fabric.Link up = tree.links().get(route[1] / 2);
                String spine = tree.device(route[1] % 2 == 0 ? up.b() : up.a()).name();
                assertThat(spine).as("route n%d -> n%d", s, d).isEqualTo("L2-" + d % 4);
            }
        }
    }

    @Test
    void aShiftOnAThreeLevelTreeUsesEveryTopSwitchOnce() {
        // 2-ary 3-tree: 8 nodes. Shift by 4 (every route through the top): D-mod-k spreads the 8 routes over the 4 top
        // switches, 2 each, one up and one down per top link: no top link carries two routes in one direction.
        Fabric tree = FatTree.build(2, 3, 1);
        long[][] m = new long[8][8];
        for (int s = 0; s < 8; s++) {
            m[s][(s + 4) % 8] = B;
        }
        LinkLoads loads = LinkLoads.route(tree, m, HostMapping.inOrder(names(8), tree));
        for (Fabric.Link l : tree.links()) {
            assertThat(loads.bytes(l.id(), 0)).isLessThanOrEqualTo(B);
            assertThat(loads.bytes(l.id(), 1)).isLessThanOrEqualTo(B);
        }
        assertThat(loads.totalOnLinks()).isEqualTo(8 * 6 * B);
    }

    static java.util.List<String> names(int n) {
        java.util.List<String> names = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            names.add("h" + i);
        }
        return names;
    }
}
