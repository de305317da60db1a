package org.eventspace.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;

import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.job.JobConfig;
import org.eventspace.job.JobTransport;
import org.eventspace.trace.TimeEncoding;
import org.eventspace.trace.Trace;
import org.eventspace.trace.TraceConfig;
import org.eventspace.trace.TraceFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** sor: the distributed grid equals rank 0's single-rank grid bit for bit; traced, its halo exchange is rank ± 1. */
class SorTest {
    @TempDir
    Path dir;

    private static RunConfig sor(int ranks) {
        JobConfig job = JobConfig.of(JobConfig.shortcut(ranks, 2, 1, TreeShape.FLAT), JobTransport.JVM).withCollectors(false)
                .withTimeout(Duration.ofSeconds(30));
        return new RunConfig(Workload.SOR, job, 50, 5, Duration.ZERO, 1, 0);
    }

    @Test
    void distributedGridIsExactlyTheSingleRankGrid() {
        RunReport report = RunEngine.run(sor(5));
        assertThat(report.resultOk()).as(report.summary()).isTrue();
        assertThat(report.summary()).contains("iteration time");
    }

    @Test
    void tracedSorHasThreeRolesAndRelativePeers() throws Exception {
        Path file = dir.resolve("sor.json");
        TracedRun.Result result = TracedRun.run(sor(6), TraceConfig.of(TimeEncoding.HIST), file);
        assertThat(result.report().resultOk()).isTrue();
        // Rank 0, odd middle ranks, even middle ranks and the last rank play four roles; aligned, they share every loop
        // (each exchange call names the roles that make it), so the file lists one group over all ranks.
        assertThat(result.requireTrace().groups()).isEqualTo(1);
        Trace trace = TraceFile.read(file);
        assertThat(trace.nodes()).allSatisfy(n -> assertThat(n.ranks().size()).isEqualTo(6));
        assertThat(trace.expand(2)).filteredOn(c -> c.peer() != Long.MIN_VALUE).extracting(Trace.Call::peer)
                .containsOnly(-1L, 1L);
        assertThat(trace.sites()).containsValue("Sor.exchange send up").containsValue("Sor.iteration convergence allreduce");
    }

    @Test
    void pathSensitiveHistogramsSeparateTheConvergenceAllreducesPredecessors() throws Exception {
        Path file = dir.resolve("sor-path.json");
        TracedRun.run(sor(4), TraceConfig.of(TimeEncoding.PATH), file);
        Trace trace = TraceFile.read(file);
        // Rank 0's convergence allreduce follows its recv from below; its first event after the barrier follows the barrier.
        java.io.StringWriter out = new java.io.StringWriter();
        org.eventspace.trace.TracePrinter.print(trace, new java.io.PrintWriter(out), true);
        assertThat(out.toString()).contains("after Sor.exchange recv from below").contains("after -");
    }
}
