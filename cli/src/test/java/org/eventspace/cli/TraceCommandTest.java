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
}
