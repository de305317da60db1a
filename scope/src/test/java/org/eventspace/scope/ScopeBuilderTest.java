package org.eventspace.scope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.PathmapDescription;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.Topology;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.events.CollectorKind;
import org.eventspace.events.CollectorPlacement;
import org.junit.jupiter.api.Test;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

class ScopeBuilderTest {
    private static Pathmap job(int clusters, int hostsPerCluster, int ranks) {
        Topology topology = Topology.simulated(clusters, hostsPerCluster, 2);
        return PathmapBuilder.build(PathmapSpec.of(topology, ranks, 2, TreeShape.hier(2)));
    }

    private static List<Node> scopeNodes(Pathmap pathmap) {
        return pathmap.nodes().stream().filter(n -> n.tree() == ScopeBuilder.TREE).toList();
    }

    private static List<Node> ofKind(Pathmap pathmap, String kind) {
        return scopeNodes(pathmap).stream().filter(n -> n.kind().equals(kind)).toList();
    }

    private static List<Node> children(Pathmap pathmap, Node n) {
        return Arrays.stream(ScopeBuilder.children(n)).mapToObj(pathmap::node).toList();
    }

    private static String cluster(Pathmap pathmap, Node n) {
        return pathmap.spec().topology().host(n.host()).cluster();
    }

    @Test
    void flatScopeIsOneLeafPerHostUnderARootOnTheFrontEnd() {
        Pathmap job = job(1, 4, 8);
        Pathmap scoped = ScopeBuilder.add(job, ScopeSpec.of("flat", "seq", "concat", 2));
        assertThat(ofKind(scoped, ScopeBuilder.LEAF)).extracting(Node::name)
                .containsExactly("scope.leaf.h0", "scope.leaf.h1", "scope.leaf.h2", "scope.leaf.h3");
        Node root = ScopeBuilder.root(scoped, "scope");
        assertThat(root.name()).isEqualTo("scope.root.h2");
        assertThat(root.host()).isEqualTo(2);
        assertThat(ofKind(scoped, ScopeBuilder.GATHER)).containsExactly(root);
        assertThat(children(scoped, root)).extracting(Node::kind).containsOnly(ScopeBuilder.LEAF).hasSize(4);
        assertThat(ScopeBuilder.level(root)).isEqualTo(1);
        assertThat(root.properties()).containsEntry(ScopeBuilder.GATHER_MODE, "seq").containsEntry(ScopeBuilder.FILTER, "concat")
                .containsEntry(ScopeBuilder.SCOPE, "scope").doesNotContainKey(ScopeBuilder.TIMEOUT_MS);
    }

    @Test
    void theJobIsUnchangedAndScopeNodesAreRootsOfTreeMinusTwo() {
        Pathmap job = CollectorPlacement.place(job(2, 2, 8));
        Pathmap scoped = ScopeBuilder.add(job, ScopeSpec.of("kary:2", "par:2", "stats", 0));
        assertThat(scoped.nodes().subList(0, job.nodes().size())).isEqualTo(job.nodes());
        assertThat(scoped.entries()).isEqualTo(job.entries());
        for (Node n : scopeNodes(scoped)) {
            assertThat(n.isRoot()).isTrue();
            assertThat(n.arity()).isZero();
            assertThat(n.id()).isGreaterThanOrEqualTo(job.nodes().size());
        }
        // Collectors placed after the scope leave it alone.
        Pathmap placedAfter = CollectorPlacement.place(ScopeBuilder.add(job(2, 2, 8), ScopeSpec.of("kary:2", "seq", "concat", 0)));
        assertThat(CollectorPlacement.count(placedAfter)).isEqualTo(CollectorPlacement.count(job));
        assertThat(scopeNodes(placedAfter)).hasSize(scopeNodes(scoped).size());
    }

    @Test
    void karyJoinsLeavesKAtATimeUntilTheRootHasAtMostK() {
        Pathmap scoped = ScopeBuilder.add(job(1, 8, 8), ScopeSpec.of("kary:2", "seq", "concat", 0));
        assertThat(ofKind(scoped, ScopeBuilder.LEAF)).hasSize(8);
        // 8 leaves → 4 gathers → 2 gathers → root with 2 children.
        assertThat(ofKind(scoped, ScopeBuilder.GATHER)).hasSize(4 + 2 + 1);
        Node root = ScopeBuilder.root(scoped, "scope");
        assertThat(ScopeBuilder.children(root)).hasSize(2);
        assertThat(ScopeBuilder.level(root)).isEqualTo(3);
        Node first = ofKind(scoped, ScopeBuilder.GATHER).get(0);
        assertThat(first.name()).isEqualTo("scope.gather.h0.0");
        assertThat(children(scoped, first)).extracting(Node::name).containsExactly("scope.leaf.h0", "scope.leaf.h1");
    }

    @Test
    void hierGathersWithinEachClusterFirstAndPutsTheFrontEndsClusterFirst() {
        // Two clusters of four hosts; the front-end is h5 in cluster c1.
        Pathmap scoped = ScopeBuilder.add(job(2, 4, 8), ScopeSpec.of("hier:2", "seq", "concat", 5));
        Node root = ScopeBuilder.root(scoped, "scope");
        assertThat(root.name()).isEqualTo("scope.root.h5");
        List<Node> gateways = children(scoped, root);
        assertThat(gateways).extracting(Node::name).containsExactly("scope.gather.h5.1", "scope.gather.h0.1");
        for (Node gather : ofKind(scoped, ScopeBuilder.GATHER)) {
            if (gather.equals(root)) {
                continue;
            }
            // Intra-cluster gathers: all children in the gather's own cluster, at most K of them.
            assertThat(children(scoped, gather)).allSatisfy(c -> assertThat(cluster(scoped, c)).isEqualTo(cluster(scoped, gather)))
                    .hasSizeLessThanOrEqualTo(2);
        }
        Node c1 = gateways.get(0);
        List<String> leavesBelow = new ArrayList<>();
        collectLeaves(scoped, c1, leavesBelow);
        assertThat(leavesBelow).containsExactly("scope.leaf.h5", "scope.leaf.h4", "scope.leaf.h6", "scope.leaf.h7");
    }

    @Test
    void hierWithOneClusterNeedsNoGatewayAboveTheClustersGathers() {
        Pathmap scoped = ScopeBuilder.add(job(1, 4, 4), ScopeSpec.of("hier:2", "seq", "concat", 0));
        // 4 leaves → 2 gathers → root (with 2 children), not a cluster gather with one child under the root.
        assertThat(ofKind(scoped, ScopeBuilder.GATHER)).hasSize(3);
        assertThat(ScopeBuilder.children(ScopeBuilder.root(scoped, "scope"))).hasSize(2);
    }

    @Test
    void extraHostsTakeTheInnerGathersOfTheirCluster() {
        // Two clusters of three hosts; ranks only on h0, h1, h3, h4; h2 and h5 are extra resources (ToM §2.4).
        Topology topology = Topology.simulated(2, 3, 2);
        Pathmap job = PathmapBuilder.build(new PathmapSpec(topology, 4, 1, TreeShape.hier(2), Map.of(),
                new int[] {0, 1, 3, 4}, 0, PathmapSpec.DEFAULT_RESULT_WORDS));
        ScopeSpec spec = ScopeSpec.builder().shape("hier:2").frontEnd(0).leafHosts(List.of(0, 1, 3, 4))
                .extraHosts(List.of(2, 5)).build();
        Pathmap scoped = ScopeBuilder.add(job, spec);
        assertThat(ofKind(scoped, ScopeBuilder.LEAF)).extracting(Node::host).containsExactly(0, 1, 3, 4);
        List<Node> inner = ofKind(scoped, ScopeBuilder.GATHER).stream().filter(n -> !n.name().startsWith("scope.root")).toList();
        assertThat(inner).extracting(Node::name).containsExactly("scope.gather.h2.0", "scope.gather.h5.0");
        assertThat(ScopeBuilder.root(scoped, "scope").host()).isZero();
    }

    @Test
    void twoScopesLiveSideBySideUnderTheirNames() {
        Pathmap one = ScopeBuilder.add(job(1, 2, 2), ScopeSpec.builder().name("stats").filter("stats").build());
        Pathmap two = ScopeBuilder.add(one, ScopeSpec.builder().name("hist").filter("hist:8").frontEnd(1).build());
        assertThat(ScopeBuilder.root(two, "stats").name()).isEqualTo("stats.root.h0");
        assertThat(ScopeBuilder.root(two, "hist").name()).isEqualTo("hist.root.h1");
        assertThatThrownBy(() -> ScopeBuilder.root(two, "lb"))
                .hasMessage("the pathmap has no event scope named 'lb'; scopes: [stats, hist]");
        assertThatThrownBy(() -> ScopeBuilder.add(two, ScopeSpec.builder().name("stats").build()))
                .hasMessage("scope 'stats': the pathmap already has node stats.leaf.h0; give the scope another name");
    }

    @Test
    void hostsOutsideTheTopologyAreRefusedByValue() {
        Pathmap job = job(1, 4, 4);
        assertThatThrownBy(() -> ScopeBuilder.add(job, ScopeSpec.of("flat", "seq", "concat", 4)))
                .hasMessage("scope 'scope': front-end host 4 is not in the topology (hosts 0..3)");
        assertThatThrownBy(() -> ScopeBuilder.add(job, ScopeSpec.builder().leafHosts(List.of(0, 9)).build()))
                .hasMessage("scope 'scope': leaf host 9 is not in the topology (hosts 0..3)");
        assertThatThrownBy(() -> ScopeBuilder.add(job, ScopeSpec.builder().extraHosts(List.of(7)).build()))
                .hasMessage("scope 'scope': extra host 7 is not in the topology (hosts 0..3)");
    }

    @Test
    void describeShowsScopeNodesWithoutBreaking() {
        Pathmap scoped = ScopeBuilder.add(CollectorPlacement.place(job(1, 3, 6)), ScopeSpec.of("kary:2", "par:2", "concat", 0));
        String text = PathmapDescription.text(scoped);
        assertThat(text).contains("scope.gather").contains("scope.leaf");
        String json = PathmapDescription.toJson(scoped);
        assertThat(json).contains("\"kind\": \"scope.gather\"").contains("\"tree\": -2");
        assertThat(scoped.depth()).isEqualTo(CollectorPlacement.place(job(1, 3, 6)).depth());
        assertThat(scoped.root(0).kind()).isEqualTo(PathmapBuilder.CORE);
        assertThat(scoped.nodes().stream().filter(n -> n.kind().equals(CollectorKind.NAME))).isNotEmpty();
    }

    @Property(tries = 200)
    void everyShapeMakesOneTreeOverEveryLeafHost(@ForAll @IntRange(min = 1, max = 3) int clusters,
                                                  @ForAll @IntRange(min = 1, max = 5) int hostsPerCluster,
                                                  @ForAll @IntRange(min = 0, max = 6) int shapeIndex,
                                                  @ForAll @IntRange(min = 0, max = 14) int frontEndSeed) {
        String shape = List.of("flat", "binary", "kary:3", "kary:4", "hier:2", "hier:3", "hier:flat").get(shapeIndex);
        int hosts = clusters * hostsPerCluster;
        int frontEnd = frontEndSeed % hosts;
        Pathmap scoped = ScopeBuilder.add(job(clusters, hostsPerCluster, hosts), ScopeSpec.of(shape, "seq", "concat", frontEnd));
        TreeShape treeShape = TreeShape.parse(shape);
        Node root = ScopeBuilder.root(scoped, "scope");
        assertThat(root.host()).isEqualTo(frontEnd);
        Map<Integer, Integer> parents = new HashMap<>();
        for (Node g : ofKind(scoped, ScopeBuilder.GATHER)) {
            int[] ids = ScopeBuilder.children(g);
            assertThat(ids.length).isBetween(1, treeShape.fanout());
            if (!g.equals(root)) {
                assertThat(ids.length).as("an inner gather joins at least two").isGreaterThanOrEqualTo(2);
            }
            int maxChildLevel = -1;
            for (int id : ids) {
                assertThat(id).isLessThan(g.id());
                Node c = scoped.node(id);
                assertThat(c.tree()).isEqualTo(ScopeBuilder.TREE);
                assertThat(parents.put(id, g.id())).as("%s has one parent", c.name()).isNull();
                maxChildLevel = Math.max(maxChildLevel, ScopeBuilder.level(c));
            }
            assertThat(ScopeBuilder.level(g)).isEqualTo(maxChildLevel + 1);
        }
        Set<Integer> leafHosts = new HashSet<>();
        for (Node n : scopeNodes(scoped)) {
            if (!n.equals(root)) {
                assertThat(parents).as("%s is gathered", n.name()).containsKey(n.id());
            }
            if (n.kind().equals(ScopeBuilder.LEAF)) {
                assertThat(leafHosts.add(n.host())).isTrue();
            }
        }
        assertThat(leafHosts).hasSize(hosts);
        if (treeShape.kind() == TreeShape.Kind.HIER) {
            // Intra-cluster before inter-cluster: a gather whose leaves span clusters joins whole clusters only.
            for (Node g : ofKind(scoped, ScopeBuilder.GATHER)) {
                if (clustersBelow(scoped, g).size() < 2) {
                    continue;
                }
                for (Node c : children(scoped, g)) {
                    List<String> leaves = new ArrayList<>();
                    collectLeaves(scoped, c, leaves);
                    for (String cl : clustersBelow(scoped, c)) {
                        assertThat(leaves).as("%s under %s holds all of cluster %s", c.name(), g.name(), cl)
                                .hasSize(leaves.size()).containsAll(leavesOfCluster(scoped, cl));
                    }
                }
            }
        }
    }

    private static Set<String> clustersBelow(Pathmap pathmap, Node n) {
        List<String> leaves = new ArrayList<>();
        collectLeaves(pathmap, n, leaves);
        Set<String> clusters = new HashSet<>();
        for (Node leaf : ofKind(pathmap, ScopeBuilder.LEAF)) {
            if (leaves.contains(leaf.name())) {
                clusters.add(cluster(pathmap, leaf));
            }
        }
        return clusters;
    }

    private static List<String> leavesOfCluster(Pathmap pathmap, String cluster) {
        return ofKind(pathmap, ScopeBuilder.LEAF).stream().filter(l -> cluster(pathmap, l).equals(cluster)).map(Node::name).toList();
    }

    private static void collectLeaves(Pathmap pathmap, Node n, List<String> into) {
        if (n.kind().equals(ScopeBuilder.LEAF)) {
            into.add(n.name());
            return;
        }
        for (Node c : children(pathmap, n)) {
            collectLeaves(pathmap, c, into);
        }
    }
}
