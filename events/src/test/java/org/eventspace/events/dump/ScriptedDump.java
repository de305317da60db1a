package org.eventspace.events.dump;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.eventspace.comm.pathmap.Entry;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.PathmapDescription;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.Topology;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.events.CollectorKind;
import org.eventspace.events.EventSpace;
import org.eventspace.events.TraceBuffer;
import org.eventspace.events.TraceOp;

/**
 * A dump written by hand, in the format a run's {@code --trace-dump DIR} writes, for a pathmap of 3 ranks on 2
 * hosts, one flat tree, with a collector on every edge:
 * <pre>
 *   t0.core.h0 @h0
 *   └─ c.t0.gred.h0.0 @h0            (t2/t3 of the gred; the store latency of the core)
 *      └─ t0.gred.h0.0 @h0, 3 ports
 *         ├─[0] t0.c.rank0 @h0 ← rank 0    (t1,0 / t4,0)
 *         ├─[1] t0.c.rank1 @h0 ← rank 1    (t1,1 / t4,1)
 *         └─[2] c.t0.proxy.h1.0 @h0         (t1,2 / t4,2; t2/t3 of the hop)
 *               └─ t0.proxy.h1.0 @h1 → h0
 *                  └─ t0.c.rank2 @h1 ← rank 2   (t1/t4 of the hop)
 * </pre>
 * The timestamps of each tuple are chosen by the test.
 */
final class ScriptedDump {
    static final String RANK0 = "t0.c.rank0";
    static final String RANK1 = "t0.c.rank1";
    static final String RANK2 = "t0.c.rank2";
    static final String PROXY_SERVING = "c.t0.proxy.h1.0";
    static final String GRED_BELOW = "c.t0.gred.h0.0";
    static final String GRED = "t0.gred.h0.0";
    static final String PROXY = "t0.proxy.h1.0";
    static final String CORE = "t0.core.h0";

    final Pathmap pathmap;
    /** Collector name → its node. */
    final Map<String, Node> collectors = new HashMap<>();

    ScriptedDump() {
        Pathmap plain = PathmapBuilder.build(PathmapSpec.of(Topology.simulated(1, 2, 2), 3, 1, TreeShape.FLAT));
        pathmap = withCollectorOnEveryEdge(plain);
        for (Node n : pathmap.nodes()) {
            if (n.kind().equals(CollectorKind.NAME)) {
                collectors.put(n.name(), n);
            }
        }
    }

    /** Writes pathmap.json. */
    void writePathmap(Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(TraceDump.PATHMAP_FILE), PathmapDescription.toJson(pathmap));
    }

    /** The file of collector {@code name}: {@code DIR/host-<id>/<collectorId>.<name>.trace}. */
    Path file(Path dir, String name) {
        Node n = collectors.get(name);
        return dir.resolve("host-" + n.host()).resolve(EventSpace.fileName(collectorId(n), name));
    }

    /** Writes collector {@code name}'s trace: each tuple {seq, t_down, t_up}, allreduce-sum of value 3. */
    void writeTrace(Path dir, String name, long[]... tuples) throws IOException {
        Node n = collectors.get(name);
        Path file = file(dir, name);
        Files.createDirectories(file.getParent());
        try (TraceBuffer buffer = TraceBuffer.mapped(file, 16, collectorId(n))) {
            for (long[] t : tuples) {
                buffer.write(collectorId(n), TraceOp.ALLREDUCE_SUM, 0, t[0], 3, t[1], t[2]);
            }
        }
    }

    private static int collectorId(Node n) {
        return Integer.parseInt(n.property(CollectorKind.COLLECTOR_ID));
    }

    /**
     * Puts a collector on every edge: between every node and its parent (named {@code c.<node>}, on the
     * parent's host: after a proxy that is the serving host) and between every rank and its entry (named
     * {@code t<tree>.c.rank<r>}, on the rank's host). Ids count from 1.
     */
    static Pathmap withCollectorOnEveryEdge(Pathmap plain) {
        List<Node> nodes = new ArrayList<>(plain.nodes());
        int nextId = 1;
        for (Node n : plain.nodes()) {
            if (n.isRoot()) {
                continue;
            }
            Node parent = plain.node(n.parent());
            int id = nodes.size();
            nodes.add(new Node(id, "c." + n.name(), CollectorKind.NAME, n.tree(), parent.host(), n.parent(),
                    n.parentPort(), 1, Map.of(CollectorKind.COLLECTOR_ID, String.valueOf(nextId++))));
            nodes.set(n.id(), new Node(n.id(), n.name(), n.kind(), n.tree(), n.host(), id, 0, n.arity(), n.properties()));
        }
        List<Entry> entries = new ArrayList<>();
        for (Entry e : plain.entries()) {
            int id = nodes.size();
            nodes.add(new Node(id, "t" + e.tree() + ".c.rank" + e.rank(), CollectorKind.NAME, e.tree(),
                    plain.spec().hostOf(e.rank()), e.node(), e.port(), 1,
                    Map.of(CollectorKind.COLLECTOR_ID, String.valueOf(nextId++))));
            entries.add(new Entry(e.tree(), e.rank(), id, 0));
        }
        return new Pathmap(plain.spec(), nodes, entries);
    }
}
