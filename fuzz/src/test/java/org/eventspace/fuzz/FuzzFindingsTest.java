package org.eventspace.fuzz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.eventspace.base.json.Json;
import org.eventspace.monitor.model.RunModel;
import org.eventspace.net.TopologyFile;
import org.eventspace.trace.TraceFile;
import org.eventspace.trace.TraceFormatException;
import org.eventspace.ui.DashboardServer;
import org.eventspace.ui.RunFileSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The defects the trace-file, run-report, topology and HTTP fuzzers found (docs/RELIABILITY.md, "Found and fixed"), each
 * reduced to its smallest input and held here: the reader refuses it with its documented exception, naming the file and
 * the place, in a bounded message.
 */
class FuzzFindingsTest {
    @TempDir
    Path dir;

    /** Jackson's nesting limit has no location; reading it threw a NullPointerException. */
    @Test
    void aTraceNestedDeeperThanTheParserReadsIsRefusedNamingTheFile() throws Exception {
        byte[] deep = new byte[3 + 2000];
        deep[0] = (byte) 0xd9;
        deep[1] = (byte) 0xd9;
        deep[2] = (byte) 0xf7;
        java.util.Arrays.fill(deep, 3, deep.length, (byte) 0x81);
        Path cbor = Files.write(dir.resolve("deep.cbor"), deep);
        Path json = Files.writeString(dir.resolve("deep.json"), "[".repeat(2000));

        assertThatThrownBy(() -> TraceFile.read(cbor)).isInstanceOf(TraceFormatException.class)
                .hasMessageStartingWith(cbor + ": not CBOR");
        assertThatThrownBy(() -> TraceFile.read(json)).isInstanceOf(TraceFormatException.class)
                .hasMessageStartingWith(json + ": not JSON");
    }

    /** A report without {@code operations}, or with a null list inside, was refused by a wrapped NullPointerException. */
    @Test
    void aReportWithANullListIsRefusedNamingThePlaceNotANullPointer() throws Exception {
        ObjectNode doc = (ObjectNode) Json.mapper().readTree(RecordedRuns.get().reports().get(0));
        ObjectNode noOperations = doc.deepCopy();
        noOperations.remove("operations");
        ObjectNode nullList = doc.deepCopy();
        ((ObjectNode) nullList.get("coverage")).putNull("unfinished_ranks");

        assertThat(RunModel.read(doc, "r.json").ranks()).isEqualTo(4);
        for (ObjectNode bad : new ObjectNode[] {noOperations, nullList}) {
            assertThatThrownBy(() -> RunModel.read(bad, "r.json")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("r.json: not a valid eventspace.run/2 report: at ")
                    .hasMessageContaining("a required value is null or missing").hasNoCause();
        }
    }

    @Test
    void aReportsSchemaIsQuotedAtMost80Characters() throws Exception {
        ObjectNode doc = (ObjectNode) Json.mapper().readTree(RecordedRuns.get().reports().get(0));
        doc.put("schema", "y".repeat(100_000));

        assertThatThrownBy(() -> RunModel.read(doc, "r.json")).hasMessageContaining("(100000 characters)")
                .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(300));
    }

    /** A 2-ary 16-tree (65 536 nodes, within the node limit) needed 2^35 forwarding entries and never finished. */
    @Test
    void generatorsWhoseTablesCannotBeBuiltAreRefusedAtOnce() throws Exception {
        for (String line : new String[] {"fattree 2 16", "torus 256 256", "fattree 256 2"}) {
            Path file = Files.writeString(dir.resolve("big.topo"), "eventspace-topology 1\n" + line + "\n");
            assertThatThrownBy(() -> TopologyFile.read(file)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith(file + ":2: ").hasMessageContaining("forwarding entries");
        }
        Path fits = Files.writeString(dir.resolve("fits.topo"), "eventspace-topology 1\ntorus 16 16\n");
        assertThat(TopologyFile.read(fits).nodes()).hasSize(256);
    }

    /** {@code fattree 4 2147483647}: K^N overflowed to 0, passed the node limit and threw a NegativeArraySizeException. */
    @Test
    void aFatTreeWithTooManyLevelsIsRefusedByItsSize() throws Exception {
        Path file = Files.writeString(dir.resolve("levels.topo"), "eventspace-topology 1\nfattree 4 2147483647\n");
        assertThatThrownBy(() -> TopologyFile.read(file)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(file + ":2: a 4-ary 2147483647-tree has ").hasMessageContaining("at most 65536");
    }

    /** An ibnetdiscover file named by 5 000 characters (too long a name for the OS) came back twice, whole. */
    @Test
    void aMissingFileWithALongNameIsNamedBounded() throws Exception {
        Path file = Files.writeString(dir.resolve("long.topo"), "eventspace-topology 1\nibnetdiscover " + "n".repeat(5000)
                + "\n");
        assertThatThrownBy(() -> TopologyFile.read(file)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(file + ":2: ").hasMessageContaining("nnn: cannot read: ")
                .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(500));
    }

    /** The 404 answer quoted the whole path, up to Jetty's 8 KiB. */
    @Test
    void aLongUnknownPathIsQuotedClipped() throws Exception {
        var report = Json.mapper().readTree(RecordedRuns.get().reports().get(0));
        try (DashboardServer server = DashboardServer.start(new RunFileSource("r.json", report), DashboardServer.LOOPBACK, 0)) {
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
            HttpResponse<String> answer = client.send(HttpRequest.newBuilder(URI.create(server.url().replaceAll("/$", "")
                    + "/api/v1/" + "a".repeat(2000))).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());

            assertThat(answer.statusCode()).isEqualTo(404);
            assertThat(Json.mapper().readTree(answer.body()).path("message").asText())
                    .startsWith("no such page or API path '/api/v1/aaaa").hasSizeLessThan(300);
        }
    }

    /** A switch of 2^31 - 1 ports threw a NegativeArraySizeException; a 100 000-character name came back whole. */
    @Test
    void aSwitchsPortsAndEveryEchoedNameAreBounded() throws Exception {
        Path ports = Files.writeString(dir.resolve("ports.topo"),
                "eventspace-topology 1\nswitch s 2147483647\nnode a\nlink a 1 s 1\n");
        assertThatThrownBy(() -> TopologyFile.read(ports)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage(ports + ":2: expected PORTS, 1..1024, got 2147483647");

        String name = "s".repeat(100_000);
        Path twice = Files.write(dir.resolve("twice.topo"), ("eventspace-topology 1\nswitch " + name + " 4\nswitch " + name
                + " 4\n").getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> TopologyFile.read(twice)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(twice + ":3: device 'sss").hasMessageEndingWith("' is declared twice")
                .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(400));
    }
}
