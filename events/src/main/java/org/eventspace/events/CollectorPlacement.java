package org.eventspace.events;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.eventspace.comm.pathmap.Entry;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;

/**
 * Puts an event collector on every edge of every tree of a pathmap (EventSpace paper §4.1: "event
 * collectors are inserted before and after every wrapper"). A pure function: the pathmap given is not changed,
 * the one returned passes {@link Pathmap}'s own checks.
 *
 * <p>Edges and where their collector goes:
 * <ul>
 *   <li>a rank entering wrapper W at port p: a collector on the rank's host, the rank now enters it and it
 *       calls W's port p — the t1,i/t4,i of that contributor;</li>
 *   <li>a wrapper C calling W on the same host (a gred calling the gred or core above it, a gred calling the
 *       proxy that forwards its result): a collector between them — t2/t3 below a gred, or t1/t4 before a
 *       proxy's stub;</li>
 *   <li>a proxy on host A forwarding to W on host B: a collector on B, the first wrapper the hop's service
 *       thread runs — the t2/t3 of the remote hop, so its two-way latency {@code (t4 − t1) − (t3 − t2)} needs
 *       no clock synchronisation (dissertation §7.1). The proxy's hop then targets that collector.</li>
 * </ul>
 * So with every kind enabled each rank's path alternates collector, wrapper, collector, …, core.
 *
 * <p>Node ids of the given pathmap are kept; collectors are appended, in the order: node edges by node id,
 * then entries. Each gets the next unused {@value CollectorKind#COLLECTOR_ID} (unique in the whole pathmap,
 * so a dump names a collector by its id alone), a name {@code t<tree>.ec.<host>.<n>} (n counts per tree and
 * host), and two descriptive properties: {@value #ABOVE} — the wrapper and port it calls, e.g.
 * {@code t0.gred.h0.0[1]} — and {@value #BELOW} — what calls it, a node name or {@code rank <r>}. Edges that
 * already touch a collector are left alone, so placing twice adds nothing.
 */
public final class CollectorPlacement {
    /** Node property: the wrapper and port the collector calls, {@code <node name>[<port>]}. */
    public static final String ABOVE = "above";
    /** Node property: what calls the collector: a node name, or {@code rank <r>} for an entry. */
    public static final String BELOW = "below";
    /** The kind segment of collector names. */
    public static final String NAME_SEGMENT = "ec";

    private final Pathmap source;
    private final CollectorSettings settings;
    private final List<Draft> drafts = new ArrayList<>();
    private final Map<String, Integer> madeSoFar = new HashMap<>();
    private int nextCollectorId;

    private CollectorPlacement(Pathmap source, CollectorSettings settings) {
        this.source = source;
        this.settings = settings;
    }

    /** Collectors on every edge of every tree, buffers of the event space's default capacity. */
    public static Pathmap place(Pathmap pathmap) {
        return place(pathmap, CollectorSettings.ALL);
    }

    public static Pathmap place(Pathmap pathmap, CollectorSettings settings) {
        return new CollectorPlacement(pathmap, settings).run();
    }

    /** Collector nodes in {@code pathmap}. */
    public static int count(Pathmap pathmap) {
        int n = 0;
        for (Node node : pathmap.nodes()) {
            if (node.kind().equals(CollectorKind.NAME)) {
                n++;
            }
        }
        return n;
    }

    /** Collector nodes of {@code pathmap} on {@code host}. */
    public static int countOn(Pathmap pathmap, int host) {
        int n = 0;
        for (Node node : pathmap.nodesOn(host)) {
            if (node.kind().equals(CollectorKind.NAME)) {
                n++;
            }
        }
        return n;
    }

    /**
     * The rank whose path a collector node starts ({@value #BELOW} {@code rank <r>}), or -1 for a collector inside a
     * tree: the one place that property is read.
     *
     * @throws IllegalArgumentException naming the node and the value if it is neither a node name nor {@code rank <r>}.
     */
    public static int rankBelow(Node collector) {
        String below = collector.properties().get(BELOW);
        if (below == null || !below.startsWith("rank ")) {
            return -1;
        }
        try {
            return Integer.parseInt(below.substring("rank ".length()).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("collector " + collector.name() + ": property " + BELOW
                    + " must be a node name or 'rank <r>', " + BELOW + "=" + below, e);
        }
    }

    private Pathmap run() {
        for (Node n : source.nodes()) {
            drafts.add(new Draft(n));
            if (n.kind().equals(CollectorKind.NAME)) {
                nextCollectorId = Math.max(nextCollectorId, CollectorKind.collectorId(n) + 1);
            }
        }
        int original = drafts.size();
        for (int id = 0; id < original; id++) {
            Draft caller = drafts.get(id);
            if (caller.parent < 0) {
                continue;
            }
            Node callee = source.node(caller.parent);
            if (!wanted(caller.node.tree(), caller.node.kind(), callee.kind())) {
                continue;
            }
            // A proxy's collector goes on the far side, where the hop's service thread runs it; any other
            // caller is on its callee's host already.
            int collector = addCollector(caller.node.tree(), callee, caller.parentPort, caller.node.name());
            caller.parent = collector;
            caller.parentPort = 0;
        }
        List<Entry> entries = new ArrayList<>();
        for (Entry e : source.entries()) {
            Node callee = source.node(e.node());
            if (!wanted(e.tree(), null, callee.kind())) {
                entries.add(e);
                continue;
            }
            int collector = addCollector(e.tree(), callee, e.port(), "rank " + e.rank());
            entries.add(new Entry(e.tree(), e.rank(), collector, 0));
        }
        List<Node> nodes = new ArrayList<>(drafts.size());
        for (Draft d : drafts) {
            nodes.add(d.freeze());
        }
        return new Pathmap(source.spec(), nodes, entries);
    }

    /** Whether the edge from a caller of {@code callerKind} (null: a rank) to {@code calleeKind} gets a collector. */
    private boolean wanted(int tree, String callerKind, String calleeKind) {
        if (!settings.instruments(tree)) {
            return false;
        }
        if (calleeKind.equals(CollectorKind.NAME) || CollectorKind.NAME.equals(callerKind)) {
            return false;
        }
        return settings.around(calleeKind) || (callerKind != null && settings.around(callerKind));
    }

    private int addCollector(int tree, Node callee, int port, String below) {
        int id = drafts.size();
        String hostName = source.spec().topology().host(callee.host()).name();
        int n = madeSoFar.merge(tree + "." + hostName, 1, Integer::sum) - 1;
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put(CollectorKind.COLLECTOR_ID, Integer.toString(nextCollectorId++));
        if (settings.capacity() > 0) {
            properties.put(CollectorKind.CAPACITY, Integer.toString(settings.capacity()));
        }
        properties.put(ABOVE, callee.name() + "[" + port + "]");
        properties.put(BELOW, below);
        String name = (tree >= 0 ? "t" + tree : "p2p") + "." + NAME_SEGMENT + "." + hostName + "." + n;
        Draft draft = new Draft(new Node(id, name, CollectorKind.NAME, tree, callee.host(), callee.id(), port, 1, properties));
        drafts.add(draft);
        return id;
    }

    /** A node whose parent and port may still be redirected to a collector. */
    private static final class Draft {
        final Node node;
        int parent;
        int parentPort;

        Draft(Node node) {
            this.node = node;
            this.parent = node.parent();
            this.parentPort = node.parentPort();
        }

        Node freeze() {
            if (parent == node.parent() && parentPort == node.parentPort()) {
                return node;
            }
            return new Node(node.id(), node.name(), node.kind(), node.tree(), node.host(), parent, parentPort,
                    node.arity(), node.properties());
        }
    }
}
