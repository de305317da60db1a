package org.eventspace.ui;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import org.eventspace.mpi.MpiRun;
import org.eventspace.mpi.MpiRunConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard's view of an MPI run before its program started (no MPI needed: nothing runs): one flat gred whose
 * ports are the ranks, on the simulated hosts, no blocks yet, and the title line saying why the tree is flat.
 */
class MpiDashboardSourceTest {
    @TempDir
    Path dir;

    @Test
    void anMpiRunIsDrawnAsOneFlatGredOverItsRanksAndHosts() {
        MpiRunConfig config = new MpiRunConfig(6, "/opt/apps/lulesh", List.of("-s", "30"), dir, MpiRunConfig.DEFAULT_CAPACITY,
                2, 0, "mpirun", "mpicc", List.of(), 60, Set.of("loadbalance"), true, 0, null);
        MpiDashboardSource source = new MpiDashboardSource(new MpiRun(config).live(), "stats");

        DashboardSource.RunInfo info = source.info();
        assertThat(info.name()).isEqualTo("lulesh");
        assertThat(info.ranks()).isEqualTo(6);
        assertThat(info.hosts()).isEqualTo(2);
        assertThat(info.tree()).isEqualTo("flat");
        assertThat(info.filter()).isEqualTo("stats");
        assertThat(info.description()).startsWith("lulesh, 6 MPI ranks on 2 host(s); PMPI sees each collective's");
        assertThat(source.pathmap().spec().ranks()).isEqualTo(6);
        assertThat(source.pathmap().nodes()).filteredOn(n -> n.kind().equals("gred")).hasSize(1);
        assertThat(source.running()).isTrue();
        assertThat(source.monitors()).isEmpty();
        assertThat(source.scope()).isEmpty();
        assertThat(info.wallSeconds()).isNaN();
    }

    /**
     * What PMPI cannot see is named with why, so the page says it instead of drawing nothing: the way down and up, a
     * path's stages, the calls dropped while the program runs; ToM's histogram only when no filter was asked for.
     */
    @Test
    void whatPmpiCannotMeasureIsSaid() {
        MpiRunConfig config = new MpiRunConfig(4, "/opt/apps/lulesh", List.of(), dir, MpiRunConfig.DEFAULT_CAPACITY,
                0, 0, "mpirun", "mpicc", List.of(), 60, Set.of("loadbalance", "stats"), true, 0, null);
        MpiDashboardSource noFilter = new MpiDashboardSource(new MpiRun(config).live(), null);
        assertThat(noFilter.notMeasured()).containsOnlyKeys("down_us", "up_us", "timemap", "calls_dropped", "histograms");
        assertThat(noFilter.notMeasured().get("down_us")).startsWith("not measured for MPI runs: PMPI sees");
        assertThat(noFilter.notMeasured().get("histograms")).contains("--filter hist:16");
        MpiDashboardSource filtered = new MpiDashboardSource(new MpiRun(config).live(), "hist:16");
        assertThat(filtered.notMeasured()).doesNotContainKey("histograms");
        // Agent processes: their CPU is not in the cost pane's figure, and the page says so.
        MpiRunConfig processes = new MpiRunConfig(4, "/opt/apps/lulesh", List.of(), dir, MpiRunConfig.DEFAULT_CAPACITY,
                2, 0, "mpirun", "mpicc", List.of(), 60, Set.of("loadbalance"), true, 0, null, MpiRunConfig.Agents.PROCESSES);
        assertThat(new MpiDashboardSource(new MpiRun(processes).live(), "stats").notMeasured().get("analysis_cpu_pct"))
                .startsWith("the node-agent processes' own CPU is not measured");
        assertThat(noFilter.notMeasured()).doesNotContainKey("analysis_cpu_pct");
    }
}
