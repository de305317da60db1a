package org.eventspace.events.dump;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A few hundred {@link TraceDumpFuzz} cases in every build ({@code -Deventspace.fuzz.cases=N} for more, or its
 * {@code main}); the fixed seed makes a failure reproducible by its case seed.
 */
class TraceDumpFuzzTest {
    @TempDir
    Path dir;

    @Test
    void randomlyCorruptedDumpsAreReportedNeverThrownWithBoundedMessages() throws Exception {
        long cases = Long.getLong("eventspace.fuzz.cases", 300);
        long seed = Long.getLong("eventspace.fuzz.seed", 20261126);
        try (TraceDumpFuzz fuzz = new TraceDumpFuzz(dir)) {
            assertThat(fuzz.run(seed, cases)).isNull();
            assertThat(fuzz.opened + fuzz.refused).isEqualTo(cases);
            // both paths are exercised: dumps read with errors, and pathmaps refused
            assertThat(fuzz.opened).isPositive();
            assertThat(fuzz.refused).isPositive();
        }
    }
}
