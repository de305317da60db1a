package org.eventspace.comm.pathmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * Building a pathmap and asking it for every node's children and entries is linear: proved by counting the
 * nodes, entries and ranks looked at, not by timing (a scan per lookup made collector set-up quadratic).
 */
class PathmapIndexTest {
    private static Pathmap pathmap(int ranks, int hosts) {
        return PathmapBuilder.build(PathmapSpec.of(Topology.simulated(hosts, 1, 4), ranks, 2, TreeShape.parse("kary:4")));
    }

    /** Visits of one lookup of every node's children, entries and host, divided by the pathmap's size. */
    private static double visitsPerElement(Pathmap p) {
        p.visits = 0;
        for (Node n : p.nodes()) {
            p.children(n.id());
            p.entriesAt(n.id());
        }
        for (int h = 0; h < p.spec().topology().size(); h++) {
            p.nodesOn(h);
        }
        return (double) p.visits / (p.nodes().size() + p.entries().size());
    }

    @Test
    void lookingUpEveryNodesChildrenAndEntriesVisitsEachElementAConstantNumberOfTimes() {
        Pathmap small = pathmap(256, 16);
        Pathmap large = pathmap(4096, 256);
        assertThat(visitsPerElement(small)).isLessThanOrEqualTo(2.0);
        // With a scan per lookup this ratio grows with the node count (16 times more nodes: 16 times the ratio).
        assertThat(visitsPerElement(large)).isLessThanOrEqualTo(2.0);
    }

    @Test
    void theIndexesAnswerWhatAScanWould() {
        Pathmap p = pathmap(300, 7);
        for (Node n : p.nodes()) {
            List<Node> scanned = new ArrayList<>();
            for (Node c : p.nodes()) {
                if (c.parent() == n.id()) {
                    scanned.add(c);
                }
            }
            scanned.sort((a, b) -> Integer.compare(a.parentPort(), b.parentPort()));
            assertThat(p.children(n.id())).isEqualTo(scanned);
            assertThat(p.entriesAt(n.id())).isEqualTo(p.entries().stream().filter(e -> e.node() == n.id()).toList());
        }
        for (int h = 0; h < 7; h++) {
            int host = h;
            assertThat(p.nodesOn(h)).isEqualTo(p.nodes().stream().filter(n -> n.host() == host).toList());
        }
        for (int t = 0; t < 2; t++) {
            assertThat(p.root(t).kind()).isEqualTo(PathmapBuilder.CORE);
            assertThat(p.root(t).tree()).isEqualTo(t);
        }
    }

    @Test
    void theBuilderGroupsRanksByHostOnceNotOncePerHost() {
        // hier trees join each host's ranks: a scan of all ranks per host looks at ranks x hosts ranks.
        PathmapSpec spec = PathmapSpec.of(Topology.simulated(4, 256, 4), 4096, 2, TreeShape.parse("hier:8"));
        PathmapBuilder builder = new PathmapBuilder(spec);
        Pathmap p = builder.buildAll();
        assertThat(p.entries()).hasSize(2 * 4096);
        // once to group them, once per tree to join them
        assertThat(builder.rankVisits).isEqualTo(4096L + 2 * 4096L);
    }

    @Test
    void aPathmapThatCouldExceedTheNodeLimitIsRefusedBeforeItIsBuilt() {
        PathmapSpec spec = PathmapSpec.of(Topology.simulated(1, 64, 4), PathmapConfig.MAX_RANKS, PathmapConfig.MAX_TREES,
                TreeShape.parse("hier:8"));
        assertThatThrownBy(() -> PathmapBuilder.build(spec)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ranks=1048576").hasMessageContaining("trees=256")
                .hasMessageContaining("up to " + PathmapBuilder.maxNodes(spec) + " nodes")
                .hasMessageContaining("limit of " + PathmapBuilder.MAX_NODES);
        // The largest documented rank count still fits in the limit with one tree; two are refused.
        assertThat(PathmapBuilder.maxNodes(PathmapSpec.of(Topology.simulated(1, 64, 4), PathmapConfig.MAX_RANKS, 1,
                TreeShape.parse("hier:8")))).isLessThanOrEqualTo(PathmapBuilder.MAX_NODES);
        assertThat(PathmapBuilder.maxNodes(PathmapSpec.of(Topology.simulated(1, 64, 4), PathmapConfig.MAX_RANKS, 2,
                TreeShape.parse("hier:8")))).isGreaterThan(PathmapBuilder.MAX_NODES);
    }
}
