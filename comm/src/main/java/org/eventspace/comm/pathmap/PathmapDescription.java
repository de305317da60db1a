package org.eventspace.comm.pathmap;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.eventspace.base.json.Json;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What the {@code describe} command prints about a {@link Pathmap}: for people, {@link #text} (a header, one tree
 * drawing per tree from the core down, every rank's path, and what runs on each host); for machines,
 * {@link #toJson} ({@value #LAYOUT_SCHEMA}). The format of both is shown in {@code docs/PATHMAP.md}.
 *
 * <p>Stateless and thread-safe. Linear in the size of the pathmap: children and entries are indexed once
 * rather than looked up through {@link Pathmap#children}, which scans.
 */
public final class PathmapDescription {
    public static final String LAYOUT_SCHEMA = "eventspace.pathmap-layout/1";
    /** Up to this many ranks every path is listed; above it, the first and last {@value #PATHS_SHOWN_AT_EACH_END}. */
    public static final int ALL_PATHS_UP_TO_RANKS = 64;
    public static final int PATHS_SHOWN_AT_EACH_END = 8;
    /** Wrapper names listed per host before the rest are counted. */
    static final int WRAPPERS_LISTED_PER_HOST = 12;
    /** Wide enough that every node and entry of the layout is one line: one wrapper per line diffs well. */
    private static final int LAYOUT_LINE_WIDTH = 200;

    private final Pathmap pathmap;
    private final PathmapSpec spec;
    private final Topology topology;
    private final List<List<Node>> children = new ArrayList<>();
    private final List<List<Entry>> entriesAt = new ArrayList<>();
    private final StringBuilder out = new StringBuilder();

    private PathmapDescription(Pathmap pathmap) {
        this.pathmap = pathmap;
        this.spec = pathmap.spec();
        this.topology = spec.topology();
        for (int i = 0; i < pathmap.nodes().size(); i++) {
            children.add(new ArrayList<>());
            entriesAt.add(new ArrayList<>());
        }
        for (Node n : pathmap.nodes()) {
            if (!n.isRoot()) {
                children.get(n.parent()).add(n);
            }
        }
        for (Entry e : pathmap.entries()) {
            entriesAt.get(e.node()).add(e);
        }
    }

    /** The human-readable description, ending with a newline. */
    public static String text(Pathmap pathmap) {
        PathmapDescription d = new PathmapDescription(pathmap);
        d.header();
        for (int t = 0; t < pathmap.spec().trees(); t++) {
            d.tree(t);
        }
        for (int t = 0; t < pathmap.spec().trees(); t++) {
            d.paths(t);
        }
        d.hosts();
        return d.out.toString();
    }

    private void header() {
        int cpus = topology.hosts().stream().mapToInt(Host::cpus).sum();
        line("Pathmap: %s, %s of shape %s, %s in %s (%s)", count(spec.ranks(), "rank"), count(spec.trees(), "tree"),
                spec.shape(), count(topology.size(), "host"), count(topology.clusters().size(), "cluster"),
                count(cpus, "CPU"));
        for (String cluster : topology.clusters()) {
            List<Host> hosts = topology.hosts().stream().filter(h -> h.cluster().equals(cluster)).toList();
            String names = hosts.isEmpty() ? "" : hosts.size() == 1 ? " (" + hosts.get(0).name() + ")"
                    : " (" + hosts.get(0).name() + " … " + hosts.get(hosts.size() - 1).name() + ")";
            line("  cluster    %s: %s%s, %s", cluster, count(hosts.size(), "host"), names,
                    count(hosts.stream().mapToInt(Host::cpus).sum(), "CPU"));
        }
        int[] perHost = new int[topology.size()];
        for (int r = 0; r < spec.ranks(); r++) {
            perHost[spec.hostOf(r)]++;
        }
        int used = 0;
        int min = Integer.MAX_VALUE;
        int max = 0;
        for (int n : perHost) {
            if (n > 0) {
                used++;
                min = Math.min(min, n);
                max = Math.max(max, n);
            }
        }
        String mapping = PathmapConfig.mappingName(spec);
        line("  mapping    %s: %s ranks per host on %d of %s", mapping == null ? "explicit" : mapping,
                min == max ? Integer.toString(min) : min + "-" + max, used, count(topology.size(), "host"));
        if (!spec.overrides().isEmpty()) {
            line("  overrides  %s", String.join(", ", new TreeMap<>(spec.overrides()).entrySet().stream()
                    .map(e -> e.getKey() + " → " + e.getValue()).toList()));
        }
        Host root = topology.host(spec.rootHost());
        java.util.TreeSet<String> coreHosts = new java.util.TreeSet<>();
        for (Node n : pathmap.nodes()) {
            if (n.isRoot() && n.kind().equals(PathmapBuilder.CORE)) {
                coreHosts.add(topology.host(n.host()).name());
            }
        }
        if (coreHosts.size() <= 1) {
            line("  root       %s: core and result element of every tree (%s = %s each)", root.name(),
                    count(spec.resultWords(), "word"), bytes(spec.resultWords() * (long) Long.BYTES));
        } else {
            line("  roots      %s: a core and result element per cluster in every tree (%s = %s each)",
                    String.join(", ", coreHosts), count(spec.resultWords(), "word"),
                    bytes(spec.resultWords() * (long) Long.BYTES));
        }
        Map<String, Integer> kinds = new TreeMap<>();
        for (Node n : pathmap.nodes()) {
            kinds.merge(n.kind(), 1, Integer::sum);
        }
        line("  wrappers   %s in all trees: %s; longest path %s, %s", count(pathmap.nodes().size(), "wrapper"),
                String.join(", ", kinds.entrySet().stream().map(e -> e.getValue() + " " + e.getKey()).toList()),
                count(pathmap.depth(), "wrapper"), count(longestHops(), "inter-host hop"));
    }

    private void tree(int t) {
        List<Node> roots = pathmap.roots(t);
        long nodes = pathmap.nodes().stream().filter(n -> n.tree() == t).count();
        long hops = pathmap.nodes().stream().filter(n -> n.tree() == t && n.kind().equals(PathmapBuilder.PROXY)).count();
        line("");
        line("Tree %d: %s, %s, drawn from the %s down; [p] is the port of the wrapper above that is fed", t,
                count(nodes, "wrapper"), count(hops, "inter-host hop"), roots.size() == 1 ? "core"
                        : roots.size() + " roots (one per cluster, and the paths between cluster roots)");
        for (Node root : roots) {
            line("  %s", label(root));
            draw(root, "  ");
        }
    }

    /** Children (wrappers and ranks) of {@code node}, in port order, each on its own line. */
    private void draw(Node node, String indent) {
        List<Object> below = new ArrayList<>(children.get(node.id()));
        below.addAll(entriesAt.get(node.id()));
        below.sort(Comparator.comparingInt(o -> o instanceof Node n ? n.parentPort() : ((Entry) o).port()));
        for (int i = 0; i < below.size(); i++) {
            boolean last = i == below.size() - 1;
            Object o = below.get(i);
            String branch = indent + (last ? "└─" : "├─");
            if (o instanceof Node n) {
                line("%s[%d] %s", branch, n.parentPort(), label(n));
                draw(n, indent + (last ? "   " : "│  "));
            } else {
                Entry e = (Entry) o;
                line("%s[%d] rank %d @%s", branch, e.port(), e.rank(), hostName(spec.hostOf(e.rank())));
            }
        }
    }

    private String label(Node n) {
        StringBuilder s = new StringBuilder(n.name()).append("  ").append(n.kind()).append(" @")
                .append(hostName(n.host()));
        if (n.kind().equals(PathmapBuilder.PROXY) && !n.isRoot()) {
            s.append(" → ").append(hostName(pathmap.node(n.parent()).host()));
        }
        if (n.arity() > 1 || n.kind().equals(PathmapBuilder.GRED)) {
            s.append(", ").append(count(n.arity(), "port"));
        }
        for (Map.Entry<String, String> p : new TreeMap<>(n.properties()).entrySet()) {
            s.append(", ").append(p.getKey().equals(PathmapBuilder.RESULT_WORDS)
                    ? "up to " + count(Integer.parseInt(p.getValue()), "word")
                    : p.getKey() + " " + p.getValue());
        }
        return s.toString();
    }

    private void paths(int t) {
        int ranks = spec.ranks();
        line("");
        line("Paths, tree %d: %s, from the rank down to the core; [p] is the port entered", t,
                count(ranks, "rank"));
        boolean all = ranks <= ALL_PATHS_UP_TO_RANKS;
        for (int r = 0; r < ranks; r++) {
            if (!all && r == PATHS_SHOWN_AT_EACH_END) {
                int skipped = ranks - 2 * PATHS_SHOWN_AT_EACH_END;
                line("  … %s left out (ranks %d … %d); toJson() lists every entry", count(skipped, "path"), r,
                        ranks - PATHS_SHOWN_AT_EACH_END - 1);
                r = ranks - PATHS_SHOWN_AT_EACH_END - 1;
                continue;
            }
            line("  %s", path(t, r));
        }
    }

    /** {@code rank 3 (h1): t0.gred.h1.0[1] → t0.proxy.h1.0 → t0.gred.h0.1[1] → t0.core.h0}. */
    private String path(int t, int rank) {
        List<Node> path = pathmap.path(t, rank);
        StringBuilder s = new StringBuilder("rank ").append(rank).append(" (").append(hostName(spec.hostOf(rank)))
                .append("):");
        int port = pathmap.entry(t, rank).port();
        for (int i = 0; i < path.size(); i++) {
            Node n = path.get(i);
            s.append(i == 0 ? " " : " → ").append(n.name());
            if (n.arity() > 1) {
                s.append('[').append(port).append(']');
            }
            port = n.parentPort();
        }
        return s.toString();
    }

    private void hosts() {
        line("");
        line("Hosts: ranks, inter-host hops leaving each (one per proxy), wrappers running there");
        int width = topology.hosts().stream().mapToInt(h -> h.name().length()).max().orElse(1);
        List<List<Integer>> ranksOn = new ArrayList<>();
        List<List<Node>> nodesOn = new ArrayList<>();
        for (int h = 0; h < topology.size(); h++) {
            ranksOn.add(new ArrayList<>());
            nodesOn.add(new ArrayList<>());
        }
        for (int r = 0; r < spec.ranks(); r++) {
            ranksOn.get(spec.hostOf(r)).add(r);
        }
        for (Node n : pathmap.nodes()) {
            nodesOn.get(n.host()).add(n);
        }
        for (Host h : topology.hosts()) {
            List<Integer> ranks = ranksOn.get(h.id());
            List<Node> wrappers = nodesOn.get(h.id());
            Map<String, Integer> hopsTo = new TreeMap<>();
            for (Node n : wrappers) {
                if (n.kind().equals(PathmapBuilder.PROXY) && !n.isRoot()) {
                    hopsTo.merge(hostName(pathmap.node(n.parent()).host()), 1, Integer::sum);
                }
            }
            int hops = hopsTo.values().stream().mapToInt(Integer::intValue).sum();
            List<String> names = wrappers.stream().limit(WRAPPERS_LISTED_PER_HOST).map(Node::name).toList();
            String more = wrappers.size() > WRAPPERS_LISTED_PER_HOST
                    ? " … " + (wrappers.size() - WRAPPERS_LISTED_PER_HOST) + " more" : "";
            line("  %-" + width + "s  %s, %s; %s; %s%s", h.name(), h.cluster(), count(h.cpus(), "CPU"),
                    ranks.isEmpty() ? "no ranks" : count(ranks.size(), "rank") + ": " + ranges(ranks),
                    count(hops, "hop") + " out", hops == 0 ? "" : " (" + String.join(", ", hopsTo.entrySet().stream()
                            .map(e -> "→ " + e.getKey() + " ×" + e.getValue()).toList()) + ")");
            line("  %" + width + "s  %s%s%s", "", count(wrappers.size(), "wrapper"),
                    wrappers.isEmpty() ? "" : ": " + String.join(" ", names), more);
        }
    }

    private int longestHops() {
        int longest = 0;
        for (Entry e : pathmap.entries()) {
            int hops = 0;
            for (Node n : pathmap.path(e.tree(), e.rank())) {
                hops += n.kind().equals(PathmapBuilder.PROXY) ? 1 : 0;
            }
            longest = Math.max(longest, hops);
        }
        return longest;
    }

    /** {@code 0-3 8 10-11}. */
    private static String ranges(List<Integer> sorted) {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < sorted.size(); ) {
            int j = i;
            while (j + 1 < sorted.size() && sorted.get(j + 1) == sorted.get(j) + 1) {
                j++;
            }
            parts.add(i == j ? sorted.get(i).toString() : sorted.get(i) + "-" + sorted.get(j));
            i = j + 1;
        }
        return String.join(" ", parts);
    }

    private static String bytes(long bytes) {
        return bytes % 1024 == 0 ? bytes / 1024 + " KiB" : count(bytes, "byte");
    }

    private static String count(long n, String unit) {
        return n + " " + unit + (n == 1 ? "" : "s");
    }

    private String hostName(int host) {
        return topology.host(host).name();
    }

    private void line(String format, Object... args) {
        out.append(args.length == 0 ? format : String.format(format, args)).append('\n');
    }

    /**
     * The layout for machines: {@code {"schema": "eventspace.pathmap-layout/1", "ranks", "trees", "rootHost",
     * "hosts": [{id, name, cluster, cpus}], "nodes": [{id, name, kind, tree, host, parent, parentPort, arity,
     * properties}], "entries": [{tree, rank, host, node, port}]}}; hosts are named, a root's parent is null.
     */
    public static String toJson(Pathmap pathmap) {
        PathmapSpec spec = pathmap.spec();
        Topology topology = spec.topology();
        List<NodeJson> nodes = new ArrayList<>(pathmap.nodes().size());
        for (Node n : pathmap.nodes()) {
            nodes.add(new NodeJson(n.id(), n.name(), n.kind(), n.tree(), topology.host(n.host()).name(),
                    n.isRoot() ? null : n.parent(), n.isRoot() ? null : n.parentPort(), n.arity(),
                    new TreeMap<>(n.properties())));
        }
        List<EntryJson> entries = new ArrayList<>(pathmap.entries().size());
        for (Entry e : pathmap.entries()) {
            entries.add(new EntryJson(e.tree(), e.rank(), topology.host(spec.hostOf(e.rank())).name(), e.node(), e.port()));
        }
        ObjectNode root = Json.mapper().valueToTree(new Layout(LAYOUT_SCHEMA, spec.ranks(), spec.trees(),
                topology.host(spec.rootHost()).name(), topology.hosts(), nodes, entries));
        return JsonPrinter.print(root, LAYOUT_LINE_WIDTH);
    }

    /** The {@value #LAYOUT_SCHEMA} document ({@link Host} is written as it is: id, name, cluster, cpus). */
    @JsonPropertyOrder({"schema", "ranks", "trees", "rootHost", "hosts", "nodes", "entries"})
    record Layout(String schema, int ranks, int trees, String rootHost, List<Host> hosts, List<NodeJson> nodes,
                  List<EntryJson> entries) {
    }

    /** A node with its host named; {@code parent} null and {@code parentPort} absent at a root. */
    @JsonPropertyOrder({"id", "name", "kind", "tree", "host", "parent", "parentPort", "arity", "properties"})
    record NodeJson(int id, String name, String kind, int tree, String host, Integer parent,
                    @JsonInclude(JsonInclude.Include.NON_NULL) Integer parentPort, int arity,
                    Map<String, String> properties) {
    }

    @JsonPropertyOrder({"tree", "rank", "host", "node", "port"})
    record EntryJson(int tree, int rank, String host, int node, int port) {
    }
}
