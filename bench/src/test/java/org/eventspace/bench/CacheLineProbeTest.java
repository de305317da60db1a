package org.eventspace.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class CacheLineProbeTest {
    /** {@link CacheLineProbe}'s rounds and time limit (private there): the mean is over the second half of the rounds. */
    private static final int ROUNDS = 300_000;
    private static final long LIMIT_NANOS = 2_000_000_000L;
    /**
     * No round trip is faster: it is two transfers of a cache line between cores, each at least a snoop of another
     * core's L1 (tens of cycles even between hyperthreads of one core; 130 to 340 ns on the 2-core VMs we measure on).
     */
    private static final double FASTEST_PLAUSIBLE_NS = 10;

    @Test
    @Timeout(30)
    void measuresAPlausibleRoundTripAndEndsItsThread() throws Exception {
        long start = System.nanoTime();
        double nanos = CacheLineProbe.roundTripNanos();
        long elapsed = System.nanoTime() - start;

        assertThat(nanos).isGreaterThanOrEqualTo(FASTEST_PLAUSIBLE_NS);
        // A mean of the rounds it timed cannot exceed the time the whole probe took; a probe that ran all its rounds
        // inside its limit timed half of them, so its mean is at most its time over ROUNDS / 2 (then below 13.4 µs:
        // a figure that takes more is a unit or averaging error, not a slow machine).
        assertThat(nanos).isLessThanOrEqualTo(elapsed);
        if (elapsed < LIMIT_NANOS) {
            assertThat(nanos).isLessThanOrEqualTo(elapsed / (ROUNDS / 2.0)).isLessThan(LIMIT_NANOS / (ROUNDS / 2.0));
        }
        Thread.sleep(50);
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals("es-cacheline-probe"));
    }
}
