package org.eventspace.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.eventspace.comm.Comm;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.job.JobConfig;
import org.eventspace.job.JobTransport;
import org.eventspace.job.MonitoredJob;
import org.eventspace.job.RankThreads;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The GC-free check of the monitored hot path: with collectors on every edge, the monitors running and the coscheduler
 * as the greds' release listener, a warm allreduce allocates nothing in the rank threads — the collector writes, the
 * gred joins and their release callbacks ({@code allArrived}, {@code released}: a map lookup, a counter, an unpark)
 * included. Measured per thread with the JVM's allocation counters; a single allocation per call would show as at
 * least 16 bytes × the calls.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CoscheduledHotPathAllocationTest {
    private static final int WARM = 20_000;
    private static final int CALLS = 10_000;
    /** Slack for one-off JDK internals (a park's first blocker record); a per-call leak is >= 16 × CALLS. */
    private static final long SLACK = 4_096;
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @ParameterizedTest
    @EnumSource(Coschedule.class)
    void aMonitoredCoscheduledAllreduceAllocatesNothingInTheRanks(Coschedule strategy) {
        MonitorSnapshot snapshot = runWithoutAllocating(TreeShape.hier(2), 1, strategy);
        // The job's two trees take turns, so each gred joined at most half the calls: the analysis thread runs at the
        // lowest priority, and on a loaded machine the rings may overwrite tuples before it reads them (counted).
        assertThat(snapshot.greds()).as("the monitors ran meanwhile").isNotEmpty()
                .allMatch(g -> g.calls().calls() > 0 && g.calls().calls() <= (WARM + CALLS) / 2)
                .allMatch(g -> g.calls().calls() == (WARM + CALLS) / 2 || g.missed() > 0 || g.dropped() > 0);
    }

    /**
     * On a butterfly the waiting ranks run their host's analysis pass themselves (after their exchange sent, the host's
     * idle work): the rank threads' allocation then covers the pass too — reading the collectors' tuples, joining them
     * and adding each call to the gred's statistics.
     */
    @ParameterizedTest
    @EnumSource(value = Coschedule.class, names = {"I", "II"})
    void aButterflyWhoseRanksRunTheAnalysisAllocatesNothingInTheRanks(Coschedule strategy) {
        MonitorSnapshot snapshot = runWithoutAllocating(TreeShape.butterfly(2), 4, strategy);
        assertThat(snapshot.greds()).as("every host's gred of one was analysed").hasSize(8)
                .allMatch(g -> g.calls().calls() == (WARM + CALLS) / 2);
        // The ranks ran passes, and one in 256 of them was timed: what they cost is in the report.
        long passes = snapshot.rankPasses().passes();
        assertThat(passes).as("passes run by the waiting ranks").isPositive();
        assertThat(snapshot.rankPasses().timed()).as("one in 256 of each host's passes timed")
                .isBetween(passes / HostAnalysis.TIMED_EVERY - 4, passes / HostAnalysis.TIMED_EVERY).isPositive();
        assertThat(snapshot.rankPasses().p50()).isPositive().isLessThanOrEqualTo(snapshot.rankPasses().p99());
    }

    /**
     * Runs 4 ranks on {@code hosts} simulated hosts with every monitor and the coscheduler, checks that no rank thread
     * allocated over the measured calls, and returns what the monitors saw.
     */
    private static MonitorSnapshot runWithoutAllocating(TreeShape shape, int hosts, Coschedule strategy) {
        JobConfig config = JobConfig.of(JobConfig.shortcut(4, hosts, 1, shape), JobTransport.JVM);
        try (MonitoredJob job = MonitoredJob.inJvm(config, pathmap -> Coscheduler.of(pathmap, strategy));
             Monitors monitors = Monitors.start(job, EnumSet.allOf(MonitorKind.class))) {
            List<RankThreads.Outcome<Long>> outcomes = job.runRanks(r -> allocated(job.comm(r)), Duration.ofSeconds(90));
            monitors.stop();
            job.finish(null);
            assertThat(outcomes).allMatch(RankThreads.Outcome::ok);
            assertThat(outcomes).extracting(RankThreads.Outcome::value).as(strategy + ": bytes per rank over " + CALLS + " calls")
                    .allMatch(b -> b < SLACK);
            return monitors.snapshot();
        }
    }

    /** Bytes this rank's thread allocated over {@link #CALLS} allreduces after {@link #WARM} warm ones. */
    private static long allocated(Comm comm) {
        long id = Thread.currentThread().getId();
        for (int i = 0; i < WARM; i++) {
            comm.allreduce(comm.rank() + 1L, ReduceOp.SUM);
        }
        long before = THREADS.getThreadAllocatedBytes(id);
        for (int i = 0; i < CALLS; i++) {
            comm.allreduce(comm.rank() + 1L, ReduceOp.SUM);
        }
        return THREADS.getThreadAllocatedBytes(id) - before;
    }
}
