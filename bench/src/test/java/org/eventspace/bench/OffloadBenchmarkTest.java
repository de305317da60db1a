package org.eventspace.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** ToM's offload benchmark on a small job: every record pushed reaches the front-end, with and without reduction. */
@Timeout(120)
class OffloadBenchmarkTest {
    private static OffloadBenchmark.Config config(String reduce, int periodUs) {
        return new OffloadBenchmark.Config(8, 2, 2, periodUs, 4, reduce, 8, "seq", 10, 2, Duration.ofSeconds(20));
    }

    @Test
    void everyOffloadedRecordIsGatheredWithAndWithoutReduction() {
        for (String reduce : new String[] {"none", "hist"}) {
            OffloadBenchmark.Result r = OffloadBenchmark.run(config(reduce, 100));
            long rounds = OffloadBenchmark.WARMUP_ROUNDS + 10;
            assertThat(r.recordsProduced()).as(reduce).isEqualTo(8 * 4 * rounds);
            assertThat(r.recordsGathered()).as(reduce).isEqualTo(r.recordsProduced());
            assertThat(r.recordsDropped()).isZero();
            assertThat(r.gatherRate()).isEqualTo(1.0);
            assertThat(r.avgOffloadUs()).isPositive();
            assertThat(r.barrierUs()).isPositive();
            assertThat(r.bytesMoved()).isPositive();
        }
    }

    @Test
    void theMeanIsOverRoundsOfTheWorstRank() {
        long[][] perRank = {{9_000, 1_000, 3_000}, {2_000, 5_000, 1_000}};
        // Round 0 is warm-up; then max(1, 5) µs and max(3, 1) µs.
        assertThat(OffloadBenchmark.worstPerRoundMeanUs(perRank, 1)).isEqualTo(4.0);
    }

    @Test
    void badConfigurationsNameTheValue() {
        assertThatThrownBy(() -> config("squash", 10)).hasMessageContaining("reduce=squash");
        assertThatThrownBy(() -> new OffloadBenchmark.Config(8, 2, 1, 10, 4, "none", 8, "seq", 10, 2, Duration.ofSeconds(1)))
                .hasMessageContaining("fanout=1");
    }
}
