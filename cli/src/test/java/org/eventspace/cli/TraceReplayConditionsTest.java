package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code run --trace} keeps the run's conditions in the trace, and {@code trace replay} runs under them unless a flag
 * says otherwise: real host processes over loopback TCP, each wait bounded by {@code --timeout}.
 */
class TraceReplayConditionsTest {
    @TempDir
    Path dir;

    private final CliHarness cli = new CliHarness();
    private final ObjectMapper json = new ObjectMapper();

    @Test
    void aReplayOverTcpRunsUnderTheOriginalsConditionsAndAFlagOverridesThem() throws Exception {
        Path trace = dir.resolve("gsum.trace.json");
        assertThat(cli.execute("run", "gsum", "--ranks", "2", "--hosts", "2", "--transport", "tcp", "--collectors", "off",
                "--poll", "yield", "--iterations", "200", "--warmup", "20", "--warmup-s", "0", "--timeout", "30",
                "--trace", trace.toString())).as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        JsonNode conditions = json.readTree(trace.toFile()).path("conditions");
        assertThat(conditions.path("workload").asText()).isEqualTo("gsum");
        assertThat(conditions.path("iterations").asLong()).isEqualTo(200);
        assertThat(conditions.path("transport").asText()).isEqualTo("tcp");
        assertThat(conditions.path("ranks").asInt()).isEqualTo(2);
        assertThat(conditions.path("hosts").asInt()).isEqualTo(2);
        assertThat(conditions.path("layout").asText()).isEqualTo("shortcut");
        assertThat(conditions.path("poll").asText()).isEqualTo("yield");
        assertThat(conditions.path("bind_to").asText()).isEqualTo("none");
        assertThat(conditions.path("collectors").asBoolean(true)).isFalse();

        // No layout flag at all: the replay takes the original's (before, it ran 2 ranks on 1 host with collectors on).
        Path same = dir.resolve("same.replay.json");
        assertThat(cli.execute("trace", "replay", trace.toString(), "--timeout", "30", "--json", same.toString()))
                .as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        assertThat(cli.out()).contains("over tcp").contains("conditions: as the original ran (tcp, 2 ranks on 2 host(s), "
                + "tree hier:8 × 2, poll yield, bind-to none, collectors off)");
        JsonNode r = json.readTree(same.toFile());
        assertThat(r.path("transport").asText()).isEqualTo("tcp");
        assertThat(r.path("complete").asBoolean()).isTrue();
        assertThat(r.path("original_conditions_recorded").asBoolean()).isTrue();
        assertThat(r.path("conditions_differ").size()).isZero();

        // A flag overrides its condition, and the output says what now differs.
        Path oneHost = dir.resolve("one-host.replay.json");
        assertThat(cli.execute("trace", "replay", trace.toString(), "--hosts", "1", "--collectors", "on", "--timeout", "30",
                "--json", oneHost.toString())).as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        assertThat(cli.out()).contains("conditions DIFFER from the original's: hosts 1 (original 2), collectors on "
                + "(original off)");
        JsonNode o = json.readTree(oneHost.toFile());
        assertThat(o.path("transport").asText()).isEqualTo("tcp");
        assertThat(o.path("complete").asBoolean()).isTrue();
        assertThat(o.path("conditions_differ")).extracting(JsonNode::asText)
                .containsExactly("hosts 1 (original 2)", "collectors on (original off)");
    }

    @Test
    void aTraceWithoutConditionsReplaysAsItsFlagsSayAndSaysSo() throws Exception {
        Path trace = editedGsumTrace("old.trace.json", root -> assertThat(root.remove("conditions")).isNotNull());
        Path out = dir.resolve("old.replay.json");
        assertThat(cli.execute("trace", "replay", trace.toString(), "--json", out.toString())).as(cli.err())
                .isEqualTo(EventSpaceCommand.EXIT_OK);
        assertThat(cli.out()).contains("conditions: the trace does not record the original's; the replay ran on jvm, "
                + "2 ranks on 1 host(s)");
        assertThat(json.readTree(out.toFile()).path("original_conditions_recorded").asBoolean(true)).isFalse();
    }

    @Test
    void aConditionTheReplayCannotUseIsReportedAsTakenFromTheTrace() throws Exception {
        Path trace = editedGsumTrace("bad.trace.json", root -> ((ObjectNode) root.get("conditions")).put("poll", "often"));
        assertThat(cli.execute("trace", "replay", trace.toString())).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(cli.err()).contains("--poll").contains("often").contains("--poll often taken from " + trace
                + "'s recorded conditions; give the flag to override");
        assertThat(cli.execute("trace", "replay", trace.toString(), "--poll", "auto")).as(cli.err())
                .isEqualTo(EventSpaceCommand.EXIT_OK);
    }

    /** A 2-rank gsum trace in one JVM, written to {@code name}, its JSON then changed by {@code edit}. */
    private Path editedGsumTrace(String name, Consumer<ObjectNode> edit) throws Exception {
        Path trace = dir.resolve(name);
        assertThat(cli.execute("run", "gsum", "--ranks", "2", "--iterations", "50", "--warmup", "5", "--warmup-s", "0",
                "--trace", trace.toString())).as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        ObjectNode root = (ObjectNode) json.readTree(trace.toFile());
        edit.accept(root);
        Files.write(trace, json.writeValueAsBytes(root));
        return trace;
    }
}
