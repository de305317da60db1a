package org.eventspace.run;

import java.util.concurrent.locks.LockSupport;

/**
 * Faults a benchmark adds on purpose, for a monitor to find (`--slow-rank R:USEC`, `--noise P:USEC`): rank
 * {@code slowRank} waits {@code slowMicros} before every allreduce; in a fraction {@code noise} of iterations one rank,
 * drawn at random, waits {@code noiseMicros}. The draw is a hash of the iteration number, so every rank draws the same
 * victim without talking, and two runs draw the same ones. Immutable.
 *
 * <p>The wait gives the core away (it parks until the deadline) rather than spinning: on these machines the ranks
 * outnumber the cores, and a spinning rank would also slow every rank that shares its core, so the fault would not be
 * the one rank's. Measured: 20 ranks on 2 cores, a rank spinning 200 µs was last at its gred no more often than a
 * rank the scheduler happened to wake last; parked, it was last in 90–100 % of calls.
 *
 * @param slowRank    the rank made slow, or -1.
 * @param slowMicros  its extra time per iteration, µs.
 * @param noise       fraction of iterations, 0..1, in which a random rank is delayed.
 * @param noiseMicros that rank's extra time, µs.
 */
public record Faults(int slowRank, long slowMicros, double noise, long noiseMicros) {
    public static final Faults NONE = new Faults(-1, 0, 0, 0);
    /** The longest delay a fault may add per iteration: ten seconds. */
    public static final long MAX_MICROS = 10_000_000;

    public Faults {
        if (slowRank < -1) {
            throw new IllegalArgumentException("slow rank must be a rank or -1 (none), slowRank=" + slowRank);
        }
        if (slowMicros < 0 || slowMicros > MAX_MICROS || noiseMicros < 0 || noiseMicros > MAX_MICROS) {
            throw new IllegalArgumentException("a fault's delay must be 0.." + MAX_MICROS + " µs, slowMicros=" + slowMicros
                    + ", noiseMicros=" + noiseMicros);
        }
        if (!(noise >= 0 && noise <= 1)) {
            throw new IllegalArgumentException("noise must be a fraction of iterations in 0..1, noise=" + noise);
        }
    }

    public boolean any() {
        return slowRank >= 0 && slowMicros > 0 || noise > 0 && noiseMicros > 0;
    }

    /** Waits what the faults add for {@code rank} of {@code size} before iteration {@code iteration}. No allocation. */
    void before(int rank, int size, long iteration) {
        long micros = rank == slowRank ? slowMicros : 0;
        if (noise > 0) {
            long h = mix(iteration + 0x9E3779B97F4A7C15L);
            if ((h >>> 11) * 0x1.0p-53 < noise && Long.remainderUnsigned(mix(h), size) == rank) {
                micros += noiseMicros;
            }
        }
        if (micros > 0) {
            long deadline = System.nanoTime() + micros * 1_000;
            for (long left = micros * 1_000; left > 0; left = deadline - System.nanoTime()) {
                LockSupport.parkNanos(left);
            }
        }
    }

    /** SplitMix64's finaliser: a well-mixed 64-bit hash. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
