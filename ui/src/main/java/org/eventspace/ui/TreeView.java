package org.eventspace.ui;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.eventspace.comm.pathmap.Entry;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One tree of a pathmap as people draw it: ranks, greds, proxies and the core, each with its host, and the event
 * collectors between them elided (they are on every edge and add nothing to the picture). Each drawn node knows the gred
 * and port its chain enters below it: where the monitors' per-port figures of that node live (a proxy and the gred
 * behind it feed the same port). Immutable; built once per tree and cached by the sampler.
 *
 * <p>JSON ({@code GET /api/v1/tree}): {@code tree}, {@code trees}, {@code hosts}, {@code ranks}, and {@code nodes}, root
 * first, each {@code id} (the pathmap's node name, or {@code rank N}), {@code kind} ({@code core|gred|proxy|rank}),
 * {@code host}, {@code parent} (a drawn node's id, null at the root), {@code gred} and {@code port} (where it enters,
 * null at the root), {@code rank} (rank nodes only).
 */
public final class TreeView {
    /** A drawn node. {@code gred}/{@code port}: the gred below and the port this node's chain feeds; null/-1 at the root. */
    public record Drawn(String id, String kind, int host, String parent, String gred, int port, int rank) {
    }

    private final int tree;
    private final int trees;
    private final int hosts;
    private final int ranks;
    private final List<Drawn> nodes;
    private final Map<String, Drawn> byId = new HashMap<>();

    private TreeView(int tree, int trees, int hosts, int ranks, List<Drawn> nodes) {
        this.tree = tree;
        this.trees = trees;
        this.hosts = hosts;
        this.ranks = ranks;
        this.nodes = List.copyOf(nodes);
        for (Drawn d : nodes) {
            byId.put(d.id(), d);
        }
    }

    /** The drawn view of {@code tree} of {@code pathmap}. */
    public static TreeView of(Pathmap pathmap, int tree) {
        int trees = pathmap.spec().trees();
        if (tree < 0 || tree >= trees) {
            throw new IllegalArgumentException("tree must be 0.." + (trees - 1) + ", got " + tree);
        }
        List<Drawn> out = new ArrayList<>();
        Node root = pathmap.root(tree);
        out.add(new Drawn(root.name(), root.kind(), root.host(), null, null, -1, -1));
        walk(pathmap, tree, root, root.name(), null, -1, out, 0);
        return new TreeView(tree, trees, pathmap.spec().topology().hosts().size(), pathmap.spec().ranks(), out);
    }

    /**
     * Adds what hangs below {@code n}: drawn nodes get {@code drawnParent}; {@code gred}/{@code port} is where the chain
     * through {@code n} enters (updated when {@code n} is itself a gred).
     */
    private static void walk(Pathmap pathmap, int tree, Node n, String drawnParent, String gred, int port, List<Drawn> out,
                             int depth) {
        if (depth > pathmap.nodes().size()) {
            throw new IllegalStateException("tree " + tree + " has a cycle at " + n.name());
        }
        boolean isGred = n.kind().equals(PathmapBuilder.GRED);
        for (Node child : pathmap.children(n.id())) {
            String g = isGred ? n.name() : gred;
            int p = isGred ? child.parentPort() : port;
            if (drawn(child)) {
                out.add(new Drawn(child.name(), child.kind(), child.host(), drawnParent, g, p, -1));
                walk(pathmap, tree, child, child.name(), g, p, out, depth + 1);
            } else {
                walk(pathmap, tree, child, drawnParent, g, p, out, depth + 1);
            }
        }
        for (Entry e : pathmap.entriesAt(n.id())) {
            if (e.tree() == tree) {
                String g = isGred ? n.name() : gred;
                int p = isGred ? e.port() : port;
                out.add(new Drawn("rank " + e.rank(), "rank", n.host(), drawnParent, g, p, e.rank()));
            }
        }
    }

    private static boolean drawn(Node n) {
        return n.kind().equals(PathmapBuilder.GRED) || n.kind().equals(PathmapBuilder.PROXY)
                || n.kind().equals(PathmapBuilder.CORE);
    }

    public int tree() {
        return tree;
    }

    public List<Drawn> nodes() {
        return nodes;
    }

    /** The drawn node {@code id}, or null. */
    public Drawn node(String id) {
        return byId.get(id);
    }

    /** The drawn nodes from {@code id} down to the root, {@code id} first. */
    public List<Drawn> pathToRoot(String id) {
        List<Drawn> path = new ArrayList<>();
        for (Drawn d = byId.get(id); d != null && path.size() <= nodes.size(); d = d.parent() == null ? null : byId.get(d.parent())) {
            path.add(d);
        }
        return path;
    }

    public ObjectNode toJson(ObjectMapper json) {
        List<NodeJson> list = new ArrayList<>(nodes.size());
        for (Drawn d : nodes) {
            boolean root = d.parent() == null;
            list.add(new NodeJson(d.id(), d.kind(), d.host(), d.parent(), root ? null : d.gred(), root ? null : d.port(),
                    d.rank() >= 0 ? d.rank() : null));
        }
        return json.valueToTree(new View(DashboardFrames.SCHEMA, tree, trees, hosts, ranks, list));
    }

    /** The {@code /api/tree} document. */
    @JsonPropertyOrder({"schema", "tree", "trees", "hosts", "ranks", "nodes"})
    record View(String schema, int tree, int trees, int hosts, int ranks, List<NodeJson> nodes) {
    }

    /** A node of {@link View}: {@code parent}, {@code gred} and {@code port} null at the root; {@code rank} on rank nodes only. */
    @JsonPropertyOrder({"id", "kind", "host", "parent", "gred", "port", "rank"})
    record NodeJson(String id, String kind, int host, String parent, String gred, Integer port,
                    @JsonInclude(JsonInclude.Include.NON_NULL) Integer rank) {
    }
}
