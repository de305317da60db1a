package org.eventspace.trace;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

/** {@link ScaledEstimate}: exact below 2048, within 2^−11 above, at most 3 bytes of CBOR up to 73 minutes, monotone. */
class ScaledEstimateProperties {
    @Property
    void aValueReadsBackWithinOnePartIn2048(@ForAll @LongRange(min = 0, max = Long.MAX_VALUE / 2) long ns) {
        long back = roundTrip(ns);
        if (ns < 2048) {
            assertThat(back).isEqualTo(ns);
        } else {
            assertThat(Math.abs((double) back - ns)).isLessThanOrEqualTo(ns / 2048.0);
        }
    }

    @Property
    void codesKeepTheOrderOfTheirValues(@ForAll @LongRange(min = 0, max = 1L << 50) long a,
                                        @ForAll @LongRange(min = 0, max = 1L << 50) long b) {
        long lo = Math.min(a, b);
        long hi = Math.max(a, b);
        assertThat(ScaledEstimate.encode(lo)).isLessThanOrEqualTo(ScaledEstimate.encode(hi));
        assertThat(roundTrip(lo)).isLessThanOrEqualTo(roundTrip(hi));
    }

    @Property
    void everyEstimateUpTo73MinutesIsACodeBelow65536(@ForAll @LongRange(min = 0, max = 2047L << 31) long ns) {
        assertThat(ScaledEstimate.encode(ns)).isBetween(0L, 65_535L);
    }

    /** The value as written and read back: what a reader of the file sees for {@code value}. */
    private static long roundTrip(double value) {
        return ScaledEstimate.decode(ScaledEstimate.encode(value));
    }

    @Test
    void examplesAndCodesNoLongHolds() {
        assertThat(ScaledEstimate.encode(1_642_632)).isEqualTo(10 * 2048 + 1604);
        assertThat(ScaledEstimate.decode(10 * 2048 + 1604)).isEqualTo(1_642_496);
        assertThat(ScaledEstimate.encode(2047)).isEqualTo(2047);
        // 4095 / 2 rounds to 2048, one bit too many: 1024 × 2^2
        assertThat(ScaledEstimate.encode(4095)).isEqualTo(2 * 2048 + 1024);
        assertThat(ScaledEstimate.decode(2 * 2048 + 1024)).isEqualTo(4096);
        assertThat(ScaledEstimate.encode(-3)).isZero();
        assertThat(ScaledEstimate.encode(Double.NaN)).isZero();
        assertThat(ScaledEstimate.decode(-1)).isEqualTo(-1);
        assertThat(ScaledEstimate.decode(63L * 2048 + 1)).isEqualTo(-1);
        assertThat(ScaledEstimate.decode(53L * 2048 + 2047)).isEqualTo(-1);
        assertThat(ScaledEstimate.decode(52L * 2048 + 2047)).isEqualTo(2047L << 52);
        assertThat(ScaledEstimate.decode(52L * 2048 + 1023)).isEqualTo(1023L << 52);
    }
}
