package org.eventspace.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;

import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.events.CollectorSettings;
import org.eventspace.job.ScopeSettings;
import org.eventspace.monitor.Coschedule;
import org.eventspace.monitor.MonitorKind;
import org.junit.jupiter.api.Test;

/** A run configuration reaches the host processes whole: collector selection, sort length, monitors and faults included. */
class RunConfigCodecTest {
    @Test
    void roundTripKeepsEveryField() {
        RunConfig config = new RunConfig(Benchmark.COMPUTE_GSUM, RunConfig.shortcut(4, 2, 1, TreeShape.hier(2)), "tcp",
                500, 20, Duration.ofMillis(300), Duration.ofSeconds(7), 2, "yield", 65536, true, Path.of("/tmp/dump"),
                new CollectorSettings(Set.of(PathmapBuilder.GRED), Set.of(1), 256), 1234, ScopeSettings.parse("kary:2", "par:2", "hist:8", 0))
                .withMonitoring(new Monitoring(Set.of(MonitorKind.LOADBALANCE, MonitorKind.STATS), Coschedule.II),
                        new Faults(3, 200, 0.25, 50));

        RunConfig back = RunConfigCodec.decode(RunConfigCodec.encode(config));

        assertThat(back).isEqualTo(config);
        assertThat(back.pathmap().nodes()).hasSameSizeAs(config.pathmap().nodes());
    }

    @Test
    void collectorTreesMustExistAndSortLengthBeInRange() {
        RunConfig base = new RunConfig(Benchmark.GSUM, RunConfig.shortcut(2, 1, 1, TreeShape.FLAT), "jvm", 10, 10,
                Duration.ofSeconds(5), 1);
        assertThatThrownBy(() -> base.withCollectorSettings(CollectorSettings.ALL.withTrees(Set.of(2))))
                .hasMessageContaining("tree 2").hasMessageContaining("2 trees");
        assertThatThrownBy(() -> base.withSortLength(-1)).hasMessageContaining("sortLength=-1");
        assertThat(base.withSortLength(64).sortLength()).isEqualTo(64);
    }
}
