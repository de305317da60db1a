package org.eventspace.run;

import java.util.Arrays;

/**
 * The compute part of compute-gsum: refill an int array from a xorshift generator and sort it. Allocates
 * nothing per run; {@link #checksum()} keeps the JIT from dropping the work.
 */
final class IntegerSort {
    /** The longest array a run may sort: 64 MiB of ints. */
    static final int MAX_LENGTH = 1 << 24;
    private final int[] data;
    private int state;
    private long checksum;

    IntegerSort(int length, int seed) {
        this.data = new int[Math.max(1, length)];
        this.state = 0x9E3779B9 ^ (seed * 0x85EBCA6B) | 1;
    }

    void run() {
        int s = state;
        for (int i = 0; i < data.length; i++) {
            s ^= s << 13;
            s ^= s >>> 17;
            s ^= s << 5;
            data[i] = s;
        }
        state = s;
        Arrays.sort(data);
        checksum += data[data.length / 2];
    }

    long checksum() {
        return checksum;
    }

    int length() {
        return data.length;
    }

    /** The array length whose sort takes about {@code targetNanos} here, found by doubling then interpolating. */
    static int lengthTakingNanos(long targetNanos) {
        int length = 16;
        long took = timeSort(length);
        while (took < targetNanos && length < MAX_LENGTH) {
            length *= 2;
            took = timeSort(length);
        }
        if (took <= 0) {
            return length;
        }
        return (int) Math.max(16, Math.min(MAX_LENGTH, (long) length * targetNanos / took));
    }

    private static long timeSort(int length) {
        IntegerSort sort = new IntegerSort(length, 1);
        for (int i = 0; i < 20; i++) {
            sort.run();
        }
        int reps = 50;
        long start = System.nanoTime();
        for (int i = 0; i < reps; i++) {
            sort.run();
        }
        return (System.nanoTime() - start) / reps;
    }
}
