package org.eventspace.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.HdrHistogram.Histogram;
import org.eventspace.job.HostTrace;
import org.eventspace.comm.pathmap.TreeShape;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** The run report's {@code collectors} block and the two new run settings' trip to TCP host processes. */
class RunCollectorsReportTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static RunConfig config(boolean collectors, Path dump) {
        return new RunConfig(Workload.GSUM, RunConfig.shortcut(2, 2, 1, TreeShape.hier(8)), "tcp", 1_000, 10,
                Duration.ofMillis(0), Duration.ofSeconds(5), 1, "yield", 0, collectors, dump);
    }

    private static List<RankResult> ranks() {
        Histogram h = RankResult.newHistogram();
        h.recordValue(1_000);
        return List.of(new RankResult(0, 1_000_000, 1_000, 0, true, null, h), new RankResult(1, 1_000_000, 1_000, 0, true, null, h));
    }

    @Test
    void collectorsBlockSumsHostsAndNamesTheBusiest() {
        // 2 ranks on 2 hosts, hier:8, 2 trees: 3 collectors a tree on h0, 1 on h1.
        List<HostTrace> traces = List.of(new HostTrace(0, 6, 3_060, 3_000, 1_180_416), new HostTrace(1, 2, 1_020, 1_000, 393_472));
        JsonNode c = new RunReport(config(true, null), ranks(), List.of(), traces).toJson(JSON).path("collectors");

        assertThat(c.path("count").asInt()).isEqualTo(8);
        assertThat(c.path("tuples_written").asLong()).isEqualTo(4_080);
        assertThat(c.path("bytes_per_call").asDouble()).isEqualTo(160.0);          // (3000 + 1000) × 40 B / 1000 calls
        assertThat(c.path("bytes_per_call_busiest_host").asDouble()).isEqualTo(120.0);
        assertThat(c.path("buffer_bytes_per_host").asLong()).isEqualTo(1_180_416);
        assertThat(c.path("per_host")).hasSize(2);
    }

    @Test
    void aHostThatNeverClosedItsWindowLeavesBytesPerCallToTheOthers() {
        List<HostTrace> traces = List.of(new HostTrace(0, 6, 3_060, -1, 1_180_416), new HostTrace(1, 2, 1_020, 1_000, 393_472));
        JsonNode c = new RunReport(config(true, null), ranks(), List.of(), traces).toJson(JSON).path("collectors");

        assertThat(c.path("bytes_per_call").asDouble()).isEqualTo(40.0);
        assertThat(c.path("per_host").get(0).path("bytes_per_call").isNull()).isTrue();
    }

    @Test
    void collectorsOffIsCountZero() {
        JsonNode c = new RunReport(config(false, null), ranks()).toJson(JSON).path("collectors");

        assertThat(c.path("count").asInt()).isZero();
        assertThat(c.size()).isEqualTo(1);
    }

    @Test
    void codecCarriesCollectorsAndTheDumpDirectory() {
        RunConfig on = config(true, Path.of("some/dump"));
        RunConfig back = RunConfigCodec.decode(RunConfigCodec.encode(on));
        assertThat(back.collectors()).isTrue();
        assertThat(back.traceDump()).isEqualTo(Path.of("some/dump").toAbsolutePath().normalize());
        RunConfig off = RunConfigCodec.decode(RunConfigCodec.encode(config(false, null)));
        assertThat(off.collectors()).isFalse();
        assertThat(off.traceDump()).isNull();
        assertThat(HostTrace.fromJson(new HostTrace(1, 2, 3, 4, 5).toJson(JSON))).isEqualTo(new HostTrace(1, 2, 3, 4, 5));
    }

    @Test
    void aDumpWithoutCollectorsIsRefused() {
        assertThatThrownBy(() -> config(false, Path.of("d"))).hasMessageContaining("needs collectors on");
    }
}
