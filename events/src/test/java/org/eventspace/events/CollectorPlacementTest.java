package org.eventspace.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.eventspace.comm.pathmap.Entry;
import org.eventspace.comm.pathmap.Host;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.Topology;
import org.eventspace.comm.pathmap.TreeShape;
import org.junit.jupiter.api.Test;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link CollectorPlacement} on a shape worked by hand and on random specs (the generators mirror comm's
 * {@code PathmapBuilderProperties}: 1–3 clusters of 1–4 hosts, 1–40 ranks mapped block, cyclic or at random,
 * 1–3 trees, every shape, random per-branch overrides and root host).
 */
class CollectorPlacementTest {
    static final List<TreeShape> SHAPES = List.of(TreeShape.FLAT, TreeShape.kary(2), TreeShape.kary(3),
            TreeShape.kary(5), TreeShape.hier(2), TreeShape.hier(3), TreeShape.parse("hier:flat"));

    enum Mapping { BLOCK, CYCLIC, RANDOM }

    @Provide
    Arbitrary<PathmapSpec> specs() {
        return Combinators.combine(Arbitraries.integers().between(1, 3), Arbitraries.integers().between(1, 4),
                Arbitraries.integers().between(1, 40), Arbitraries.integers().between(1, 3), Arbitraries.of(SHAPES),
                Arbitraries.of(Mapping.class), Arbitraries.longs()).as(CollectorPlacementTest::spec);
    }

    static PathmapSpec spec(int clusterCount, int maxHostsPerCluster, int ranks, int trees, TreeShape shape,
                            Mapping mapping, long seed) {
        Random random = new Random(seed);
        List<String> clusters = new ArrayList<>();
        List<Host> hosts = new ArrayList<>();
        for (int c = 0; c < clusterCount; c++) {
            clusters.add("c" + c);
            for (int h = 1 + random.nextInt(maxHostsPerCluster); h > 0; h--) {
                hosts.add(new Host(hosts.size(), "h" + hosts.size(), "c" + c, 1 + random.nextInt(4)));
            }
        }
        int n = hosts.size();
        int[] rankHosts = switch (mapping) {
            case BLOCK -> PathmapSpec.blockMapping(ranks, n);
            case CYCLIC -> PathmapSpec.cyclicMapping(ranks, n);
            case RANDOM -> random.ints(ranks, 0, n).toArray();
        };
        Map<String, TreeShape> overrides = new HashMap<>();
        if (shape.kind() == TreeShape.Kind.HIER) {
            for (String branch : clusters) {
                if (random.nextInt(4) == 0) {
                    overrides.put(branch, SHAPES.get(random.nextInt(SHAPES.size())));
                }
            }
        }
        return new PathmapSpec(new Topology(clusters, hosts), ranks, trees, shape, overrides, rankHosts,
                random.nextInt(n), 1 + random.nextInt(1 << 10));
    }

    private static boolean isCollector(Node n) {
        return n.kind().equals(CollectorKind.NAME);
    }

    @Property
    void everyPathAlternatesCollectorAndWrapperDownToTheCore(@ForAll("specs") PathmapSpec spec) {
        Pathmap plain = PathmapBuilder.build(spec);
        Pathmap traced = CollectorPlacement.place(plain);   // its constructor ran Pathmap's validation

        for (int t = 0; t < spec.trees(); t++) {
            for (int r = 0; r < spec.ranks(); r++) {
                List<Node> path = traced.path(t, r);
                List<Node> wrappers = path.stream().filter(n -> !isCollector(n)).toList();
                assertThat(wrappers).as("tree %d rank %d keeps its wrappers", t, r).extracting(Node::id)
                        .isEqualTo(plain.path(t, r).stream().map(Node::id).toList());
                assertThat(path).hasSize(2 * wrappers.size());
                for (int i = 0; i < path.size(); i++) {
                    assertThat(isCollector(path.get(i))).as("position %d of %s", i, path).isEqualTo(i % 2 == 0);
                }
                for (int i = 0; i + 1 < path.size(); i++) {
                    Node n = path.get(i);
                    if (n.kind().equals(PathmapBuilder.PROXY)) {
                        // the collector the hop's service thread runs first is on the far side
                        assertThat(path.get(i + 1).host()).isEqualTo(path.get(i + 2).host()).isNotEqualTo(n.host());
                    }
                }
            }
        }
    }

    @Property
    void oneCollectorPerEdgeUniqueIdsAndNamesAndTheOriginalNodesKeepTheirIds(@ForAll("specs") PathmapSpec spec) {
        Pathmap plain = PathmapBuilder.build(spec);
        Pathmap traced = CollectorPlacement.place(plain);

        int edges = plain.entries().size() + (int) plain.nodes().stream().filter(n -> !n.isRoot()).count();
        assertThat(CollectorPlacement.count(traced)).isEqualTo(edges);
        assertThat(traced.nodes().size()).isEqualTo(plain.nodes().size() + edges);
        for (Node n : plain.nodes()) {
            Node kept = traced.node(n.id());
            assertThat(kept.name()).isEqualTo(n.name());
            assertThat(kept.kind()).isEqualTo(n.kind());
            assertThat(kept.host()).isEqualTo(n.host());
        }
        Set<String> names = new HashSet<>();
        Set<Integer> ids = new HashSet<>();
        int total = 0;
        for (Node n : traced.nodes()) {
            assertThat(names.add(n.name())).as("name %s unique", n.name()).isTrue();
            if (isCollector(n)) {
                total++;
                assertThat(ids.add(Integer.parseInt(n.property(CollectorKind.COLLECTOR_ID)))).isTrue();
                assertThat(n.name()).matches("t\\d+\\.ec\\.h\\d+\\.\\d+");
                Node above = traced.node(n.parent());
                assertThat(n.property(CollectorPlacement.ABOVE)).isEqualTo(above.name() + "[" + n.parentPort() + "]");
            }
        }
        assertThat(ids).hasSize(total);
        int perHost = 0;
        for (int h = 0; h < spec.topology().size(); h++) {
            perHost += CollectorPlacement.countOn(traced, h);
        }
        assertThat(perHost).isEqualTo(total);
        // placing again finds every edge taken
        assertThat(CollectorPlacement.place(traced).nodes()).isEqualTo(traced.nodes());
    }

    @Property(tries = 200)
    void kindAndTreeSelectionsStillValidate(@ForAll("specs") PathmapSpec spec, @ForAll("kindSets") Set<String> kinds) {
        Pathmap plain = PathmapBuilder.build(spec);
        CollectorSettings settings = CollectorSettings.ALL.withKinds(kinds).withTrees(Set.of(0)).withCapacity(32);
        Pathmap traced = CollectorPlacement.place(plain, settings);

        for (Node n : traced.nodes()) {
            if (!isCollector(n)) {
                continue;
            }
            assertThat(n.tree()).isZero();
            assertThat(n.property(CollectorKind.CAPACITY)).isEqualTo("32");
            Node above = traced.node(n.parent());
            List<Node> below = traced.children(n.id());
            boolean aroundEnabled = settings.around(above.kind())
                    || below.stream().anyMatch(b -> settings.around(b.kind()));
            assertThat(aroundEnabled).as("collector %s touches an enabled kind", n.name()).isTrue();
        }
        for (int t = 1; t < spec.trees(); t++) {
            for (int r = 0; r < spec.ranks(); r++) {
                assertThat(traced.path(t, r)).isEqualTo(plain.path(t, r));
            }
        }
    }

    @Provide
    Arbitrary<Set<String>> kindSets() {
        return Arbitraries.of(PathmapBuilder.GRED, PathmapBuilder.PROXY, PathmapBuilder.CORE).set().ofMinSize(0).ofMaxSize(3);
    }

    /**
     * 4 ranks on 2 hosts, hier:8, one tree, by hand: h0 joins ranks 0,1 in g0 = t0.gred.h0.0, h1 joins 2,3 in
     * g1 = t0.gred.h1.0, g1 reaches the top gred g2 = t0.gred.h0.1 through proxy t0.proxy.h1.0, g2 calls the
     * core. Edges: 4 entries, g0→g2, g1→proxy, proxy→g2, g2→core: 8 collectors, 5 on h0 and 3 on h1.
     */
    @Test
    void fourRanksOnTwoHostsHier8GetEightCollectors() {
        Pathmap plain = PathmapBuilder.build(PathmapSpec.of(Topology.simulated(1, 2, 2), 4, 1, TreeShape.hier(8)));
        Pathmap traced = CollectorPlacement.place(plain);

        assertThat(CollectorPlacement.count(traced)).isEqualTo(8);
        assertThat(CollectorPlacement.countOn(traced, 0)).isEqualTo(5);
        assertThat(CollectorPlacement.countOn(traced, 1)).isEqualTo(3);
        List<String> rank2 = traced.path(0, 2).stream().map(Node::name).toList();
        assertThat(rank2).containsExactly("t0.ec.h1.1", "t0.gred.h1.0", "t0.ec.h1.0", "t0.proxy.h1.0", "t0.ec.h0.2",
                "t0.gred.h0.1", "t0.ec.h0.1", "t0.core.h0");
        Node serving = traced.path(0, 2).get(4);
        assertThat(serving.properties()).containsEntry(CollectorPlacement.ABOVE, "t0.gred.h0.1[1]")
                .containsEntry(CollectorPlacement.BELOW, "t0.proxy.h1.0");
        Entry entry = traced.entry(0, 0);
        assertThat(traced.node(entry.node()).properties()).containsEntry(CollectorPlacement.BELOW, "rank 0")
                .containsEntry(CollectorPlacement.ABOVE, "t0.gred.h0.0[0]");
    }

    @Test
    void onlyGredsGiveContributorsAndBelowButNoServingSideOfAGredlessHop() {
        // 2 ranks on 2 hosts, flat: rank 1 enters a proxy straight to the gred on h0.
        Pathmap plain = PathmapBuilder.build(PathmapSpec.of(Topology.simulated(1, 2, 1), 2, 1, TreeShape.FLAT));
        Pathmap traced = CollectorPlacement.place(plain, CollectorSettings.ALL.withKinds(Set.of(PathmapBuilder.GRED)));

        // rank 0 → gred; proxy → gred (serving side); gred → core. Rank 1 → proxy is not around a gred.
        assertThat(CollectorPlacement.count(traced)).isEqualTo(3);
        assertThat(traced.path(0, 1).get(0).kind()).isEqualTo(PathmapBuilder.PROXY);
    }

    @Test
    void settingsAreCheckedAtTheEdge() {
        assertThatThrownBy(() -> CollectorSettings.ALL.withCapacity(48)).hasMessageContaining("capacity=48");
        assertThatThrownBy(() -> CollectorSettings.ALL.withKinds(Set.of(CollectorKind.NAME))).hasMessageContaining("collector");
        assertThatThrownBy(() -> CollectorSettings.ALL.withTrees(Set.of(-1))).hasMessageContaining("trees=");
    }

    @Test
    void budgetShrinksBuffersToFitThenGrowsOnlyPastTheFloor() {
        long mib4 = EventSpace.DEFAULT_BUDGET_BYTES;
        assertThat(TraceBudget.capacityFor(6, mib4, 4096)).isEqualTo(4096);
        assertThat(TraceBudget.capacityFor(21, mib4, 4096)).isEqualTo(4096);
        assertThat(TraceBudget.capacityFor(22, mib4, 4096)).isEqualTo(2048);
        assertThat(TraceBudget.capacityFor(130, mib4, 4096)).isEqualTo(512);
        assertThat(TraceBudget.capacityFor(100_000, mib4, 4096)).isEqualTo(TraceBudget.MIN_RUN_CAPACITY);
        for (int n = 1; n <= 1310; n++) {
            int c = TraceBudget.capacityFor(n, mib4, 4096);
            assertThat(Integer.bitCount(c)).isOne();
            assertThat(n * TraceBufferLayout.bufferLength(c)).as("%d collectors of %d tuples", n, c).isLessThanOrEqualTo(mib4);
        }
    }
}
