package org.eventspace.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.eventspace.base.json.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** The trace file's optional {@code conditions} block: written, read back, absent in older files, validated. */
class RunConditionsTest {
    @TempDir
    Path dir;

    static RunConditions tcpTwoHosts() {
        return new RunConditions("compute-gsum", 50_000, 100, 2.0, "tcp", 8, 2, 1, "hier:8", 2, RunConditions.SHORTCUT,
                "auto", "core", 0, false, "none", List.of(), List.of("-Xmx2g"));
    }

    @Test
    void roundTripsThroughJsonAndCborFiles() throws Exception {
        Trace trace = TraceFileTest.stencil(8, TimeEncoding.HIST);
        for (String name : List.of("c.trace.json", "c.trace.cbor")) {
            Path file = dir.resolve(name);
            long bytes = TraceFile.write(trace, tcpTwoHosts(), file);
            assertThat(Files.size(file)).isEqualTo(bytes);
            TraceFile.Recorded back = TraceFile.readRecorded(file);
            assertThat(back.conditions()).isEqualTo(tcpTwoHosts());
            assertThat(TraceFile.toJson(back.trace())).isEqualTo(TraceFile.toJson(trace));
            // A reader that knows nothing of the block reads the same trace.
            assertThat(TraceFile.toJson(TraceFile.read(file))).isEqualTo(TraceFile.toJson(trace));
        }
        String text = Files.readString(dir.resolve("c.trace.json"));
        assertThat(text).contains("\"conditions\":{\"workload\":\"compute-gsum\"").contains("\"bind_to\":\"core\"")
                .contains("\"socket_buffer_bytes\":0").contains("\"jvm_options\":[\"-Xmx2g\"]");
    }

    @Test
    void aFileWithoutTheBlockHasNoConditions() throws Exception {
        Path file = dir.resolve("old.trace.json");
        TraceFile.write(TraceFileTest.stencil(4, TimeEncoding.STATS), file);
        assertThat(Files.readString(file)).doesNotContain("conditions");
        assertThat(TraceFile.readRecorded(file).conditions()).isNull();
    }

    @Test
    void aBadFieldIsNamedWithItsPlace() throws Exception {
        Path file = dir.resolve("bad.trace.json");
        ObjectNode root = TraceFile.toJson(TraceFileTest.stencil(4, TimeEncoding.STATS));
        ObjectNode conditions = tcpTwoHosts().toJson();
        conditions.put("hosts", 0);
        root.set(RunConditions.FIELD, conditions);
        Files.write(file, Json.mapper().writeValueAsBytes(root));
        assertThatThrownBy(() -> TraceFile.readRecorded(file)).isInstanceOf(TraceFormatException.class)
                .hasMessage(file + ": at /conditions/hosts: expected an integer 1..2147483647, got 0");
        conditions.put("hosts", 2).remove("poll");
        Files.write(file, Json.mapper().writeValueAsBytes(root));
        assertThatThrownBy(() -> TraceFile.readRecorded(file)).hasMessage(file + ": at /conditions/poll: expected a "
                + "non-empty string, got nothing");
        conditions.put("poll", "auto").put("layout", "mesh");
        Files.write(file, Json.mapper().writeValueAsBytes(root));
        assertThatThrownBy(() -> TraceFile.readRecorded(file)).hasMessage(file + ": at /conditions/layout: expected "
                + "\"shortcut\" or \"config\", got \"mesh\"");
    }

    @Test
    void differencesNameWhatTheReplayChanged() {
        RunConditions original = tcpTwoHosts();
        assertThat(original.differences(original)).isEmpty();
        RunConditions oneHostCollectorsOn = new RunConditions("gsum", 1, 1, 0, "tcp", 8, 1, 1, "hier:8", 2,
                RunConditions.SHORTCUT, "auto", "none", 0, true, "none", List.of(), List.of("-Xmx2g"));
        // The workload fields are the trace's own: not compared.
        assertThat(original.differences(oneHostCollectorsOn)).containsExactly("hosts 1 (original 2)",
                "bind-to none (original core)", "collectors on (original off)");
        assertThat(original.summary()).isEqualTo("tcp, 8 ranks on 2 host(s), tree hier:8 × 2, poll auto, bind-to core, "
                + "collectors off");
    }
}
