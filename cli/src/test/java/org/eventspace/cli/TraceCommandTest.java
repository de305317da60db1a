package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.PathmapDescription;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.Topology;
import org.eventspace.comm.pathmap.TreeShape;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import picocli.CommandLine;

/** {@code eventspace trace dump}: exit codes and where errors go (the analysis itself: WrapperLatenciesTest). */
class TraceCommandTest {
    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int execute(String... args) {
        CommandLine cli = EventSpaceCommand.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    @Test
    void aDirectoryThatIsNoDumpExitsWithUsageNamingIt() {
        assertThat(execute("trace", "dump", dir.resolve("nope").toString())).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(err.toString()).contains("nope").contains("is not a directory");
        assertThat(execute("trace", "dump", dir.toString())).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(err.toString()).contains("has no pathmap.json");
    }

    @Test
    void theDumpOfARunWithAnEventScopeIsReadable() {
        // A scope's nodes call no one through a port (arity 0); the dump's layout checks must accept them.
        assertThat(execute("run", "gsum", "--ranks", "4", "--hosts", "2", "--iterations", "300", "--warmup", "10",
                "--warmup-s", "0", "--scope", "flat", "--filter", "stats", "--trace-dump", dir.toString()))
                .isEqualTo(EventSpaceCommand.EXIT_OK);
        assertThat(execute("trace", "dump", dir.toString(), "--latencies")).as(err.toString()).isEqualTo(EventSpaceCommand.EXIT_OK);
        assertThat(out.toString()).contains("gred t0.gred.h0.0");
    }

    @Test
    void aBadFormatIsAUsageError() throws Exception {
        writePlainDump();
        assertThat(execute("trace", "dump", dir.toString(), "--format", "xml")).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(err.toString()).contains("--format must be text or jsonl, got xml");
    }

    @Test
    void anUnreadableTraceFileIsNamedOnStderrAndTheRestIsPrinted() throws Exception {
        writePlainDump();
        Path stray = dir.resolve("host-0").resolve("3.stray.trace");
        Files.createDirectories(stray.getParent());
        Files.writeString(stray, "junk");
        assertThat(execute("trace", "dump", dir.toString(), "--latencies")).isEqualTo(EventSpaceCommand.EXIT_FAILURE);
        assertThat(out.toString()).contains("Wrapper latencies from " + dir).contains("not analysed: core t0.core.h0: no collector above it");
        assertThat(err.toString()).contains(stray.toString());
    }

    @Test
    void anEmptyDumpPrintsItsHeader() throws Exception {
        writePlainDump();
        assertThat(execute("trace", "dump", dir.toString())).isEqualTo(EventSpaceCommand.EXIT_OK);
        assertThat(out.toString()).startsWith("Trace dump " + dir + ": 0 collectors, 0 tuples, 0 unreadable files");
        assertThat(execute("trace", "dump", dir.toString(), "--format", "jsonl", "--latencies")).isEqualTo(EventSpaceCommand.EXIT_OK);
        assertThat(out.toString()).contains("\"schema\":\"eventspace.latencies/1\"");
    }

    /** A pathmap without collectors: a dump of a run with collectors off. */
    private void writePlainDump() throws Exception {
        Files.writeString(dir.resolve("pathmap.json"), PathmapDescription.toJson(
                PathmapBuilder.build(PathmapSpec.of(Topology.simulated(1, 1, 2), 2, 1, TreeShape.FLAT))));
    }

    @Test
    void pointToPointSendsOfARealRunAreDumpedAndTheirHopsTimed() throws Exception {
        Path dump = dir.resolve("pingpong");
        assertThat(execute("run", "pingpong", "--ranks", "2", "--hosts", "2", "--iterations", "200", "--warmup", "100",
                "--warmup-s", "0", "--trace-dump", dump.toString())).as(err.toString()).isEqualTo(EventSpaceCommand.EXIT_OK);
        out.getBuffer().setLength(0);

        assertThat(execute("trace", "dump", dump.toString(), "--format", "jsonl", "--latencies")).as(err.toString())
                .isEqualTo(EventSpaceCommand.EXIT_OK);
        com.fasterxml.jackson.databind.JsonNode latencies = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(out.toString());
        java.util.Map<String, Long> joined = new java.util.TreeMap<>();
        latencies.path("hops").forEach(h -> joined.put(h.path("proxy").asText(), h.path("calls_joined").asLong()));
        // Each rank sent at least 300 messages to the other; a 256-tuple ring on each side keeps the last 256.
        assertThat(joined).containsEntry("p2p.0.1", (long) org.eventspace.events.PointToPointCollectors.CAPACITY)
                .containsEntry("p2p.1.0", (long) org.eventspace.events.PointToPointCollectors.CAPACITY);
        latencies.path("hops").forEach(h -> {
            if (h.path("proxy").asText().startsWith("p2p.")) {
                assertThat(h.path("two_way_latency").path("min_ns").asLong()).as(h.toString()).isPositive();
            }
        });
    }

    /**
     * A dump as a run writes it: 4 ranks on 2 hosts (hier:2) with collectors placed by CollectorPlacement, and a
     * mapped trace buffer with 3 calls for every collector in host-&lt;id&gt;/. Returns the collector nodes.
     */
    private java.util.List<org.eventspace.comm.pathmap.Node> writePlacedDump() throws Exception {
        org.eventspace.comm.pathmap.Pathmap traced = org.eventspace.events.CollectorPlacement.place(PathmapBuilder.build(
                PathmapSpec.of(Topology.simulated(1, 2, 2), 4, 1, TreeShape.parse("hier:2"))));
        Files.writeString(dir.resolve("pathmap.json"), PathmapDescription.toJson(traced));
        java.util.List<org.eventspace.comm.pathmap.Node> collectors = new java.util.ArrayList<>();
        for (org.eventspace.comm.pathmap.Node n : traced.nodes()) {
            if (!n.kind().equals(org.eventspace.events.CollectorKind.NAME)) {
                continue;
            }
            collectors.add(n);
            int id = org.eventspace.events.CollectorKind.collectorId(n);
            Path file = traceFile(n);
            Files.createDirectories(file.getParent());
            try (org.eventspace.events.TraceBuffer buffer = org.eventspace.events.TraceBuffer.mapped(file, 16, id)) {
                for (long seq = 0; seq < 3; seq++) {
                    buffer.write(id, org.eventspace.events.TraceOp.ALLREDUCE_SUM, seq, 4, 1000 * seq, 1000 * seq + 500);
                }
            }
        }
        return collectors;
    }

    private Path traceFile(org.eventspace.comm.pathmap.Node collector) {
        return dir.resolve("host-" + collector.host()).resolve(org.eventspace.events.EventSpace.fileName(
                org.eventspace.events.CollectorKind.collectorId(collector), collector.name()));
    }

    @Test
    void aDumpWithAHostDirectoryDeletedNamesTheMissingCollectorsAndHostAndExitsOne() throws Exception {
        java.util.List<org.eventspace.comm.pathmap.Node> collectors = writePlacedDump();
        assertThat(execute("trace", "dump", dir.toString())).as(err.toString()).isEqualTo(EventSpaceCommand.EXIT_OK);
        out.getBuffer().setLength(0);
        try (java.util.stream.Stream<Path> walk = Files.walk(dir.resolve("host-0"))) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
        java.util.List<org.eventspace.comm.pathmap.Node> lost = collectors.stream().filter(c -> c.host() == 0).toList();
        assertThat(execute("trace", "dump", dir.toString())).isEqualTo(EventSpaceCommand.EXIT_FAILURE);
        // What is still there is printed: every collector of host 1 with its tuples.
        assertThat(out.toString()).startsWith("Trace dump " + dir + ": " + (collectors.size() - lost.size())
                + " collectors, " + 3 * (collectors.size() - lost.size()) + " tuples, 0 unreadable files, " + lost.size()
                + " collectors in pathmap.json without a trace file");
        for (org.eventspace.comm.pathmap.Node c : collectors) {
            if (c.host() == 1) {
                assertThat(out.toString()).contains(c.name() + "  @h1  collector");
            }
        }
        assertThat(err.toString()).contains("eventspace: trace dump: host h0 (" + dir.resolve("host-0") + "): "
                + lost.size() + " collectors listed in pathmap.json have no trace file");
        for (org.eventspace.comm.pathmap.Node c : lost) {
            assertThat(err.toString()).contains(c.name());
        }
        err.getBuffer().setLength(0);
        assertThat(execute("trace", "dump", dir.toString(), "--latencies")).isEqualTo(EventSpaceCommand.EXIT_FAILURE);
        assertThat(out.toString()).contains("Wrapper latencies from " + dir);
        assertThat(err.toString()).contains("have no trace file");
    }

    @Test
    void aCorruptWritePositionNamesFileFieldAndValueAndExitsOne() throws Exception {
        java.util.List<org.eventspace.comm.pathmap.Node> collectors = writePlacedDump();
        Path file = traceFile(collectors.get(0));
        for (long position : new long[] {-1, Long.MAX_VALUE}) {
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file,
                    java.nio.file.StandardOpenOption.WRITE)) {
                ch.write(java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.nativeOrder()).putLong(0, position),
                        org.eventspace.events.TraceBufferLayout.WRITE_POSITION_OFFSET);
            }
            err.getBuffer().setLength(0);
            assertThat(execute("trace", "dump", dir.toString())).isEqualTo(EventSpaceCommand.EXIT_FAILURE);
            assertThat(err.toString()).contains("eventspace: trace dump: trace file " + file
                    + " is corrupt: header field writePosition=" + position);
            assertThat(out.toString()).contains((collectors.size() - 1) + " collectors, " + 3 * (collectors.size() - 1)
                    + " tuples, 1 unreadable files");
        }
    }

    @Test
    void aParentOutOfRangeInPathmapJsonNamesFileFieldAndValueAndExitsOne() throws Exception {
        writePlacedDump();
        Path pathmap = dir.resolve("pathmap.json");
        com.fasterxml.jackson.databind.node.ObjectNode root = (com.fasterxml.jackson.databind.node.ObjectNode)
                new com.fasterxml.jackson.databind.ObjectMapper().readTree(pathmap.toFile());
        int nodes = root.withArray("nodes").size();
        ((com.fasterxml.jackson.databind.node.ObjectNode) root.withArray("nodes").get(1)).put("parent", 99999);
        Files.writeString(pathmap, root.toString());
        assertThat(execute("trace", "dump", dir.toString())).isEqualTo(EventSpaceCommand.EXIT_FAILURE);
        assertThat(err.toString()).isEqualTo("eventspace: trace dump: " + pathmap + ": nodes[1].parent=99999, expected "
                + "null or a node id 0.." + (nodes - 1) + System.lineSeparator());
        assertThat(out.toString()).isEmpty();
    }
}
