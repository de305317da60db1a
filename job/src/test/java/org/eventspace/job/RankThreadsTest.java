package org.eventspace.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Rank threads: results kept, failures named, late ranks bounded and reported. */
@Timeout(30)
class RankThreadsTest {
    @Test
    void keepsEveryResultAndNamesEveryFailure() {
        List<RankThreads.Outcome<Integer>> outcomes = RankThreads.run(List.of(3, 5, 7), rank -> {
            if (rank == 5) {
                throw new IllegalStateException("rank five failed");
            }
            return rank * 10;
        }, Duration.ofSeconds(10));
        assertThat(outcomes).extracting(RankThreads.Outcome::rank).containsExactly(3, 5, 7);
        assertThat(outcomes.get(0).value()).isEqualTo(30);
        assertThat(outcomes.get(1).ok()).isFalse();
        assertThat(outcomes.get(1).error()).isEqualTo("rank five failed");
        assertThat(outcomes.get(2).value()).isEqualTo(70);
        assertThat(RankThreads.allReturned(outcomes)).isTrue();
    }

    @Test
    void aRankThatOutlivesTheLimitIsLateAndInterrupted() throws Exception {
        CountDownLatch interrupted = new CountDownLatch(1);
        long start = System.nanoTime();
        List<RankThreads.Outcome<Object>> outcomes = RankThreads.run(List.of(0, 1), rank -> {
            if (rank == 1) {
                try {
                    Thread.sleep(60_000);
                } catch (InterruptedException e) {
                    interrupted.countDown();
                }
            }
            return null;
        }, Duration.ofMillis(300));
        assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(20));
        assertThat(outcomes.get(0).ok()).isTrue();
        assertThat(outcomes.get(1).late()).isTrue();
        assertThat(RankThreads.allReturned(outcomes)).isFalse();
        assertThat(interrupted.await(10, TimeUnit.SECONDS)).isTrue();
    }
}
