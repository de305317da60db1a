package org.eventspace.comm.pathmap;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Every wrapper of every tree, the host it runs on, and where each rank's path starts.
 *
 * <p>Immutable and checked on construction: node ids are their indices, every non-proxy node runs on its
 * parent's host, every proxy forwards to another host, every port is fed exactly once, and each tree has one
 * root. Later layers (collectors, scopes) make new pathmaps from old ones by listing new nodes and entries.
 */
public final class Pathmap {
    private final PathmapSpec spec;
    private final List<Node> nodes;
    private final List<Entry> entries;
    private final int[][] entryIndex;

    public Pathmap(PathmapSpec spec, List<Node> nodes, List<Entry> entries) {
        this.spec = spec;
        this.nodes = List.copyOf(nodes);
        this.entries = List.copyOf(entries);
        this.entryIndex = new int[spec.trees()][spec.ranks()];
        validate();
    }

    public PathmapSpec spec() {
        return spec;
    }

    public List<Node> nodes() {
        return nodes;
    }

    public Node node(int id) {
        return nodes.get(id);
    }

    public List<Entry> entries() {
        return entries;
    }

    public Entry entry(int tree, int rank) {
        return entries.get(entryIndex[tree][rank]);
    }

    public List<Node> nodesOn(int host) {
        List<Node> list = new ArrayList<>();
        for (Node n : nodes) {
            if (n.host() == host) {
                list.add(n);
            }
        }
        return list;
    }

    /** The root (core) node of {@code tree}. */
    public Node root(int tree) {
        for (Node n : nodes) {
            if (n.tree() == tree && n.isRoot()) {
                return n;
            }
        }
        throw new IllegalStateException("tree " + tree + " has no root");
    }

    /** The nodes a rank's path passes through, from its entry down to the root. */
    public List<Node> path(int tree, int rank) {
        List<Node> path = new ArrayList<>();
        for (int id = entry(tree, rank).node(); id >= 0; id = nodes.get(id).parent()) {
            path.add(nodes.get(id));
        }
        return Collections.unmodifiableList(path);
    }

    /** Nodes whose parent is {@code id}, ordered by the port they feed. */
    public List<Node> children(int id) {
        List<Node> list = new ArrayList<>();
        for (Node n : nodes) {
            if (n.parent() == id) {
                list.add(n);
            }
        }
        list.sort((a, b) -> Integer.compare(a.parentPort(), b.parentPort()));
        return list;
    }

    /** Ranks whose path enters at node {@code id} in {@code tree}. */
    public List<Entry> entriesAt(int id) {
        List<Entry> list = new ArrayList<>();
        for (Entry e : entries) {
            if (e.node() == id) {
                list.add(e);
            }
        }
        return list;
    }

    /**
     * Threads of the whole job that may run or poll at once: every rank, and the service thread of every hop
     * (proxy). What a wait policy needs to know to choose between spinning and parking.
     */
    public int busyThreads() {
        int hops = 0;
        for (Node n : nodes) {
            if (n.kind().equals(PathmapBuilder.PROXY)) {
                hops++;
            }
        }
        return spec.ranks() + hops;
    }

    /** Longest path, in wrappers, over all ranks and trees. */
    public int depth() {
        int depth = 0;
        for (Entry e : entries) {
            depth = Math.max(depth, path(e.tree(), e.rank()).size());
        }
        return depth;
    }

    private void validate() {
        int[][] fed = new int[nodes.size()][];
        for (int i = 0; i < nodes.size(); i++) {
            Node n = nodes.get(i);
            if (n.id() != i) {
                throw new IllegalArgumentException("node " + n.name() + " has id " + n.id() + " at index " + i);
            }
            if (n.host() < 0 || n.host() >= spec.topology().size()) {
                throw new IllegalArgumentException("node " + n.name() + " is on unknown host " + n.host());
            }
            fed[i] = new int[n.arity()];
        }
        for (Node n : nodes) {
            if (n.isRoot()) {
                continue;
            }
            if (n.parent() >= nodes.size()) {
                throw new IllegalArgumentException("node " + n.name() + " has unknown parent " + n.parent());
            }
            Node p = nodes.get(n.parent());
            boolean crosses = p.host() != n.host();
            if (crosses != n.kind().equals("proxy")) {
                throw new IllegalArgumentException("node " + n.name() + " on host " + n.host() + " calls " + p.name()
                        + " on host " + p.host() + (crosses ? " without a proxy" : " through a proxy on the same host"));
            }
            feed(fed, p, n.parentPort(), n.name());
        }
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            Node n = nodes.get(e.node());
            if (n.host() != spec.hostOf(e.rank())) {
                throw new IllegalArgumentException("rank " + e.rank() + " runs on host " + spec.hostOf(e.rank())
                        + " but its path starts at " + n.name() + " on host " + n.host());
            }
            feed(fed, n, e.port(), "rank " + e.rank());
            entryIndex[e.tree()][e.rank()] = i;
        }
        if (entries.size() != spec.trees() * spec.ranks()) {
            throw new IllegalArgumentException("expected a path for each of " + spec.ranks() + " ranks in each of "
                    + spec.trees() + " trees, found " + entries.size());
        }
        for (int i = 0; i < nodes.size(); i++) {
            for (int port = 0; port < fed[i].length; port++) {
                if (fed[i][port] != 1) {
                    throw new IllegalArgumentException("port " + port + " of " + nodes.get(i).name() + " is fed "
                            + fed[i][port] + " times, expected once");
                }
            }
        }
    }

    private static void feed(int[][] fed, Node target, int port, String by) {
        if (port < 0 || port >= fed[target.id()].length) {
            throw new IllegalArgumentException(by + " feeds port " + port + " of " + target.name() + ", which has "
                    + fed[target.id()].length + " ports");
        }
        fed[target.id()][port]++;
    }
}
