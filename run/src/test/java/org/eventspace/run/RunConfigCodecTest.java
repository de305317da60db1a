package org.eventspace.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Set;

import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.events.CollectorSettings;
import org.eventspace.job.JobConfigCodec;
import org.eventspace.job.ScopeSettings;
import org.eventspace.monitor.Coschedule;
import org.eventspace.monitor.MonitorKind;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** A run configuration reaches the host processes whole: collector selection, sort length, monitors and faults included. */
class RunConfigCodecTest {
    @Test
    void roundTripKeepsEveryField() {
        RunConfig config = new RunConfig(Workload.COMPUTE_GSUM, RunConfig.shortcut(4, 2, 1, TreeShape.hier(2)), "tcp",
                500, 20, Duration.ofMillis(300), Duration.ofSeconds(7), 2, "yield", 65536, true, Path.of("/tmp/dump"),
                new CollectorSettings(Set.of(PathmapBuilder.GRED), Set.of(1), 256), 1234, ScopeSettings.parse("kary:2", "par:2", "hist:8", 0))
                .withMonitoring(new Monitoring(Set.of(MonitorKind.LOADBALANCE, MonitorKind.STATS), Coschedule.II),
                        new Faults(3, 200, 0.25, 50));

        RunConfig back = RunConfigCodec.decode(RunConfigCodec.encode(config));

        assertThat(back).isEqualTo(config);
        assertThat(back.pathmap().nodes()).hasSameSizeAs(config.pathmap().nodes());
    }

    /** Found by the fuzz suite (run-config, seeds 26 and 118): a missing field was a wrapped NullPointerException. */
    @Test
    void aLineWithoutAFieldIsRefusedNamingIt() throws Exception {
        RunConfig config = new RunConfig(Workload.GSUM, RunConfig.shortcut(2, 1, 1, TreeShape.FLAT), "jvm", 10, 10,
                Duration.ofSeconds(5), 1);
        ObjectMapper json = new ObjectMapper();
        for (String field : List.of("benchmark", "job", "iterations", "warmup", "warmup_ms", "payload_words", "sort_length")) {
            ObjectNode node = (ObjectNode) json.readTree(Base64.getDecoder().decode(RunConfigCodec.encode(config)));
            node.remove(field);
            String word = Base64.getEncoder().encodeToString(node.toString().getBytes(StandardCharsets.UTF_8));

            assertThatThrownBy(() -> RunConfigCodec.decode(word)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("malformed run configuration argument: missing field '" + field + "'")
                    .hasRootCauseInstanceOf(IllegalArgumentException.class);
        }
        String empty = Base64.getEncoder().encodeToString(" ".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> RunConfigCodec.decode(empty)).hasMessageContaining("expected a JSON object");
    }

    /** Found by the fuzz suite (run-config): a 10 MB schema or benchmark name came back whole in the message. */
    @Test
    void aMessageQuotesAtMost1024CharactersOfTheLine() throws Exception {
        RunConfig config = new RunConfig(Workload.GSUM, RunConfig.shortcut(2, 1, 1, TreeShape.FLAT), "jvm", 10, 10,
                Duration.ofSeconds(5), 1);
        for (String field : List.of("schema", "benchmark")) {
            ObjectNode node = (ObjectNode) new ObjectMapper().readTree(Base64.getDecoder().decode(RunConfigCodec.encode(config)));
            node.put(field, "y".repeat(10 << 20));
            String word = Base64.getEncoder().encodeToString(node.toString().getBytes(StandardCharsets.UTF_8));

            assertThatThrownBy(() -> RunConfigCodec.decode(word)).hasMessageStartingWith("malformed run configuration argument: ")
                    .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThanOrEqualTo(JobConfigCodec.MAX_MESSAGE_CHARS));
        }
    }

    @Test
    void collectorTreesMustExistAndSortLengthBeInRange() {
        RunConfig base = new RunConfig(Workload.GSUM, RunConfig.shortcut(2, 1, 1, TreeShape.FLAT), "jvm", 10, 10,
                Duration.ofSeconds(5), 1);
        assertThatThrownBy(() -> base.withCollectorSettings(CollectorSettings.ALL.withTrees(Set.of(2))))
                .hasMessageContaining("tree 2").hasMessageContaining("2 trees");
        assertThatThrownBy(() -> base.withSortLength(-1)).hasMessageContaining("sortLength=-1");
        assertThat(base.withSortLength(64).sortLength()).isEqualTo(64);
    }
}
