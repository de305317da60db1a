package org.eventspace.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.job.JobConfig;
import org.eventspace.job.JobTransport;
import org.eventspace.job.MonitoredJob;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Warm-up rounds are bounded by time, agree across ranks, and still warm up a full round without warm-up time. */
@Timeout(60)
class WarmupRoundsTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void roundsShrinkToFitTheBudgetButNeverBelowTheProbe() {
        // Fast iterations: the configured rounds.
        assertThat(RankWorkloads.WarmupRounds.sizeFor(10_000, SECOND, 200)).isEqualTo(10_000);
        // 5 ms per iteration (128 ranks on 2 cores): 200 fit a second, not 10 000 (50 s).
        assertThat(RankWorkloads.WarmupRounds.sizeFor(10_000, SECOND, 5_000_000)).isEqualTo(200);
        // Slower still: the probe's size, never fewer.
        assertThat(RankWorkloads.WarmupRounds.sizeFor(10_000, SECOND, 50_000_000)).isEqualTo(RankWorkloads.WarmupRounds.PROBE);
        // A configured round smaller than the probe stays as configured.
        assertThat(RankWorkloads.WarmupRounds.sizeFor(10, SECOND, 50_000_000)).isEqualTo(10);
    }

    @Test
    void roundsNoLongerThanTheProbeAreTheConfiguredRoundsWithNoExtraCollective() {
        RankWorkloads.WarmupRounds rounds = new RankWorkloads.WarmupRounds(50, Duration.ZERO);
        assertThat(rounds.next()).isEqualTo(50);
        assertThat(rounds.owes(null)).as("needs no collective, so no comm").isFalse();
    }

    @Test
    void theProbeComesFirstThenOneAgreedRoundIsOwedEvenWithoutWarmupTime() {
        JobConfig config = JobConfig.of(JobConfig.shortcut(1, 1, 1, TreeShape.FLAT), JobTransport.JVM).withCollectors(false);
        try (MonitoredJob job = MonitoredJob.inJvm(config)) {
            job.runRanks(rank -> {
                RankWorkloads.WarmupRounds rounds = new RankWorkloads.WarmupRounds(500, Duration.ZERO);
                assertThat(rounds.next()).isEqualTo(RankWorkloads.WarmupRounds.PROBE);
                // After the probe the ranks agree on the size (an allreduce), and a full round is still owed.
                assertThat(rounds.owes(job.comm(rank))).isTrue();
                assertThat(rounds.next()).isEqualTo(500);
                assertThat(rounds.owes(job.comm(rank))).isFalse();
                return null;
            }, Duration.ofSeconds(30)).forEach(o -> assertThat(o.error()).isNull());
        }
    }
}
