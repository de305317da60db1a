package org.eventspace.trace;

/** Integer arithmetic the trace's encodings share (the JDK has no {@code gcd} for {@code long}s). Stateless. */
final class LongMath {
    private LongMath() {
    }

    /** The greatest common divisor of two non-negative values, by Euclid's algorithm; {@code gcd(0, b) = b}. */
    static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }
}
