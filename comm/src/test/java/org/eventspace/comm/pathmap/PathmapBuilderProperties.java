package org.eventspace.comm.pathmap;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * What {@link PathmapBuilder} promises, checked on random specs: 1–3 clusters of 1–4 hosts with 1–4 CPUs,
 * 1–40 ranks mapped block, cyclic, at random or all onto two hosts, 1–3 trees, every shape, random per-branch
 * overrides for hier trees and a random root host. The same specs check the config file's round trip and the
 * description's tree drawing.
 */
class PathmapBuilderProperties {
    enum Mapping { BLOCK, CYCLIC, RANDOM, TWO_HOSTS }

    static final List<TreeShape> SHAPES = List.of(TreeShape.FLAT, TreeShape.kary(2), TreeShape.kary(3),
            TreeShape.kary(5), TreeShape.hier(2), TreeShape.hier(3), TreeShape.parse("hier:flat"));

    @Provide
    Arbitrary<PathmapSpec> specs() {
        return Combinators.combine(Arbitraries.integers().between(1, 3), Arbitraries.integers().between(1, 4),
                Arbitraries.integers().between(1, 40), Arbitraries.integers().between(1, 3), Arbitraries.of(SHAPES),
                Arbitraries.of(Mapping.class), Arbitraries.longs()).as(PathmapBuilderProperties::spec);
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
            case TWO_HOSTS -> random.ints(ranks, 0, Math.min(2, n)).map(h -> n - 1 - h).toArray();
        };
        Map<String, TreeShape> overrides = new HashMap<>();
        if (shape.kind() == TreeShape.Kind.HIER) {
            List<String> branches = new ArrayList<>(clusters);
            hosts.forEach(h -> branches.add(h.name()));
            for (String branch : branches) {
                if (random.nextInt(4) == 0) {
                    overrides.put(branch, SHAPES.get(random.nextInt(SHAPES.size())));
                }
            }
        }
        return new PathmapSpec(new Topology(clusters, hosts), ranks, trees, shape, overrides, rankHosts,
                random.nextInt(n), 1 + random.nextInt(1 << 14));
    }

    @Property
    void everyRankHasAPathPerTreeEndingAtThatTreesCoreOnTheRootHost(@ForAll("specs") PathmapSpec spec) {
        Pathmap pathmap = PathmapBuilder.build(spec);

        for (int t = 0; t < spec.trees(); t++) {
            Node core = pathmap.root(t);
            assertThat(core.kind()).isEqualTo(PathmapBuilder.CORE);
            assertThat(core.host()).isEqualTo(spec.rootHost());
            for (int r = 0; r < spec.ranks(); r++) {
                List<Node> path = pathmap.path(t, r);
                assertThat(path.get(path.size() - 1)).isEqualTo(core);
                assertThat(path.get(0).host()).isEqualTo(spec.hostOf(r));
                int tree = t;
                assertThat(path).allSatisfy(n -> assertThat(n.tree()).isEqualTo(tree));
            }
        }
    }

    @Property
    void everyGredJoinsAtLeastTwoAndAtMostItsLevelsFanOut(@ForAll("specs") PathmapSpec spec) {
        Pathmap pathmap = PathmapBuilder.build(spec);
        Map<Integer, TreeSet<Integer>> hostsBelow = ranksBelow(pathmap, true);

        for (Node n : pathmap.nodes()) {
            if (!n.kind().equals(PathmapBuilder.GRED)) {
                continue;
            }
            assertThat(n.arity()).as(n.name()).isBetween(2, fanOutOfLevel(spec, hostsBelow.get(n.id())));
        }
    }

    /** The join a gred belongs to, told by the hosts of the ranks below it: one host, one cluster, or more. */
    static int fanOutOfLevel(PathmapSpec spec, Set<Integer> hosts) {
        if (spec.shape().kind() != TreeShape.Kind.HIER) {
            return spec.shape().fanout();
        }
        Topology topology = spec.topology();
        Set<String> clusters = new HashSet<>();
        hosts.forEach(h -> clusters.add(topology.host(h).cluster()));
        String branch = hosts.size() == 1 ? topology.host(hosts.iterator().next()).name()
                : clusters.size() == 1 ? clusters.iterator().next() : null;
        return branch == null ? spec.shape().fanout() : spec.overrides().getOrDefault(branch, spec.shape()).fanout();
    }

    @Property
    void aFlatTreeIsOneGredPerTreeJoiningEveryRank(@ForAll("specs") PathmapSpec spec) {
        PathmapSpec flat = new PathmapSpec(spec.topology(), spec.ranks(), spec.trees(), TreeShape.FLAT, Map.of(),
                spec.rankHosts(), spec.rootHost(), spec.resultWords());
        Pathmap pathmap = PathmapBuilder.build(flat);

        for (int t = 0; t < flat.trees(); t++) {
            int tree = t;
            List<Node> greds = pathmap.nodes().stream()
                    .filter(n -> n.tree() == tree && n.kind().equals(PathmapBuilder.GRED)).toList();
            if (flat.ranks() == 1) {
                assertThat(greds).isEmpty();
            } else {
                assertThat(greds).singleElement().extracting(Node::arity).isEqualTo(flat.ranks());
            }
        }
    }

    @Property
    void aKaryTreeJoinsRanksInRankOrderInAsFewLevelsAsPossible(@ForAll("specs") PathmapSpec spec) {
        if (spec.shape().kind() != TreeShape.Kind.KARY) {
            return;
        }
        Pathmap pathmap = PathmapBuilder.build(spec);
        Map<Integer, TreeSet<Integer>> ranksBelow = ranksBelow(pathmap, false);

        for (Node n : pathmap.nodes()) {
            if (n.kind().equals(PathmapBuilder.GRED)) {
                int previousMax = -1;
                for (TreeSet<Integer> port : ranksByPort(pathmap, n, ranksBelow)) {
                    assertThat(port.first()).as(n.name()).isGreaterThan(previousMax);
                    previousMax = port.last();
                }
            }
        }
        int levels = levels(spec.ranks(), spec.shape().fanout());
        for (int t = 0; t < spec.trees(); t++) {
            int most = 0;
            for (int r = 0; r < spec.ranks(); r++) {
                most = Math.max(most, greds(pathmap.path(t, r)));
            }
            assertThat(most).isEqualTo(levels);
        }
    }

    /**
     * The SMP- and cluster-aware tree (dissertation §7.1): each host's ranks are joined on the host, and the host
     * sends one message per tree — so a host with ranks has exactly one proxy per tree, carrying every rank of the
     * host, unless it is where the last join happens and also the root host. Hosts without ranks send nothing.
     */
    @Property
    void aHierTreeSendsOneHopPerTreeFromEachHostCarryingAllItsRanks(@ForAll("specs") PathmapSpec spec) {
        if (spec.shape().kind() != TreeShape.Kind.HIER) {
            return;
        }
        Pathmap pathmap = PathmapBuilder.build(spec);
        Topology topology = spec.topology();
        int lastJoinHost = lastJoinHostOf(pathmap, 0);
        assertThat(ranksOn(spec, lastJoinHost)).isNotEmpty();
        for (int t = 1; t < spec.trees(); t++) {
            assertThat(lastJoinHostOf(pathmap, t)).isEqualTo(lastJoinHost);
        }
        Map<Integer, TreeSet<Integer>> ranksBelow = ranksBelow(pathmap, false);

        for (Host h : topology.hosts()) {
            Set<Integer> ranks = ranksOn(spec, h.id());
            List<Node> proxies = pathmap.nodesOn(h.id()).stream()
                    .filter(n -> n.kind().equals(PathmapBuilder.PROXY)).toList();
            int perTree = ranks.isEmpty() || h.id() == lastJoinHost && h.id() == spec.rootHost() ? 0 : 1;
            assertThat(proxies).as("proxies on " + h.name()).hasSize(spec.trees() * perTree);
            for (Node proxy : proxies) {
                assertThat(ranksBelow.get(proxy.id())).as(proxy.name()).containsAll(ranks);
            }
        }
    }

    @Property
    void writeThenReadGivesAnEqualSpec(@ForAll("specs") PathmapSpec spec) {
        assertThat(PathmapConfig.parse(PathmapConfig.write(spec), "written.json")).isEqualTo(spec);
    }

    @Property(tries = 200)
    void theTreeDrawingNamesEveryWrapperOnce(@ForAll("specs") PathmapSpec spec) {
        Pathmap pathmap = PathmapBuilder.build(spec);
        String text = PathmapDescription.text(pathmap);
        String drawing = text.substring(text.indexOf("\nTree 0:"), text.indexOf("\nPaths, tree 0:"));

        for (Node n : pathmap.nodes()) {
            Matcher m = Pattern.compile("(?<![\\w.])" + Pattern.quote(n.name()) + "(?![\\w.])").matcher(drawing);
            int count = 0;
            while (m.find()) {
                count++;
            }
            assertThat(count).as(n.name()).isEqualTo(1);
        }
        for (int r = 0; r < spec.ranks(); r++) {
            assertThat(drawing).contains("rank " + r + " @" + spec.topology().host(spec.hostOf(r)).name() + "\n");
        }
    }

    /** Node id → ranks (or, with {@code hosts}, the hosts of those ranks) whose paths pass through it. */
    static Map<Integer, TreeSet<Integer>> ranksBelow(Pathmap pathmap, boolean hosts) {
        Map<Integer, TreeSet<Integer>> below = new HashMap<>();
        for (Entry e : pathmap.entries()) {
            int value = hosts ? pathmap.spec().hostOf(e.rank()) : e.rank();
            for (Node n : pathmap.path(e.tree(), e.rank())) {
                below.computeIfAbsent(n.id(), id -> new TreeSet<>()).add(value);
            }
        }
        return below;
    }

    static List<TreeSet<Integer>> ranksByPort(Pathmap pathmap, Node gred, Map<Integer, TreeSet<Integer>> ranksBelow) {
        List<TreeSet<Integer>> ports = new ArrayList<>();
        for (int p = 0; p < gred.arity(); p++) {
            ports.add(new TreeSet<>());
        }
        for (Node child : pathmap.children(gred.id())) {
            ports.get(child.parentPort()).addAll(ranksBelow.get(child.id()));
        }
        for (Entry e : pathmap.entriesAt(gred.id())) {
            ports.get(e.port()).add(e.rank());
        }
        return ports;
    }

    /** The host of whatever feeds tree {@code t}'s core: a proxy (from another host), a gred or a lone rank. */
    static int lastJoinHostOf(Pathmap pathmap, int t) {
        Node core = pathmap.root(t);
        List<Node> feeding = pathmap.children(core.id());
        return feeding.isEmpty() ? core.host() : feeding.get(0).host();
    }

    static Set<Integer> ranksOn(PathmapSpec spec, int host) {
        Set<Integer> ranks = new TreeSet<>();
        for (int r = 0; r < spec.ranks(); r++) {
            if (spec.hostOf(r) == host) {
                ranks.add(r);
            }
        }
        return ranks;
    }

    static int levels(int inputs, int fanout) {
        int levels = 0;
        for (long n = inputs; n > 1; n = (n + fanout - 1) / fanout) {
            levels++;
        }
        return levels;
    }

    static int greds(List<Node> path) {
        return (int) path.stream().filter(n -> n.kind().equals(PathmapBuilder.GRED)).count();
    }

    /** With the root host's branch first, no hier path visits a host, leaves it, and comes back (a WAN hop wasted). */
    @Property
    void aHierPathNeverReturnsToAHostItLeft(@ForAll("specs") PathmapSpec spec) {
        if (spec.shape().kind() != TreeShape.Kind.HIER) {
            return;
        }
        Pathmap pathmap = PathmapBuilder.build(spec);
        for (Entry e : pathmap.entries()) {
            List<Integer> hosts = new ArrayList<>();
            for (Node n : pathmap.path(e.tree(), e.rank())) {
                if (hosts.isEmpty() || hosts.get(hosts.size() - 1) != n.host()) {
                    assertThat(hosts).as("path of rank " + e.rank()).doesNotContain(n.host());
                    hosts.add(n.host());
                }
            }
        }
    }
}
