package org.eventspace.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.eventspace.comm.Comm;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.events.CollectorPlacement;
import org.eventspace.events.EventSpace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

/** A monitored job in one JVM: the wiring of collectors and scope, the live snapshot, the final report. */
@Timeout(120)
class MonitoredJobTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);

    private static JobConfig config(int ranks, int hosts) {
        return JobConfig.of(JobConfig.shortcut(ranks, hosts, 1, TreeShape.hier(2)), JobTransport.JVM)
                .withTimeout(Duration.ofSeconds(20));
    }

    private static boolean allreduces(Comm comm, int n) {
        boolean exact = true;
        long size = comm.size();
        for (int i = 0; i < n; i++) {
            exact &= comm.allreduce(comm.rank() + (long) i, ReduceOp.SUM) == size * (size - 1) / 2 + size * i;
        }
        return exact;
    }

    @Test
    void everyCollectorOfEveryHostRecordsEveryCall() {
        JobConfig config = config(4, 2);
        int calls = 500;
        try (MonitoredJob job = MonitoredJob.inJvm(config)) {
            List<RankThreads.Outcome<Boolean>> ranks = job.runRanks(rank -> allreduces(job.comm(rank), calls), LIMIT);
            assertThat(ranks).allSatisfy(r -> assertThat(r.value()).isTrue());
            HostResult result = job.finish(null);

            assertThat(result.scope()).isNull();
            assertThat(result.traces()).extracting(HostTrace::host).containsExactly(0, 1);
            // Calls alternate over the two identical trees, and every call passes every collector of its tree once.
            int collectors = CollectorPlacement.count(job.pathmap());
            assertThat(result.traces().stream().mapToLong(HostTrace::tuplesWritten).sum())
                    .isEqualTo((long) calls * collectors / 2);
            assertThat(result.traces()).allSatisfy(t -> assertThat(t.collectors())
                    .isEqualTo(CollectorPlacement.countOn(job.pathmap(), t.host())));
        }
    }

    @Test
    void pointToPointSendsAreTracedOnBothEnds() {
        // The one place that wires collectors also wires them on point-to-point paths, which hosts build on demand.
        JobConfig config = config(2, 2);
        HostEventSpaces[] spaces = new HostEventSpaces[1];
        try (MonitoredJob job = MonitoredJob.inJvm(config)) {
            spaces[0] = job.eventSpaces();
            job.runRanks(rank -> {
                Comm comm = job.comm(rank);
                long[] data = new long[1];
                for (int i = 0; i < 10; i++) {
                    if (rank == 0) {
                        data[0] = i;
                        comm.send(1, data, 1);
                    } else {
                        comm.recv(0, data);
                    }
                }
                return null;
            }, LIMIT);
            job.finish(null);
            List<String> host0 = names(spaces[0].space(0));
            List<String> host1 = names(spaces[0].space(1));
            assertThat(host0).anyMatch(n -> n.equals("p2p.0.1.send"));
            assertThat(host1).anyMatch(n -> n.equals("p2p.0.1.serve"));
        }
    }

    private static List<String> names(EventSpace space) {
        List<String> names = new ArrayList<>();
        for (EventSpace.Entry e : space.entries()) {
            if (e.buffer().writePosition() > 0) {
                names.add(e.collectorName());
            }
        }
        return names;
    }

    @Test
    void snapshotsTakenWhileTheJobRunsOnlyGrowAndTheFinalOneAddsUp() throws Exception {
        JobConfig config = config(4, 2).withScope(ScopeSettings.parse("flat", "seq", "stats", 0));
        List<ScopeSnapshot> seen = new ArrayList<>();
        try (MonitoredJob job = MonitoredJob.inJvm(config)) {
            assertThat(job.runsFrontEnd()).isTrue();
            AtomicBoolean running = new AtomicBoolean(true);
            Thread watcher = new Thread(() -> {
                while (running.get()) {
                    job.snapshot().ifPresent(s -> {
                        synchronized (seen) {
                            seen.add(s);
                        }
                    });
                    try {
                        Thread.sleep(1);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            watcher.start();
            job.runRanks(rank -> allreduces(job.comm(rank), 3_000), LIMIT);
            running.set(false);
            watcher.join(10_000);
            assertThat(watcher.isAlive()).isFalse();
            HostResult result = job.finish(null);
            ScopeSnapshot last = seen.get(seen.size() - 1);
            for (int i = 1; i < seen.size(); i++) {
                assertThat(seen.get(i).rounds()).isGreaterThanOrEqualTo(seen.get(i - 1).rounds());
                assertThat(seen.get(i).recordsGathered()).isGreaterThanOrEqualTo(seen.get(i - 1).recordsGathered());
            }
            assertThat(last.closed()).isFalse();

            JsonNode scope = result.scope();
            assertThat(scope.path("error").isMissingNode()).isTrue();
            long produced = scope.path("records_produced").asLong();
            // Independently: every tuple the collectors wrote while the scope was open was produced for it.
            long written = result.traces().stream().mapToLong(HostTrace::tuplesWritten).sum();
            assertThat(produced).isPositive().isLessThanOrEqualTo(written);
            assertThat(scope.path("records_gathered").asLong() + scope.path("records_dropped").asLong()).isEqualTo(produced);
            assertThat(scope.path("gather_rate").asDouble())
                    .isEqualTo((double) scope.path("records_gathered").asLong() / produced);
            assertThat(scope.path("result").path("events").size()).isPositive();
            assertThat(scope.path("reduction_factor").asDouble()).isPositive();
            assertThat(job.snapshot().orElseThrow().closed()).isTrue();
        }
    }

    @Test
    void aTraceDumpIsReadableBeforeTheJobEnds(@TempDir Path dir) {
        JobConfig config = config(2, 2).withTraceDump(dir);
        try (MonitoredJob job = MonitoredJob.inJvm(config)) {
            // Written at the start: whatever ends the job, the trace files it leaves can be read.
            assertThat(dir.resolve(JobConfig.PATHMAP_FILE)).exists();
            assertThat(dir.resolve("host-0")).isDirectory();
            job.runRanks(rank -> allreduces(job.comm(rank), 10), LIMIT);
            job.finish(null);
        }
        assertThat(dir.resolve("host-1")).isDirectoryContaining(p -> p.toString().endsWith(".trace"));
    }

    @Test
    void aFailedRankIsReportedAndTheOthersAreNotKeptWaiting() {
        JobConfig config = config(2, 1).withTimeout(Duration.ofSeconds(2));
        try (MonitoredJob job = MonitoredJob.inJvm(config)) {
            List<RankThreads.Outcome<Boolean>> ranks = job.runRanks(rank -> {
                if (rank == 1) {
                    throw new IllegalStateException("rank 1 gave up");
                }
                return allreduces(job.comm(rank), 1);
            }, LIMIT);
            assertThat(ranks.get(1).error()).isEqualTo("rank 1 gave up");
            assertThat(ranks.get(0).ok()).isFalse();
            assertThat(ranks.get(0).error()).contains("gred");
            assertThat(RankThreads.allReturned(ranks)).isTrue();
        }
    }
}
