package org.eventspace.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.runtime.CommOptions;
import org.eventspace.comm.runtime.InJvmCluster;
import org.eventspace.scope.EventScope;
import org.eventspace.scope.filter.StatsResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The scope front-end agent, stepped by hand: its schedule, its totals, and the result it keeps. */
@Timeout(60)
class ScopeFrontEndTest {
    private static final Duration LIMIT = Duration.ofSeconds(30);

    /** A 4-rank, 2-host job in this JVM with collectors and a scope, its front-end stepped by the test. */
    private record Fixture(JobConfig config, Pathmap pathmap, HostEventSpaces spaces, InJvmCluster cluster) implements AutoCloseable {
        static Fixture start(String filter, int intervalMs) {
            JobConfig config = JobConfig.of(JobConfig.shortcut(4, 2, 1, TreeShape.hier(2)), JobTransport.JVM)
                    .withTimeout(Duration.ofSeconds(10)).withScope(ScopeSettings.parse("flat", "seq", filter, intervalMs));
            Pathmap pathmap = config.pathmap();
            HostEventSpaces spaces = HostEventSpaces.open(config, pathmap, List.of(0, 1), 4);
            InJvmCluster cluster = InJvmCluster.start(pathmap,
                    spaces.apply(CommOptions.defaults(pathmap.busyThreads()).withTimeout(config.timeout())));
            return new Fixture(config, pathmap, spaces, cluster);
        }

        ScopeFrontEnd frontEnd() {
            return ScopeFrontEnd.openForStepping(config.scope(), EventScope.on(cluster.host(0)),
                    MonitoredJob.headroom(config, pathmap));
        }

        void allreduces(int n) {
            List<RankThreads.Outcome<Object>> outcomes = RankThreads.run(IntStream.range(0, 4).boxed().toList(), rank -> {
                for (int i = 0; i < n; i++) {
                    cluster.comm(rank).allreduce(rank, ReduceOp.SUM);
                }
                return null;
            }, LIMIT);
            assertThat(outcomes).allMatch(RankThreads.Outcome::ok);
        }

        long tuplesWritten() {
            return spaces.results().stream().mapToLong(HostTrace::tuplesWritten).sum();
        }

        @Override
        public void close() {
            cluster.close();
            spaces.close();
        }
    }

    @Test
    void everyTupleWrittenWhileOpenIsCountedOnceAndGathered() {
        try (Fixture f = Fixture.start("stats", 0)) {
            long before = f.tuplesWritten();
            ScopeFrontEnd frontEnd = f.frontEnd();
            f.allreduces(300);
            long written = f.tuplesWritten() - before;
            assertThat(written).isPositive();

            assertThat(frontEnd.doWork()).isEqualTo(1);
            ScopeSnapshot s = frontEnd.snapshot();
            // Counted independently: what the event spaces say their collectors wrote since the scope opened.
            assertThat(s.recordsProduced()).isEqualTo(written);
            assertThat(s.recordsGathered() + s.recordsDropped()).isEqualTo(written);
            assertThat(s.rawBytes()).isEqualTo(s.recordsGathered() * 40);
            assertThat(s.gatherRate()).isEqualTo((double) s.recordsGathered() / written);
            assertThat(s.resultRound()).isEqualTo(0);
            assertThat(s.result()).isInstanceOf(StatsResult.class);
            assertThat(((StatsResult) s.result()).events()).isNotEmpty();
            assertThat(s.result().round()).isEqualTo(s.resultRound());

            ScopeSnapshot last = frontEnd.stop(5_000);
            assertThat(last.closed()).isTrue();
            assertThat(last.error()).isNull();
            assertThat(last.rounds()).isEqualTo(1 + ScopeFrontEnd.FINAL_PULLS);
            assertThat(last.recordsProduced()).isEqualTo(written);
            // Nothing new after round 0, so the result kept is still round 0's, not an empty one.
            assertThat(last.resultRound()).isEqualTo(0);
            // The whole run's statistics hold every record gathered, each in its event.
            assertThat(last.runStatistics().values().stream().mapToLong(e -> e.count()).sum()).isEqualTo(written);
        }
    }

    @Test
    void aFailedRoundSaysHowLongTheRoundsBeforeItTook() {
        try (Fixture f = Fixture.start("stats", 0)) {
            ScopeFrontEnd frontEnd = f.frontEnd();
            f.allreduces(10);
            assertThat(frontEnd.doWork()).isEqualTo(1);
            double seconds = frontEnd.snapshot().roundNanos() / 1e9;
            frontEnd.onError(new IllegalStateException("hop h0->h1:scope.gather.h1.0[0]: no reply within 10000 ms"));
            String error = frontEnd.snapshot().error();
            assertThat(error).startsWith("scope round failed: hop h0->h1:scope.gather.h1.0[0]: no reply within 10000 ms")
                    .contains("the 1 rounds before it took " + String.format(java.util.Locale.ROOT, "%.1f", seconds))
                    .contains("--timeout");
            frontEnd.stop(5_000);
        }
    }

    @Test
    void theWholeRunsStatisticsMergeEveryRound() {
        try (Fixture f = Fixture.start("stats", 0)) {
            ScopeFrontEnd frontEnd = f.frontEnd();
            f.allreduces(100);
            frontEnd.doWork();
            ScopeSnapshot first = frontEnd.snapshot();
            f.allreduces(300);
            ScopeSnapshot last = frontEnd.stop(5_000);
            String event = first.runStatistics().firstKey();
            // The last round's result holds only its own calls; the run's statistics hold all of them.
            assertThat(last.runStatistics().get(event).count()).isEqualTo(4 * first.runStatistics().get(event).count());
            assertThat(last.runStatistics().get(event).max()).isGreaterThanOrEqualTo(first.runStatistics().get(event).max());
        }
    }

    @Test
    void anIntervalSpacesThePulls() {
        try (Fixture f = Fixture.start("stats", 60_000)) {
            ScopeFrontEnd frontEnd = f.frontEnd();
            assertThat(frontEnd.doWork()).isEqualTo(1);
            f.allreduces(10);
            assertThat(frontEnd.doWork()).isZero();
            assertThat(frontEnd.snapshot().rounds()).isEqualTo(1);
            // stop still drains what was written.
            ScopeSnapshot last = frontEnd.stop(5_000);
            assertThat(last.recordsGathered()).isEqualTo(f.tuplesWritten());
        }
    }

    @Test
    void aPipelinedFiltersResultNamesTheRoundItDescribes() {
        try (Fixture f = Fixture.start("hist:8", 0)) {
            ScopeFrontEnd frontEnd = f.frontEnd();
            f.allreduces(100);
            frontEnd.doWork();
            // ToM's histogram needs round 0's bounds before its bins: round 0's result arrives with round 1.
            assertThat(frontEnd.snapshot().resultRound()).isEqualTo(-1);
            frontEnd.doWork();
            assertThat(frontEnd.snapshot().resultRound()).isEqualTo(0);
            assertThat(frontEnd.stop(5_000).resultRound()).isEqualTo(0);
        }
    }

    @Test
    void theAdaptivePauseWaitsForARoundsWorthButNeverRisksTheBuffers() {
        ScopeFrontEnd.Headroom headroom = new ScopeFrontEnd.Headroom(4, 10, 4096);
        long target = 4L * ScopeFrontEnd.TARGET_RECORDS_PER_LEAF;
        // A full round, or one whose rate is unknown: no pause.
        assertThat(ScopeFrontEnd.adaptivePause(target, target, 1_000_000, 0, headroom)).isZero();
        assertThat(ScopeFrontEnd.adaptivePause(10, 0, 1_000_000, 0, headroom)).isZero();
        // 16 records in 100 µs: 240 more take 1.5 ms; each buffer fills at 1/10 of the rate, in 256 ms: 1.5 ms it is.
        assertThat(ScopeFrontEnd.adaptivePause(16, 16, 100_000, 0, headroom)).isBetween(1_499_999L, 1_500_000L);
        // A slow trickle: capped at the maximum.
        assertThat(ScopeFrontEnd.adaptivePause(1, 1, 1_000_000, 0, headroom)).isEqualTo(ScopeFrontEnd.MAX_ADAPTIVE_PAUSE_NANOS);
        // Small buffers at a high rate: a quarter of their filling time, less the round's own time.
        ScopeFrontEnd.Headroom small = new ScopeFrontEnd.Headroom(4, 1, 64);
        long pause = ScopeFrontEnd.adaptivePause(100, 100, 10_000, 1_000, small);
        assertThat(pause).isBetween(64 * 100 / 4 - 1_001L, 64 * 100 / 4 - 1_000L);
        assertThat(ScopeFrontEnd.adaptivePause(100, 100, 10_000, 1_000_000, small)).isZero();
    }
}
