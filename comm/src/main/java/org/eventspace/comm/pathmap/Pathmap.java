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
 *
 * <p>Lookups by node, host and tree ({@link #children}, {@link #entriesAt}, {@link #nodesOn}, {@link #root}) are
 * answered from indexes built once here, in time linear in the nodes and entries: callers ask them once per node
 * (collector set-up asks for every collector's callers), so a scan per lookup made set-up quadratic.
 */
public final class Pathmap {
    private final PathmapSpec spec;
    private final List<Node> nodes;
    private final List<Entry> entries;
    private final int[][] entryIndex;
    /** Children of node i: childIds[childStart[i] .. childStart[i + 1]), in port order. */
    private final int[] childStart;
    private final int[] childIds;
    /** Entries at node i: entryIds[entryStart[i] .. entryStart[i + 1]), indexes into {@link #entries}. */
    private final int[] entryStart;
    private final int[] entryIds;
    /** Nodes on host h: hostNodeIds[hostStart[h] .. hostStart[h + 1]), in id order. */
    private final int[] hostStart;
    private final int[] hostNodeIds;
    /** Root node of tree t, or -1. */
    private final int[] roots;
    /** Nodes and entries touched by index building and lookups: lets a test prove them linear without timing. */
    long visits;

    public Pathmap(PathmapSpec spec, List<Node> nodes, List<Entry> entries) {
        this.spec = spec;
        this.nodes = List.copyOf(nodes);
        this.entries = List.copyOf(entries);
        this.entryIndex = new int[spec.trees()][spec.ranks()];
        validate();
        int n = this.nodes.size();
        int[] parentOf = new int[n];
        int[] hostOf = new int[n];
        for (int i = 0; i < n; i++) {
            Node node = this.nodes.get(i);
            parentOf[i] = node.parent();
            hostOf[i] = node.host();
        }
        int[] entryNode = new int[this.entries.size()];
        for (int i = 0; i < entryNode.length; i++) {
            entryNode[i] = this.entries.get(i).node();
        }
        visits += 2L * n + entryNode.length;
        this.childStart = new int[n + 1];
        this.childIds = bucket(parentOf, n, childStart);
        // Validation proved every port is fed exactly once, so sorting each node's children by port is a
        // placement by port: linear, no comparison sort.
        for (int p = 0; p < n; p++) {
            int from = childStart[p];
            int count = childStart[p + 1] - from;
            if (count > 1) {
                int[] byPort = new int[this.nodes.get(p).arity()];
                java.util.Arrays.fill(byPort, -1);
                for (int k = from; k < from + count; k++) {
                    byPort[this.nodes.get(childIds[k]).parentPort()] = childIds[k];
                }
                int k = from;
                for (int id : byPort) {
                    if (id >= 0) {
                        childIds[k++] = id;
                    }
                }
            }
        }
        this.entryStart = new int[n + 1];
        this.entryIds = bucket(entryNode, n, entryStart);
        this.hostStart = new int[spec.topology().size() + 1];
        this.hostNodeIds = bucket(hostOf, spec.topology().size(), hostStart);
        this.roots = new int[spec.trees()];
        java.util.Arrays.fill(roots, -1);
        for (Node node : this.nodes) {
            if (node.isRoot() && node.tree() >= 0 && node.tree() < roots.length && roots[node.tree()] < 0) {
                roots[node.tree()] = node.id();
            }
        }
    }

    /**
     * Counting sort of the indexes 0..keys.length-1 by key (keys in -1..buckets-1; -1 is left out): fills
     * {@code start} (buckets + 1 offsets) and returns the indexes grouped by key, ascending within a key.
     */
    private static int[] bucket(int[] keys, int buckets, int[] start) {
        for (int key : keys) {
            if (key >= 0) {
                start[key + 1]++;
            }
        }
        for (int b = 0; b < buckets; b++) {
            start[b + 1] += start[b];
        }
        int[] out = new int[start[buckets]];
        int[] next = java.util.Arrays.copyOf(start, buckets);
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] >= 0) {
                out[next[keys[i]]++] = i;
            }
        }
        return out;
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

    /** Nodes on {@code host}, in id order. */
    public List<Node> nodesOn(int host) {
        List<Node> list = new ArrayList<>(hostStart[host + 1] - hostStart[host]);
        for (int k = hostStart[host]; k < hostStart[host + 1]; k++) {
            list.add(nodes.get(hostNodeIds[k]));
        }
        visits += list.size();
        return list;
    }

    /**
     * Every root of {@code tree}, the first {@link #root} first: one for the builder's trees; a multi-cluster layout
     * (a tree per cluster, each ending at its own core, and the paths between cluster roots) has several.
     */
    public List<Node> roots(int tree) {
        List<Node> all = new ArrayList<>();
        Node first = root(tree);
        all.add(first);
        for (Node n : nodes) {
            if (n.tree() == tree && n.isRoot() && n.id() != first.id()) {
                all.add(n);
            }
        }
        return all;
    }

    /** The root (core) node of {@code tree}. */
    public Node root(int tree) {
        if (tree >= 0 && tree < roots.length && roots[tree] >= 0) {
            return nodes.get(roots[tree]);
        }
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
        List<Node> list = new ArrayList<>(childStart[id + 1] - childStart[id]);
        for (int k = childStart[id]; k < childStart[id + 1]; k++) {
            list.add(nodes.get(childIds[k]));
        }
        visits += list.size();
        return list;
    }

    /** Ranks whose path enters at node {@code id} in {@code tree}. */
    public List<Entry> entriesAt(int id) {
        List<Entry> list = new ArrayList<>(entryStart[id + 1] - entryStart[id]);
        for (int k = entryStart[id]; k < entryStart[id + 1]; k++) {
            list.add(entries.get(entryIds[k]));
        }
        visits += list.size();
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
            if (n.arity() < 0) {
                // 0 is a node nobody calls through a port: an event scope's nodes, which name their children.
                throw new IllegalArgumentException("node " + n.name() + " has arity=" + n.arity() + ", expected >= 0");
            }
            fed[i] = new int[n.arity()];
        }
        for (Node n : nodes) {
            if (n.isRoot()) {
                continue;
            }
            if (n.parent() >= nodes.size() || n.parent() < -1) {
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
            if (e.tree() < 0 || e.tree() >= spec.trees() || e.rank() < 0 || e.rank() >= spec.ranks()
                    || e.node() < 0 || e.node() >= nodes.size()) {
                throw new IllegalArgumentException("entry " + i + " (tree=" + e.tree() + ", rank=" + e.rank() + ", node="
                        + e.node() + ") is outside trees 0.." + (spec.trees() - 1) + ", ranks 0.." + (spec.ranks() - 1)
                        + ", nodes 0.." + (nodes.size() - 1));
            }
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
