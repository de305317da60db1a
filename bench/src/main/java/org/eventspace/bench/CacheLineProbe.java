package org.eventspace.bench;

/**
 * How fast the machine moves a cache line between two cores right now: two threads bounce a volatile counter.
 * On the shared VMs we measure on, this moves between runs (we have seen 130 and 340 ns per round trip on the
 * same machine the same day), and everything built on cache-to-cache hand-offs — our gred and Open MPI's
 * shared-memory allreduce alike — moves with it; {@link Comparison} records it beside every repeat.
 */
final class CacheLineProbe {
    private static final int ROUNDS = 300_000;
    /** Bound on the probe: with fewer free cores than threads a round can take a time slice. */
    private static final long LIMIT_NANOS = 2_000_000_000L;
    private static final long STOP = Long.MIN_VALUE;

    private static volatile long ping;
    private static volatile long pong;

    private CacheLineProbe() {
    }

    /** Mean nanoseconds of one round trip (two transfers) over the second half of the rounds. */
    static synchronized double roundTripNanos() {
        ping = 0;
        pong = 0;
        Thread other = new Thread(() -> {
            for (long i = 1; ; i++) {
                long p;
                while ((p = ping) != i && p != STOP) {
                    Thread.onSpinWait();
                }
                if (p == STOP) {
                    return;
                }
                pong = i;
            }
        }, "es-cacheline-probe");
        other.setDaemon(true);
        other.start();
        long begin = System.nanoTime();
        long start = begin;
        long measured = 0;
        for (long i = 1; i <= ROUNDS && System.nanoTime() - begin < LIMIT_NANOS; i++) {
            if (i == ROUNDS / 2) {
                start = System.nanoTime();
                measured = 0;
            }
            ping = i;
            while (pong != i) {
                Thread.onSpinWait();
            }
            measured++;
        }
        double nanos = (double) (System.nanoTime() - start) / Math.max(1, measured);
        ping = STOP;
        try {
            other.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return nanos;
    }
}
