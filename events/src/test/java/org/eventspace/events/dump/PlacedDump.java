package org.eventspace.events.dump;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

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
import org.eventspace.events.TraceBufferLayout;
import org.eventspace.events.TraceOp;

/**
 * A dump as a run writes it: a pathmap of 4 ranks on 2 hosts (hier:2, collectors placed by
 * {@link CollectorPlacement}), {@code pathmap.json} and one mapped {@link TraceBuffer} file per collector in
 * {@code host-<id>/}, each with a few allreduce calls whose times obey t1 ≤ t2 ≤ t3 ≤ t4 going down the path.
 */
final class PlacedDump {
    static final int CAPACITY = 16;
    static final int CALLS = 5;

    final Pathmap pathmap = CollectorPlacement.place(
            PathmapBuilder.build(PathmapSpec.of(Topology.simulated(1, 2, 2), 4, 1, TreeShape.parse("hier:2"))));
    final List<Node> collectors = new ArrayList<>();

    PlacedDump() {
        for (Node n : pathmap.nodes()) {
            if (n.kind().equals(CollectorKind.NAME)) {
                collectors.add(n);
            }
        }
    }

    Path file(Path dir, Node collector) {
        return dir.resolve("host-" + collector.host())
                .resolve(EventSpace.fileName(CollectorKind.collectorId(collector), collector.name()));
    }

    /** Writes pathmap.json and every collector's trace into {@code dir}. */
    void write(Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(TraceDump.PATHMAP_FILE), PathmapDescription.toJson(pathmap));
        for (Node c : collectors) {
            Path file = file(dir, c);
            Files.createDirectories(file.getParent());
            int id = CollectorKind.collectorId(c);
            int depth = depth(c);
            try (TraceBuffer buffer = TraceBuffer.mapped(file, CAPACITY, id)) {
                for (long seq = 0; seq < CALLS; seq++) {
                    long t0 = 1_000_000 * (seq + 1);
                    buffer.write(id, TraceOp.ALLREDUCE_SUM, seq, 4, t0 + 100 * depth, t0 + 100_000 - 100 * depth);
                }
            }
        }
    }

    /** Wrappers between the collector and the core: deeper collectors are entered earlier and left later. */
    private int depth(Node n) {
        int d = 0;
        for (int id = n.id(); id >= 0; id = pathmap.node(id).parent()) {
            d++;
        }
        return 20 - d;
    }

    /** Overwrites the header's write position (in the file's byte order, little-endian here) with {@code value}. */
    static void setWritePosition(Path file, long value) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.nativeOrder()).putLong(0, value);
            ch.write(b, TraceBufferLayout.WRITE_POSITION_OFFSET);
        }
    }
}
