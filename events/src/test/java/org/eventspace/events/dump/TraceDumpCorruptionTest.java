package org.eventspace.events.dump;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.eventspace.comm.pathmap.Node;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real dumps ({@link PlacedDump}: mapped trace buffers and pathmap.json as a run writes them), corrupted in one
 * way each: every corruption is reported naming the file, the field and the value, what is still readable is
 * read, and nothing throws but the documented IOException for a pathmap that cannot be used.
 */
class TraceDumpCorruptionTest {
    @TempDir
    Path dir;

    private final PlacedDump placed = new PlacedDump();

    @Test
    void aCompleteDumpReadsEveryCollectorWithoutErrors() throws Exception {
        placed.write(dir);
        TraceDump dump = TraceDump.open(dir);
        assertThat(dump.errors()).isEmpty();
        assertThat(dump.missing()).isEmpty();
        assertThat(dump.collectors()).hasSize(placed.collectors.size());
        assertThat(dump.tuples()).isEqualTo((long) PlacedDump.CALLS * placed.collectors.size());
    }

    @Test
    void aDeletedHostDirectoryNamesEveryMissingCollectorAndItsHostAndKeepsTheRest() throws Exception {
        placed.write(dir);
        deleteTree(dir.resolve("host-0"));
        TraceDump dump = TraceDump.open(dir);

        List<Node> onHost0 = placed.collectors.stream().filter(c -> c.host() == 0).toList();
        assertThat(onHost0).isNotEmpty();
        assertThat(dump.missing()).extracting(TraceDump.DumpNode::name)
                .containsExactlyElementsOf(onHost0.stream().map(Node::name).toList());
        assertThat(dump.collectors()).hasSize(placed.collectors.size() - onHost0.size());
        assertThat(dump.errors()).hasSize(1);
        String error = dump.errors().get(0);
        assertThat(error).contains("host h0 (" + dir.resolve("host-0") + ")")
                .contains(onHost0.size() + " collectors listed in pathmap.json have no trace file");
        for (Node c : onHost0) {
            assertThat(error).contains(c.name());
        }
        StringWriter text = new StringWriter();
        TraceDumpPrinter.printText(dump, new PrintWriter(text));
        assertThat(text.toString()).contains(onHost0.size() + " collectors in pathmap.json without a trace file")
                .contains("error: " + error);
    }

    @Test
    void aNegativeWritePositionIsACorruptFileNamedWithFieldAndValue() throws Exception {
        placed.write(dir);
        Node victim = placed.collectors.get(0);
        Path file = placed.file(dir, victim);
        PlacedDump.setWritePosition(file, -1);
        TraceDump dump = TraceDump.open(dir);
        assertThat(dump.errors()).containsExactly("trace file " + file
                + " is corrupt: header field writePosition=-1 is negative");
        assertThat(dump.unreadable()).isEqualTo(1);
        assertThat(dump.collector(victim.id())).isNull();
        assertThat(dump.collectors()).hasSize(placed.collectors.size() - 1);
        assertThat(WrapperLatencies.of(dump).toJson()).contains("eventspace.latencies/1");
    }

    @Test
    void aWritePositionBeyondWhatTheSlotsHoldIsCorruptNotBillionsOfOverwrittenTuples() throws Exception {
        placed.write(dir);
        Node victim = placed.collectors.get(1);
        Path file = placed.file(dir, victim);
        PlacedDump.setWritePosition(file, Long.MAX_VALUE);
        TraceDump dump = TraceDump.open(dir);
        assertThat(dump.errors()).singleElement().asString()
                .startsWith("trace file " + file + " is corrupt: header field writePosition=" + Long.MAX_VALUE
                        + " (capacity=" + PlacedDump.CAPACITY + ")");
        assertThat(dump.collector(victim.id())).isNull();
        assertThat(dump.collectors()).allSatisfy(c -> assertThat(c.overwritten()).isZero());
    }

    @Test
    void aWritePositionBehindTheSlotsIsCorrupt() throws Exception {
        placed.write(dir);
        Path file = placed.file(dir, placed.collectors.get(2));
        PlacedDump.setWritePosition(file, 2); // 5 tuples were written: slots 2..4 hold tuples at or past 2
        TraceDump dump = TraceDump.open(dir);
        assertThat(dump.errors()).singleElement().asString()
                .contains("trace file " + file + " is corrupt: header field writePosition=2 (capacity=16) contradicts slot 2, whose sequence=2");
    }

    @Test
    void aWriterKilledBetweenItsTwoStoresLeavesAReadableFile() throws Exception {
        placed.write(dir);
        Node victim = placed.collectors.get(0);
        Path file = placed.file(dir, victim);
        // The run was killed while writing tuple 5: its slot says -(5 + 1), the write position still says 5.
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file,
                java.nio.file.StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.nativeOrder()).putLong(0, -6),
                    org.eventspace.events.TraceBufferLayout.HEADER_LENGTH
                            + 5L * org.eventspace.events.TraceBufferLayout.SLOT_LENGTH);
        }
        TraceDump dump = TraceDump.open(dir);
        assertThat(dump.errors()).isEmpty();
        assertThat(dump.collector(victim.id()).size()).isEqualTo(PlacedDump.CALLS);
        assertThat(dump.collector(victim.id()).overwritten()).isZero();
    }

    @Test
    void aParentOutsideTheNodesIsRefusedNamingFileFieldAndValue() throws Exception {
        placed.write(dir);
        editNode(3, n -> n.put("parent", 99999));
        assertThatThrownBy(() -> TraceDump.open(dir)).isInstanceOf(IOException.class)
                .hasMessage(dir.resolve("pathmap.json") + ": nodes[3].parent=99999, expected null or a node id 0.."
                        + (placed.pathmap.nodes().size() - 1));
    }

    @Test
    void idsHostsAndPortsAreCheckedWithFileAndField() throws Exception {
        placed.write(dir);
        String file = dir.resolve("pathmap.json").toString();
        editNode(2, n -> n.put("id", 7));
        assertThatThrownBy(() -> TraceDump.open(dir)).hasMessage(file + ": nodes[2].id=7, ids must be the indexes");
        placed.write(dir);
        editNode(2, n -> n.put("host", "h9"));
        assertThatThrownBy(() -> TraceDump.open(dir)).hasMessage(file + ": nodes[2].host=\"h9\" is not in the hosts list");
        placed.write(dir);
        editNode(2, n -> n.put("parentPort", 5));
        assertThatThrownBy(() -> TraceDump.open(dir)).hasMessageStartingWith(file + ": nodes[2].parentPort=5, but its parent");
        placed.write(dir);
        editNode(2, n -> n.put("arity", -3));
        assertThatThrownBy(() -> TraceDump.open(dir)).hasMessage(file + ": nodes[2].arity=-3, expected 0.."
                + TraceDump.MAX_ARITY);
        placed.write(dir);
        editNode(2, n -> n.put("parent", "zero"));
        assertThatThrownBy(() -> TraceDump.open(dir)).hasMessage(file + ": nodes[2].parent=\"zero\", expected an integer 0.."
                + Integer.MAX_VALUE);
        placed.write(dir);
        ObjectNode root = (ObjectNode) new ObjectMapper().readTree(dir.resolve("pathmap.json").toFile());
        ((ObjectNode) root.withArray("entries").get(0)).put("node", -4);
        Files.writeString(dir.resolve("pathmap.json"), root.toString());
        assertThatThrownBy(() -> TraceDump.open(dir)).hasMessage(file + ": entries[0].node=-4, expected 0.." + Integer.MAX_VALUE);
    }

    @Test
    void aHugeValueInThePathmapIsNotEchoedWhole() throws Exception {
        placed.write(dir);
        String huge = "x".repeat(10 << 20);
        editNode(1, n -> n.put("host", huge));
        assertThatThrownBy(() -> TraceDump.open(dir)).isInstanceOf(IOException.class)
                .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThanOrEqualTo(TraceDump.MAX_MESSAGE_CHARS)
                        .contains("nodes[1].host=\"xxxx").contains("(" + huge.length() + " chars)"));
    }

    private void editNode(int index, java.util.function.Consumer<ObjectNode> edit) throws IOException {
        Path file = dir.resolve("pathmap.json");
        ObjectNode root = (ObjectNode) new ObjectMapper().readTree(file.toFile());
        edit.accept((ObjectNode) root.withArray("nodes").get(index));
        Files.writeString(file, root.toString());
    }

    static void deleteTree(Path path) throws IOException {
        try (Stream<Path> walk = Files.walk(path)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
