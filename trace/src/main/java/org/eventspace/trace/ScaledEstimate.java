package org.eventspace.trace;

/**
 * How a trace file writes an estimate (a timing's mean and standard deviation, a histogram bin's edges, average and
 * standard deviation): a small floating-point number in one non-negative integer, {@code code = e × 2048 + m} for the
 * value {@code m × 2^e}, with an 11-bit mantissa {@code m}. Values below 2048 ns are written exactly ({@code e = 0});
 * above, to within 2^−11 of the value (0.05 %: half a step of a mantissa of at least 1024). 1 642 632 ns is written
 * 22 132 (e = 10, m = 1604) and read back as 1 642 496 ns.
 *
 * <p>Why: a trace's size should not depend on how long its calls took. Written as exact integers, a delta above 65.5 µs
 * takes 5 bytes of CBOR where one below takes 3, so the same sor program traced at 256 ranks on 2 cores, whose deltas
 * preemption makes 3–10× longer, wrote a trace 7–12 % larger than at 8 ranks with the same structure; as codes, every
 * estimate up to 73 minutes takes at most 3 bytes. The precision is far below what an estimate knows (a mean of n calls
 * with standard deviation s is uncertain by s/√n) and what a replay re-enacts (a few per cent). What is counted or
 * observed stays exact: a timing's n, min, max and their ranks, a bin's frequency, every parameter.
 */
final class ScaledEstimate {
    /** Bits of the mantissa: codes below 2^16 up to 2047 × 2^31 ns, so at most 3 bytes of CBOR. */
    static final int MANTISSA_BITS = 11;
    private static final long MANTISSA_LIMIT = 1L << MANTISSA_BITS;

    private ScaledEstimate() {
    }

    /** The code of {@code value} (negative values and NaN are written as 0: estimates of durations are not negative). */
    static long encode(double value) {
        long x = value > 0 ? Math.round(value) : 0;
        if (x < MANTISSA_LIMIT) {
            return x;
        }
        int e = 64 - Long.numberOfLeadingZeros(x) - MANTISSA_BITS;
        long m = ((x >>> (e - 1)) + 1) >>> 1; // rounded to nearest
        if (m == MANTISSA_LIMIT) {
            m >>>= 1;
            e++;
        }
        return ((long) e << MANTISSA_BITS) | m;
    }

    /** The value {@code code} stands for, or -1 when no long value has that code (too large). */
    static long decode(long code) {
        if (code < 0) {
            return -1;
        }
        long e = code >>> MANTISSA_BITS;
        long m = code & (MANTISSA_LIMIT - 1);
        if (e == 0 || m == 0) {
            return e == 0 ? m : 0;
        }
        if (e > 62 || 64 - Long.numberOfLeadingZeros(m) + e > 63) {
            return -1;
        }
        return m << e;
    }
}
