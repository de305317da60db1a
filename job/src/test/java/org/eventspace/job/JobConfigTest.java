package org.eventspace.job;

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
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** A job's configuration: validated on construction, and whole when it reaches the host processes. */
class JobConfigTest {
    private static JobConfig full() {
        return new JobConfig(JobConfig.shortcut(4, 2, 1, TreeShape.hier(2)), JobTransport.TCP, Duration.ofSeconds(7),
                PollMode.YIELD, 65536, true, Path.of("/tmp/dump"),
                new CollectorSettings(Set.of(PathmapBuilder.GRED), Set.of(1), 256),
                ScopeSettings.parse("kary:2", "par:2", "hist:8", 5));
    }

    @Test
    void roundTripKeepsEveryField() {
        JobConfig config = full();
        JobConfig back = JobConfigCodec.decode(JobConfigCodec.encode(config));
        assertThat(back).isEqualTo(config);
        assertThat(back.pathmap().nodes()).hasSameSizeAs(config.pathmap().nodes());
    }

    @Test
    void aMalformedConfigurationNamesTheField() {
        ObjectNode node = JobConfigCodec.toJson(full());
        node.remove("timeout_ms");
        assertThatThrownBy(() -> JobConfigCodec.fromJson(node)).hasMessageContaining("timeout_ms");
        ObjectNode poll = JobConfigCodec.toJson(full()).put("poll", "sometimes");
        assertThatThrownBy(() -> JobConfigCodec.fromJson(poll)).hasMessageContaining("poll").hasMessageContaining("sometimes");
        assertThatThrownBy(() -> JobConfigCodec.decode("not base64 !")).hasMessageContaining("malformed job configuration");
        ObjectNode schema = new ObjectMapper().createObjectNode().put("schema", "eventspace.run-config/1");
        assertThatThrownBy(() -> JobConfigCodec.fromJson(schema)).hasMessageContaining(JobConfigCodec.SCHEMA);
    }

    /**
     * Found by the fuzz suite (job-config, e.g. seeds 1671 and 3491 from seed 1000): a 100 000-character poll mode or
     * schema came back whole in the message a host process logs.
     */
    @Test
    void aMessageQuotesAtMost1024CharactersOfTheLine() {
        String huge = "y".repeat(100_000);
        for (String field : List.of("schema", "transport", "poll")) {
            ObjectNode node = JobConfigCodec.toJson(full()).put(field, huge);
            String word = Base64.getEncoder().encodeToString(node.toString().getBytes(StandardCharsets.UTF_8));

            assertThatThrownBy(() -> JobConfigCodec.decode(word)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("malformed job configuration: ").hasMessageContaining("yyyy")
                    .hasMessageEndingWith("characters)")
                    .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThanOrEqualTo(JobConfigCodec.MAX_MESSAGE_CHARS));
        }
        assertThatThrownBy(() -> JobConfigCodec.fromJson(null)).hasMessageContaining("expected a JSON object");
    }

    @Test
    void whatCannotRunIsRefusedWithTheValues() {
        JobConfig base = full();
        assertThatThrownBy(() -> base.withCollectorSettings(CollectorSettings.ALL.withTrees(Set.of(2))))
                .hasMessageContaining("tree 2").hasMessageContaining("2 trees");
        assertThatThrownBy(() -> base.withCollectors(true).withTimeout(Duration.ZERO)).hasMessageContaining("timeout");
        assertThatThrownBy(() -> base.withTimeout(Duration.ofDays(2))).hasMessageContaining("24 h");
        assertThatThrownBy(() -> JobConfig.shortcut(1, 2, 1, TreeShape.FLAT)).hasMessageContaining("2 hosts need >= 2 ranks");
        // Off means no scope and no dump: both read the collectors.
        JobConfig off = base.withCollectors(false);
        assertThat(off.scope()).isNull();
        assertThat(off.traceDump()).isNull();
        assertThatThrownBy(() -> off.withScope(base.scope())).hasMessageContaining("needs collectors on");
    }

    @Test
    void idleHostsGoToTheScope() {
        JobConfig config = JobConfig.of(JobConfig.shortcut(4, 2, 1, TreeShape.hier(2), 1), JobTransport.JVM)
                .withScope(ScopeSettings.parse("hier:2", "seq", "stats", 0));
        assertThat(config.hosts()).isEqualTo(3);
        assertThat(config.scope().toSpec(config.timeout(), config.spec()).extraHosts()).containsExactly(2);
    }

    @Test
    void typedValuesParseOnceAndNameWhatIsWrong() {
        assertThat(JobTransport.parse("TCP")).isEqualTo(JobTransport.TCP);
        assertThat(PollMode.parse("spin")).isEqualTo(PollMode.SPIN);
        assertThatThrownBy(() -> JobTransport.parse("udp")).hasMessageContaining("'udp'");
        assertThatThrownBy(() -> ScopeSettings.parse("flat", "seq", "stats", -2)).hasMessageContaining("intervalMs=-2");
        assertThat(ScopeSettings.parse("flat", "seq", "stats", ScopeSettings.ADAPTIVE).cadence()).isEqualTo("adaptive");
        assertThatThrownBy(() -> ScopeSettings.parse("flat", "par:0", "stats", 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
