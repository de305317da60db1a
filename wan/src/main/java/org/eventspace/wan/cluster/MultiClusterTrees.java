package org.eventspace.wan.cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.eventspace.comm.path.Condition;
import org.eventspace.comm.pathmap.Entry;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.Topology;

/**
 * Pathmap → pathmap: turns each tree the builder laid over several clusters into one tree per cluster joined by an
 * all-to-all among the cluster roots (MagPIe; dissertation appendix 7.3 §IV, Figure 2).
 *
 * <p>The builder's {@code hier} tree already joins each cluster's hosts before the clusters; this keeps every wrapper
 * whose subtree lies in one cluster, drops the inter-cluster joins (the greds above the clusters, the core, and the
 * proxies that lead a cluster's result to them), and gives each cluster's output
 *
 * <pre>
 *   cluster output ─► clusterroot (cluster c) ─► core (t&lt;tree&gt;.result, the cluster's partial results)
 *   per remote cluster b:  prefetch (c from b) ─proxy─► partialfetch (b's root host)
 * </pre>
 *
 * The proxies of the prefetch paths are ordinary tree proxies, so a WAN layout placed after this routes them through
 * the gateways like any other inter-site hop. Node ids are renumbered; entries keep their ranks and ports. The first
 * core of each tree (its first cluster's) is the tree's {@link Pathmap#root}.
 */
public final class MultiClusterTrees {
    public static final String CLUSTER_ROOT = "clusterroot";
    public static final String PREFETCH = "prefetch";
    public static final String PARTIAL_FETCH = "partialfetch";
    /** Node property: the cluster index (topology order) a node serves. */
    public static final String CLUSTER = "cluster";
    /** Node property of a cluster root: how many clusters the tree joins. */
    public static final String CLUSTERS = "clusters";
    /** Node property of a prefetch node: the remote cluster it fetches from. */
    public static final String FROM = "from";

    private static final int NONE = -1;
    private static final int MIXED = -2;

    private MultiClusterTrees() {
    }

    /**
     * @param condition null, or the condition (and {@code constant}) conditional calls on every tree are decided by.
     * @throws IllegalArgumentException if the trees are not laid over at least two clusters cluster by cluster (a
     *                                  {@code hier} tree over {@code --clusters C ≥ 2}).
     */
    public static Pathmap place(Pathmap trees, Condition condition, double constant) {
        Topology topology = trees.spec().topology();
        int clusters = topology.clusters().size();
        if (clusters < 2) {
            throw new IllegalArgumentException("a multi-cluster allreduce needs at least 2 clusters, the job has "
                    + clusters + " (--clusters C)");
        }
        int[] clusterOfHost = new int[topology.size()];
        for (int h = 0; h < topology.size(); h++) {
            clusterOfHost[h] = topology.clusters().indexOf(topology.host(h).cluster());
        }
        List<Node> old = trees.nodes();
        int[] mark = new int[old.size()];
        java.util.Arrays.fill(mark, NONE);
        for (Entry e : trees.entries()) {
            int c = clusterOfHost[trees.spec().hostOf(e.rank())];
            for (int id = e.node(); id >= 0 && mark[id] != MIXED; id = old.get(id).parent()) {
                mark[id] = mark[id] == NONE || mark[id] == c ? c : MIXED;
            }
        }
        // A node stays if its whole subtree is in one cluster and it does not lead out of it.
        boolean[] keep = new boolean[old.size()];
        for (Node n : old) {
            keep[n.id()] = mark[n.id()] >= 0 && !(n.kind().equals(PathmapBuilder.PROXY) && leadsOut(old, mark, n));
            if (!keep[n.id()] && n.tree() < 0) {
                throw new IllegalArgumentException("node " + n.name() + " belongs to no tree; place the multi-cluster "
                        + "trees before any other layer");
            }
        }
        int[] newId = new int[old.size()];
        List<Node> nodes = new ArrayList<>();
        for (Node n : old) {
            newId[n.id()] = keep[n.id()] ? nodes.size() : -1;
            if (keep[n.id()]) {
                nodes.add(n);
            }
        }
        Names names = new Names(topology);
        List<Entry> entries = new ArrayList<>();
        // outputs[tree][cluster] = {kind: 0 node / 1 entry, id or entry index, host}
        int treeCount = trees.spec().trees();
        List<int[]> pendingParents = new ArrayList<>();   // {new node id, tree, cluster}
        List<int[]> pendingEntries = new ArrayList<>();   // {entry index, tree, cluster}
        int[][] rootHost = new int[treeCount][clusters];
        for (int[] row : rootHost) {
            java.util.Arrays.fill(row, -1);
        }
        int[][] outputs = new int[treeCount][clusters];
        for (int i = 0; i < nodes.size(); i++) {
            Node n = nodes.get(i);
            int parentId = n.parent() < 0 ? -1 : newId[n.parent()];
            if (parentId < 0) {
                int c = clusterOfHost[n.host()];
                rootHost[n.tree()][c] = n.host();
                outputs[n.tree()][c]++;
                pendingParents.add(new int[] {i, n.tree(), c});
            }
            nodes.set(i, new Node(i, n.name(), n.kind(), n.tree(), n.host(), parentId, n.parentPort(), n.arity(),
                    n.properties()));
        }
        for (Entry e : trees.entries()) {
            int target = newId[e.node()];
            if (target >= 0) {
                entries.add(new Entry(e.tree(), e.rank(), target, e.port()));
            } else {
                int host = trees.spec().hostOf(e.rank());
                int c = clusterOfHost[host];
                rootHost[e.tree()][c] = host;
                outputs[e.tree()][c]++;
                pendingEntries.add(new int[] {entries.size(), e.tree(), c});
                entries.add(e);
            }
        }
        for (int t = 0; t < treeCount; t++) {
            for (int c = 0; c < clusters; c++) {
                if (outputs[t][c] > 1) {
                    throw new IllegalArgumentException("tree " + t + " joins cluster " + topology.clusters().get(c)
                            + "'s ranks with other clusters' before the cluster's own join (" + outputs[t][c]
                            + " branches leave it); a multi-cluster allreduce needs a hier:K tree, shape="
                            + trees.spec().shape());
                }
            }
        }
        int[][] clusterRoot = new int[treeCount][clusters];
        int resultWords = trees.spec().resultWords();
        for (int t = 0; t < treeCount; t++) {
            for (int c = 0; c < clusters; c++) {
                int host = rootHost[t][c];
                if (host < 0) {
                    throw new IllegalArgumentException("cluster " + topology.clusters().get(c) + " has no ranks; a "
                            + "multi-cluster allreduce needs ranks in every cluster");
                }
                Map<String, String> props = new HashMap<>();
                props.put(CLUSTER, Integer.toString(c));
                props.put(CLUSTERS, Integer.toString(clusters));
                if (condition != null) {
                    props.put(Condition.PROPERTY, condition.name());
                    props.put(Condition.CONSTANT_PROPERTY, Double.toString(constant));
                }
                int core = add(nodes, names, PathmapBuilder.CORE, t, host, -1, 1, Map.of(PathmapBuilder.ELEMENT,
                        PathmapBuilder.resultElement(t), PathmapBuilder.RESULT_WORDS, Integer.toString(resultWords)));
                clusterRoot[t][c] = add(nodes, names, CLUSTER_ROOT, t, host, core, 1, props);
            }
        }
        for (int[] p : pendingParents) {
            Node n = nodes.get(p[0]);
            nodes.set(p[0], new Node(n.id(), n.name(), n.kind(), n.tree(), n.host(), clusterRoot[p[1]][p[2]], 0,
                    n.arity(), n.properties()));
        }
        for (int[] p : pendingEntries) {
            Entry e = entries.get(p[0]);
            entries.set(p[0], new Entry(e.tree(), e.rank(), clusterRoot[p[1]][p[2]], 0));
        }
        for (int t = 0; t < treeCount; t++) {
            for (int c = 0; c < clusters; c++) {
                for (int b = 0; b < clusters; b++) {
                    if (b == c) {
                        continue;
                    }
                    int here = rootHost[t][c];
                    int there = rootHost[t][b];
                    int fetch = add(nodes, names, PARTIAL_FETCH, t, there, -1, 1,
                            Map.of(CLUSTER, Integer.toString(b)));
                    int below = fetch;
                    if (here != there) {
                        below = add(nodes, names, PathmapBuilder.PROXY, t, here, fetch, 1, Map.of());
                    }
                    add(nodes, names, PREFETCH, t, here, below, 0, Map.of(CLUSTER, Integer.toString(c),
                            FROM, Integer.toString(b)));
                }
            }
        }
        return new Pathmap(trees.spec(), nodes, entries);
    }

    private static boolean leadsOut(List<Node> nodes, int[] mark, Node proxy) {
        return proxy.parent() >= 0 && mark[proxy.parent()] == MIXED;
    }

    private static int add(List<Node> nodes, Names names, String kind, int tree, int host, int parent, int arity,
                           Map<String, String> props) {
        int id = nodes.size();
        nodes.add(new Node(id, names.next(tree, kind, host), kind, tree, host, parent, 0, arity, props));
        return id;
    }

    /** {@code t<tree>.<kind>.<host>.mc<n>}: apart from the builder's names. */
    private static final class Names {
        private final Topology topology;
        private final Map<String, Integer> made = new HashMap<>();

        Names(Topology topology) {
            this.topology = topology;
        }

        String next(int tree, String kind, int host) {
            int n = made.merge(tree + "." + kind + "." + host, 1, Integer::sum) - 1;
            return "t" + tree + "." + kind + "." + topology.host(host).name() + ".mc" + n;
        }
    }
}
