package org.eventspace.mpi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The linear map between the MPI_Init and MPI_Finalize offsets, on a clock whose skew and rate are known. */
class ClockMapTest {
    /** A host clock 5 ms ahead of rank 0's at true time 1 s, running 100 ppm fast: local(t). */
    private static long local(long t) {
        return t + 5_000_000L + Math.round((t - 1_000_000_000L) * 100e-6);
    }

    @Test
    void twoExactOffsetsMapEveryTimestampBackOntoTheBaseClock() {
        long t0 = 1_000_000_000L;
        long t1 = 61_000_000_000L; // a minute later
        ClockMap m = ClockMap.linear(local(t0), t0 - local(t0), 1_000, local(t1), t1 - local(t1), 2_000);

        assertThat(m.linear()).isTrue();
        for (long t = t0 - 10_000_000_000L; t <= t1 + 10_000_000_000L; t += 3_333_333_333L) {
            // inside and beyond the interval: the same line (exact up to rounding, 1 ns)
            assertThat(m.toBase(local(t))).as("t=%d", t).isCloseTo(t, within(1L));
        }
        // 100 ppm of 60 s: the offset moved by 6 ms; as a rate over the local span, 100 / (1 + 100e-6) ppm
        assertThat(m.driftNs()).isEqualTo(-6_000_000L);
        assertThat(m.driftPpm()).isCloseTo(-100 / (1 + 100e-6), within(1e-6));
        // each end within its bound: the interpolation within the larger bound
        assertThat(m.errorBoundNs()).isEqualTo(2_000);
    }

    @Test
    void offsetsOffByTheirBoundsKeepEveryMappedTimestampWithinTheLargerBound() {
        long t0 = 1_000_000_000L;
        long t1 = 11_000_000_000L;
        // the init offset measured 1 µs too high, the finalize one 3 µs too low (bounds 1 µs and 3 µs)
        ClockMap m = ClockMap.linear(local(t0), t0 - local(t0) + 1_000, 1_000, local(t1), t1 - local(t1) - 3_000, 3_000);
        for (long t = t0; t <= t1; t += 500_000_000L) {
            assertThat(Math.abs(m.toBase(local(t)) - t)).as("t=%d", t).isLessThanOrEqualTo(m.errorBoundNs());
        }
        assertThat(m.errorBoundNs()).isEqualTo(3_000);
    }

    @Test
    void withoutAFinalizeMeasurementTheInitOffsetAloneApplies() {
        ClockMap m = ClockMap.constant(100, -20_000_000L, 4_000);
        assertThat(m.linear()).isFalse();
        assertThat(m.toBase(1_000_000_000L)).isEqualTo(980_000_000L);
        assertThat(m.driftNs()).isZero();
        assertThat(m.errorBoundNs()).isEqualTo(4_000);
        // two measurements at the same local time leave nothing to interpolate over
        assertThat(ClockMap.linear(100, 5, 2, 100, 9, 2).linear()).isFalse();
    }

    @Test
    void aLongRunDoesNotOverflow() {
        // 30 days at 1 ms of drift per second: Δoffset · Δt is far beyond a long
        long day = 86_400_000_000_000L;
        ClockMap m = ClockMap.linear(0, 0, 0, 30 * day, 30 * 86_400_000_000L, 0);
        assertThat(m.offsetAt(15 * day)).isEqualTo(15 * 86_400_000_000L);
    }
}
