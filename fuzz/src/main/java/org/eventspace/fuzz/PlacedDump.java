package org.eventspace.fuzz;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.PathmapDescription;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.Topology;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.events.CollectorKind;
import org.eventspace.events.CollectorPlacement;
import org.eventspace.events.EventSpace;
import org.eventspace.events.TraceBuffer;
import org.eventspace.events.TraceOp;
import org.eventspace.events.dump.TraceDump;

/**
 * The valid dump the trace-dump fuzzer starts every case from, as a run writes one: a pathmap of 4 ranks on 2 hosts
 * (hier:2, collectors placed by {@link CollectorPlacement}), {@code pathmap.json} and one mapped {@link TraceBuffer}
 * file per collector in {@code host-<id>/}, each with a few allreduce calls whose times obey t1 ≤ t2 ≤ t3 ≤ t4 going
 * down the path. The same dump as the events module's test fixture of that name (which its corruption tests use);
 * written here from the public API, byte for byte the same every time, so a case replays from its seed.
 */
final class PlacedDump {
    static final int CAPACITY = 16;
    static final int CALLS = 5;

    private PlacedDump() {
    }

    /** Writes pathmap.json and every collector's trace into {@code dir}. */
    static void write(Path dir) throws IOException {
        Pathmap pathmap = CollectorPlacement.place(
                PathmapBuilder.build(PathmapSpec.of(Topology.simulated(1, 2, 2), 4, 1, TreeShape.parse("hier:2"))));
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(TraceDump.PATHMAP_FILE), PathmapDescription.toJson(pathmap));
        for (Node c : pathmap.nodes()) {
            if (!c.kind().equals(CollectorKind.NAME)) {
                continue;
            }
            int id = CollectorKind.collectorId(c);
            Path file = dir.resolve("host-" + c.host()).resolve(EventSpace.fileName(id, c.name()));
            Files.createDirectories(file.getParent());
            int depth = depth(pathmap, c);
            try (TraceBuffer buffer = TraceBuffer.mapped(file, CAPACITY, id)) {
                for (long seq = 0; seq < CALLS; seq++) {
                    long t0 = 1_000_000 * (seq + 1);
                    buffer.write(id, TraceOp.ALLREDUCE_SUM, seq, 4, t0 + 100 * depth, t0 + 100_000 - 100 * depth);
                }
            }
        }
    }

    /** Wrappers between the collector and the core: deeper collectors are entered earlier and left later. */
    private static int depth(Pathmap pathmap, Node n) {
        int d = 0;
        for (int id = n.id(); id >= 0; id = pathmap.node(id).parent()) {
            d++;
        }
        return 20 - d;
    }
}
