package org.eventspace.scope;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

import org.eventspace.comm.pathmap.Host;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.Topology;
import org.eventspace.comm.pathmap.TreeShape;

/**
 * Lays an event scope over a job's pathmap: a pure function from a pathmap and a {@link ScopeSpec} to the same
 * pathmap with the scope's nodes appended (EventSpace paper §4.2: an event scope is "a spanning tree with PATHS
 * wrappers" for storage, filtering, gathering and inter-host hops). Stateless.
 *
 * <p>The scope is a tree of its own, {@value #TREE}, outside the application's trees: every scope node is a
 * pathmap root (parent −1, arity 0), so no application path reaches it and {@link Pathmap}'s checks hold as
 * before; the edges of the scope tree are in the {@value #CHILDREN} property instead, and gather wrappers open
 * their own hops to children on other hosts. The other nodes and the entries are unchanged, so collectors
 * ({@code CollectorPlacement}) and the application are unaffected, before or after.
 *
 * <p>Nodes, in the order they are appended (children before parents):
 * <ul>
 *   <li>one leaf ({@value #LEAF}, {@code <scope>.leaf.<host>}) per leaf host, level 0: it reads every trace
 *       buffer and the push buffer of its host, which is the intra-host step of the hierarchy;</li>
 *   <li>inner gathers ({@value #GATHER}, {@code <scope>.gather.<host>.<n>}), joining the shape's fan-out K of
 *       inputs at a time: {@code flat} none; {@code kary:K} leaves in the order given, level by level, until at
 *       most K are left; {@code hier:K} with one cluster the same over that cluster's leaves, with several
 *       clusters first each cluster's leaves down to one gather (intra-cluster, on the "cluster gateway" of the
 *       paper's §6.2), then the clusters' gathers until at most K are left (inter-cluster). An inner gather runs
 *       on its first input's host (the front-end's cluster and host go first in {@code hier}, so the joins
 *       drift towards the front-end), or, when the spec names extra hosts in that input's cluster, on the next
 *       of them in turn (ToM §2.4's additional resources);</li>
 *   <li>the root ({@value #GATHER}, {@code <scope>.root.<host>}) on the front-end host, gathering what is left.</li>
 * </ul>
 * Properties: {@value #SCOPE} (the scope's name), {@value #LEVEL} (0 for leaves, one more than the highest child
 * for gathers), {@value #CHILDREN} (comma-separated node ids, in gather order; empty for leaves), {@value #FILTER}
 * (the filter spec text), and on gathers {@value #GATHER_MODE} and, if the spec has one, {@value #TIMEOUT_MS}.
 */
public final class ScopeBuilder {
    public static final String GATHER = "scope.gather";
    public static final String LEAF = "scope.leaf";
    /** The tree id of scope nodes (comm's {@code Node}: -1 is point-to-point, -2 an event scope). */
    public static final int TREE = Node.SCOPE_TREE;
    public static final String SCOPE = "scope";
    public static final String LEVEL = "level";
    public static final String CHILDREN = "children";
    public static final String FILTER = "filter";
    public static final String GATHER_MODE = "gather";
    public static final String TIMEOUT_MS = "timeoutMs";

    private final Topology topology;
    private final ScopeSpec spec;
    private final List<Node> nodes;
    private final Map<Integer, Integer> gathersOnHost = new HashMap<>();
    private final Map<String, Integer> nextExtraOfCluster = new HashMap<>();
    private final Map<String, List<Integer>> extrasOfCluster = new LinkedHashMap<>();

    private ScopeBuilder(Pathmap pathmap, ScopeSpec spec) {
        this.topology = pathmap.spec().topology();
        this.spec = spec;
        this.nodes = new ArrayList<>(pathmap.nodes());
    }

    /**
     * {@code pathmap} with the nodes of {@code spec}'s scope appended.
     *
     * @throws IllegalArgumentException if a host of the spec is not in the topology, or the pathmap already has
     *                                  nodes of a scope of that name.
     */
    public static Pathmap add(Pathmap pathmap, ScopeSpec spec) {
        ScopeBuilder builder = new ScopeBuilder(pathmap, spec);
        builder.check(pathmap);
        builder.lay();
        return new Pathmap(pathmap.spec(), builder.nodes, pathmap.entries());
    }

    /** Name of the root of scope {@code scope} on the front-end host named {@code hostName}. */
    public static String rootName(String scope, String hostName) {
        return scope + ".root." + hostName;
    }

    /**
     * The root node of scope {@code scope} in {@code pathmap}.
     *
     * @throws IllegalArgumentException naming the scopes the pathmap has, if it has none of that name.
     */
    public static Node root(Pathmap pathmap, String scope) {
        List<String> scopes = new ArrayList<>();
        for (Node n : pathmap.nodes()) {
            if (n.kind().equals(GATHER) && n.tree() == TREE && scope.equals(n.properties().get(SCOPE))
                    && n.name().equals(rootName(scope, pathmap.spec().topology().host(n.host()).name()))) {
                return n;
            }
            if (n.tree() == TREE && n.properties().containsKey(SCOPE) && !scopes.contains(n.properties().get(SCOPE))) {
                scopes.add(n.properties().get(SCOPE));
            }
        }
        throw new IllegalArgumentException("the pathmap has no event scope named '" + scope + "'; scopes: " + scopes);
    }

    /** The children of scope node {@code node}, from its {@value #CHILDREN} property. */
    public static int[] children(Node node) {
        String text = node.property(CHILDREN).trim();
        if (text.isEmpty()) {
            return new int[0];
        }
        String[] parts = text.split(",");
        int[] ids = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                ids[i] = Integer.parseInt(parts[i].trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("node " + node.name() + " (" + node.kind() + "): property " + CHILDREN
                        + " must be comma-separated node ids, " + CHILDREN + "=" + text, e);
            }
        }
        return ids;
    }

    /**
     * The {@value #TIMEOUT_MS} of scope node {@code node} in ns, or {@code orElse} where it has none: the one place that
     * property is read, by the gathers and the front-end alike.
     *
     * @throws IllegalArgumentException naming the node and the value if it is not a positive number of ms.
     */
    public static long timeoutNanos(Node node, long orElse) {
        String text = node.properties().get(TIMEOUT_MS);
        if (text == null) {
            return orElse;
        }
        long nanos;
        try {
            nanos = Math.multiplyExact(Long.parseLong(text.trim()), 1_000_000L);
        } catch (NumberFormatException | ArithmeticException e) {
            nanos = -1;
        }
        if (nanos <= 0) {
            throw new IllegalArgumentException("node " + node.name() + " (" + node.kind() + "): property " + TIMEOUT_MS
                    + " must be a positive number of ms, " + TIMEOUT_MS + "=" + text);
        }
        return nanos;
    }

    /** The {@value #LEVEL} of scope node {@code node}. */
    public static int level(Node node) {
        String text = node.property(LEVEL);
        try {
            int level = Integer.parseInt(text.trim());
            if (level >= 0) {
                return level;
            }
        } catch (NumberFormatException e) {
            // Falls through to the error naming the value.
        }
        throw new IllegalArgumentException("node " + node.name() + " (" + node.kind() + "): property " + LEVEL
                + " must be an int >= 0, " + LEVEL + "=" + text);
    }

    private void check(Pathmap pathmap) {
        int hosts = topology.size();
        String where = "scope '" + spec.name() + "': ";
        if (spec.frontEnd() >= hosts) {
            throw new IllegalArgumentException(where + "front-end host " + spec.frontEnd() + " is not in the topology (hosts 0.."
                    + (hosts - 1) + ")");
        }
        for (int h : spec.leafHosts()) {
            if (h >= hosts) {
                throw new IllegalArgumentException(where + "leaf host " + h + " is not in the topology (hosts 0.." + (hosts - 1) + ")");
            }
        }
        for (int h : spec.extraHosts()) {
            if (h >= hosts) {
                throw new IllegalArgumentException(where + "extra host " + h + " is not in the topology (hosts 0.." + (hosts - 1) + ")");
            }
        }
        String prefix = spec.name() + ".";
        for (Node n : pathmap.nodes()) {
            if (n.name().startsWith(prefix)) {
                throw new IllegalArgumentException(where + "the pathmap already has node " + n.name() + "; give the scope another name");
            }
        }
    }

    private void lay() {
        for (int h : spec.extraHosts()) {
            extrasOfCluster.computeIfAbsent(topology.host(h).cluster(), c -> new ArrayList<>()).add(h);
        }
        List<Integer> leafHosts = new ArrayList<>();
        if (spec.leafHosts().isEmpty()) {
            for (Host h : topology.hosts()) {
                leafHosts.add(h.id());
            }
        } else {
            leafHosts.addAll(spec.leafHosts());
        }
        TreeShape shape = spec.shape();
        int k = shape.fanout();
        List<Input> top;
        if (shape.kind() == TreeShape.Kind.HIER) {
            Host frontEnd = topology.host(spec.frontEnd());
            Map<String, List<Input>> byCluster = new LinkedHashMap<>();
            byCluster.put(frontEnd.cluster(), new ArrayList<>());
            for (String c : topology.clusters()) {
                byCluster.putIfAbsent(c, new ArrayList<>());
            }
            if (leafHosts.remove(Integer.valueOf(frontEnd.id()))) {
                leafHosts.add(0, frontEnd.id());
            }
            for (int h : leafHosts) {
                byCluster.get(topology.host(h).cluster()).add(leaf(h));
            }
            byCluster.values().removeIf(List::isEmpty);
            if (byCluster.size() == 1) {
                top = join(byCluster.values().iterator().next(), k, k);
            } else {
                List<Input> gateways = new ArrayList<>();
                for (List<Input> cluster : byCluster.values()) {
                    gateways.add(join(cluster, k, 1).get(0));
                }
                top = join(gateways, k, k);
            }
        } else {
            List<Input> leaves = new ArrayList<>();
            for (int h : leafHosts) {
                leaves.add(leaf(h));
            }
            top = shape.kind() == TreeShape.Kind.FLAT ? leaves : join(leaves, k, k);
        }
        add(GATHER, rootName(spec.name(), topology.host(spec.frontEnd()).name()), spec.frontEnd(), top);
    }

    /** Joins {@code inputs} with gathers of fan-out {@code k}, level by level, until at most {@code leave} are left. */
    private List<Input> join(List<Input> inputs, int k, int leave) {
        List<Input> level = inputs;
        while (level.size() > leave) {
            List<Input> next = new ArrayList<>();
            for (int start = 0; start < level.size(); start += k) {
                List<Input> group = level.subList(start, (int) Math.min(level.size(), (long) start + k));
                if (group.size() == 1) {
                    next.add(group.get(0));
                    continue;
                }
                int host = gatherHost(group.get(0).host);
                int n = gathersOnHost.merge(host, 1, Integer::sum) - 1;
                next.add(add(GATHER, spec.name() + ".gather." + topology.host(host).name() + "." + n, host, group));
            }
            level = next;
        }
        return level;
    }

    /** An extra host of {@code firstInputHost}'s cluster in turn, or that host itself. */
    private int gatherHost(int firstInputHost) {
        String cluster = topology.host(firstInputHost).cluster();
        List<Integer> extras = extrasOfCluster.get(cluster);
        if (extras == null) {
            return firstInputHost;
        }
        int turn = nextExtraOfCluster.merge(cluster, 1, Integer::sum) - 1;
        return extras.get(turn % extras.size());
    }

    private Input leaf(int host) {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put(SCOPE, spec.name());
        properties.put(LEVEL, "0");
        properties.put(CHILDREN, "");
        properties.put(FILTER, spec.filterText());
        int id = nodes.size();
        nodes.add(new Node(id, spec.name() + ".leaf." + topology.host(host).name(), LEAF, TREE, host, -1, 0, 0, properties));
        return new Input(id, host, 0);
    }

    private Input add(String kind, String name, int host, List<Input> children) {
        int level = 0;
        StringJoiner ids = new StringJoiner(",");
        for (Input c : children) {
            level = Math.max(level, c.level + 1);
            ids.add(Integer.toString(c.node));
        }
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put(SCOPE, spec.name());
        properties.put(LEVEL, Integer.toString(level));
        properties.put(CHILDREN, ids.toString());
        properties.put(FILTER, spec.filterText());
        properties.put(GATHER_MODE, spec.gather().toString());
        spec.timeout().ifPresent(t -> properties.put(TIMEOUT_MS, Long.toString(Math.max(1, t.toMillis()))));
        int id = nodes.size();
        nodes.add(new Node(id, name, kind, TREE, host, -1, 0, 0, properties));
        return new Input(id, host, level);
    }

    private record Input(int node, int host, int level) {
    }
}
