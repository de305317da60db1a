package org.eventspace.comm.pathmap;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Lays the trees of a {@link PathmapSpec} over its topology.
 *
 * <p>A {@code flat} tree joins every rank in one gred; {@code kary:K} joins ranks in rank order K at a time,
 * level by level, ignoring where they run; {@code hier:K} joins the ranks of each host first (K at a time),
 * then the hosts of each cluster, then the clusters, so the fewest messages cross hosts and clusters
 * (dissertation §7.1: SMP-aware trees). A per-branch override replaces the shape of one host's or one
 * cluster's join. A gred runs on the host of its first contributor; every edge that crosses hosts gets a
 * proxy on the caller's side. The root of every tree is a core wrapper storing into element
 * {@code t<tree>.result} on the root host.
 *
 * <p>A pathmap is refused before it is built if it could have more than {@value #MAX_NODES} nodes
 * ({@link #maxNodes}): within the configuration's own limits (2^20 ranks, 256 trees) a pathmap can need billions
 * of nodes, and building one would end in an OutOfMemoryError instead of a message.
 */
public final class PathmapBuilder {
    public static final String GRED = "gred";
    public static final String PROXY = "proxy";
    public static final String CORE = "core";
    /** A butterfly's exchange wrapper, one per host and tree: recursive doubling with the other hosts' exchanges. */
    public static final String EXCHANGE = "exchange";
    /** Node property of an exchange: its place 0..n-1 among the tree's exchanges (hosts with ranks, in host order). */
    public static final String EXCHANGE_INDEX = "index";
    public static final String ELEMENT = "element";
    public static final String RESULT_WORDS = "maxWords";

    /**
     * Most nodes a pathmap may have: 2^22, room for one tree of the largest documented rank count (2^20, at most
     * 3·2^20 − 1 nodes a tree). Measured: describing that pathmap takes about 4 GB, within the default heap of
     * the 24 GB machines we run on; two such trees would not be.
     */
    public static final long MAX_NODES = 1L << 22;

    private final PathmapSpec spec;
    /** The ranks of each host in rank order, listed once per build (a scan of all ranks per host was quadratic). */
    private final List<List<Integer>> ranksByHost = new ArrayList<>();
    /** Ranks looked at while grouping them by host: lets a test prove that linear without timing. */
    long rankVisits;
    private final List<MutableNode> nodes = new ArrayList<>();
    private final List<Entry> entries = new ArrayList<>();
    /** "tree.kind.host" → wrappers of that kind made so far: the n of their names, without rescanning nodes. */
    private final Map<String, Integer> madeSoFar = new HashMap<>();
    private int tree;

    PathmapBuilder(PathmapSpec spec) {
        this.spec = spec;
    }

    /**
     * @throws IllegalArgumentException naming ranks, trees, the estimated node count and {@link #MAX_NODES} if the
     *                                  pathmap could exceed it; nothing is built then.
     */
    public static Pathmap build(PathmapSpec spec) {
        return new PathmapBuilder(spec).buildAll();
    }

    /**
     * An upper bound of the nodes of {@code spec}'s pathmap: per tree at most ranks − 1 greds (each joins at
     * least two inputs), one proxy per edge (ranks + greds edges) and one core, so 3·ranks − 1; a butterfly at most
     * one gred, an exchange and a core per rank (a host of one rank has all three), 3·ranks.
     */
    public static long maxNodes(PathmapSpec spec) {
        return (long) spec.trees() * (3L * spec.ranks() - (butterfly(spec) ? 0 : 1));
    }

    Pathmap buildAll() {
        long estimate = maxNodes(spec);
        if (estimate > MAX_NODES) {
            throw new IllegalArgumentException("a pathmap of ranks=" + spec.ranks() + ", trees=" + spec.trees()
                    + " could need up to " + estimate + " nodes (3 x ranks" + (butterfly(spec) ? "" : " - 1")
                    + " per tree), more than the limit of "
                    + MAX_NODES + " nodes; use fewer ranks or trees");
        }
        PathmapBuilder builder = this;
        for (int h = 0; h < spec.topology().size(); h++) {
            ranksByHost.add(new ArrayList<>());
        }
        for (int r = 0; r < spec.ranks(); r++) {
            ranksByHost.get(spec.hostOf(r)).add(r);
            rankVisits++;
        }
        for (int t = 0; t < spec.trees(); t++) {
            builder.tree = t;
            builder.buildTree();
        }
        List<Node> frozen = new ArrayList<>();
        for (MutableNode n : builder.nodes) {
            frozen.add(n.freeze());
        }
        return new Pathmap(spec, frozen, builder.entries);
    }

    private static boolean butterfly(PathmapSpec spec) {
        return spec.shape().kind() == TreeShape.Kind.BUTTERFLY;
    }

    /** The element that tree {@code tree}'s results are stored in. */
    public static String resultElement(int tree) {
        return "t" + tree + ".result";
    }

    private void buildTree() {
        if (spec.shape().kind() == TreeShape.Kind.BUTTERFLY) {
            buildButterfly();
            return;
        }
        Topology topology = spec.topology();
        List<Input> top;
        if (spec.shape().kind() == TreeShape.Kind.HIER) {
            // The root host's branch goes first at every level: a join's gred runs on its first contributor's
            // host, so the last join then happens on the root host and no path leaves it only to come back.
            Host rootHost = topology.host(spec.rootHost());
            List<String> clusters = new ArrayList<>(topology.clusters());
            clusters.remove(rootHost.cluster());
            clusters.add(0, rootHost.cluster());
            List<Host> hosts = new ArrayList<>(topology.hosts());
            hosts.remove(rootHost);
            hosts.add(0, rootHost);
            // Hosts grouped by cluster once, in the order above (a scan of every host per cluster was quadratic).
            Map<String, List<Host>> hostsOf = new HashMap<>();
            for (Host host : hosts) {
                hostsOf.computeIfAbsent(host.cluster(), c -> new ArrayList<>()).add(host);
            }
            List<Input> clusterOutputs = new ArrayList<>();
            for (String cluster : clusters) {
                List<Input> hostOutputs = new ArrayList<>();
                for (Host host : hostsOf.getOrDefault(cluster, List.of())) {
                    List<Input> ranks = ranksOn(host.id());
                    if (!ranks.isEmpty()) {
                        hostOutputs.add(join(ranks, shapeFor(host.name())));
                    }
                }
                if (!hostOutputs.isEmpty()) {
                    clusterOutputs.add(join(hostOutputs, shapeFor(cluster)));
                }
            }
            top = List.of(join(clusterOutputs, spec.shape()));
        } else {
            List<Input> all = new ArrayList<>();
            for (int r = 0; r < spec.ranks(); r++) {
                all.add(Input.rank(r, spec.hostOf(r)));
            }
            top = List.of(join(all, spec.shape()));
        }
        int core = add(CORE, spec.rootHost(), 1, Map.of(ELEMENT, resultElement(tree),
                RESULT_WORDS, Integer.toString(spec.resultWords())));
        connect(top.get(0), core, 0);
    }

    /**
     * Per host with ranks: its ranks joined (greds of the shape's fan-out, or the host's override; a gred of one port for
     * one rank), then its exchange, which calls a core of its own: every host stores the whole result, as a root.
     */
    private void buildButterfly() {
        int index = 0;
        for (Host host : spec.topology().hosts()) {
            List<Input> ranks = ranksOn(host.id());
            if (ranks.isEmpty()) {
                continue;
            }
            // One gred per host even for one rank: the gred is where the host's collectors meet and where coscheduling
            // releases its analysis threads (a join of one is a write of its join line and a release).
            Input local = ranks.size() == 1 ? joinOne(ranks.get(0)) : join(ranks, shapeFor(host.name()));
            int exchange = add(EXCHANGE, host.id(), 1, Map.of(EXCHANGE_INDEX, Integer.toString(index++)));
            connect(local, exchange, 0);
            int core = add(CORE, host.id(), 1, Map.of(ELEMENT, resultElement(tree),
                    RESULT_WORDS, Integer.toString(spec.resultWords())));
            nodes.get(exchange).parent = core;
            nodes.get(exchange).parentPort = 0;
        }
    }

    private Input joinOne(Input rank) {
        int gred = add(GRED, rank.host, 1, Map.of());
        connect(rank, gred, 0);
        return Input.node(gred, rank.host);
    }

    private TreeShape shapeFor(String branch) {
        return spec.overrides().getOrDefault(branch, spec.shape());
    }

    private List<Input> ranksOn(int host) {
        List<Integer> ranks = ranksByHost.get(host);
        List<Input> list = new ArrayList<>(ranks.size());
        for (int r : ranks) {
            list.add(Input.rank(r, host));
            rankVisits++;
        }
        return list;
    }

    /** Joins inputs with greds of the shape's fan-out, level by level, and returns the one output left. */
    private Input join(List<Input> inputs, TreeShape shape) {
        int k = shape.fanout();
        List<Input> level = inputs;
        while (level.size() > 1) {
            List<Input> next = new ArrayList<>();
            for (int start = 0; start < level.size(); start += k) {
                List<Input> group = level.subList(start, (int) Math.min(level.size(), (long) start + k));
                if (group.size() == 1) {
                    next.add(group.get(0));
                    continue;
                }
                int gred = add(GRED, group.get(0).host, group.size(), Map.of());
                for (int port = 0; port < group.size(); port++) {
                    connect(group.get(port), gred, port);
                }
                next.add(Input.node(gred, group.get(0).host));
            }
            level = next;
        }
        return level.get(0);
    }

    private void connect(Input in, int parent, int port) {
        MutableNode target = nodes.get(parent);
        if (in.host != target.host) {
            int proxy = add(PROXY, in.host, 1, Map.of());
            nodes.get(proxy).parent = parent;
            nodes.get(proxy).parentPort = port;
            connect(in, proxy, 0);
        } else if (in.rank >= 0) {
            entries.add(new Entry(tree, in.rank, parent, port));
        } else {
            nodes.get(in.node).parent = parent;
            nodes.get(in.node).parentPort = port;
        }
    }

    private int add(String kind, int host, int arity, Map<String, String> properties) {
        int id = nodes.size();
        String hostName = spec.topology().host(host).name();
        int sameKind = madeSoFar.merge(tree + "." + kind + "." + host, 1, Integer::sum) - 1;
        String name = "t" + tree + "." + kind + "." + hostName + (kind.equals(CORE) ? "" : "." + sameKind);
        nodes.add(new MutableNode(id, name, kind, tree, host, arity, properties));
        return id;
    }

    private record Input(int rank, int node, int host) {
        static Input rank(int rank, int host) {
            return new Input(rank, -1, host);
        }

        static Input node(int node, int host) {
            return new Input(-1, node, host);
        }
    }

    private static final class MutableNode {
        final int id;
        final String name;
        final String kind;
        final int tree;
        final int host;
        final int arity;
        final Map<String, String> properties;
        int parent = -1;
        int parentPort;

        MutableNode(int id, String name, String kind, int tree, int host, int arity, Map<String, String> properties) {
            this.id = id;
            this.name = name;
            this.kind = kind;
            this.tree = tree;
            this.host = host;
            this.arity = arity;
            this.properties = properties;
        }

        Node freeze() {
            return new Node(id, name, kind, tree, host, parent, parentPort, arity, properties);
        }
    }
}
