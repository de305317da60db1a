package org.eventspace.trace;

import java.util.Arrays;

/**
 * One rank's counts (words, or an MPI call's bytes) of one event, occurrence by occurrence, as runs: value, how many
 * occurrences in a row, value, how many, … — what lets the iterations of a loop differ in their message sizes and
 * still fold into one loop, without losing a size (a molecular-dynamics code's ghost exchanges change size at every
 * neighbour-list rebuild: one run per rebuild). Events whose count never changes keep a plain value and no runs.
 *
 * <p>Grows while one rank records (a new run only when the value changes, so a loop of equal sizes allocates nothing);
 * read-only once the trace is merged. Not thread-safe.
 */
public final class CountRuns {
    private long[] runs;
    private int length;
    private long occurrences;

    private CountRuns(int capacity) {
        runs = new long[Math.max(2, capacity)];
    }

    /** {@code n} occurrences of {@code value}. */
    static CountRuns constant(long value, long n) {
        CountRuns r = new CountRuns(8);
        r.append(value, n);
        return r;
    }

    /** Runs as a file holds them: value, length, value, length, …; every length ≥ 1. */
    static CountRuns of(long[] pairs) {
        if (pairs.length == 0 || pairs.length % 2 != 0) {
            throw new IllegalArgumentException("runs are value, length pairs, got " + pairs.length + " numbers");
        }
        CountRuns r = new CountRuns(pairs.length);
        for (int i = 0; i < pairs.length; i += 2) {
            if (pairs[i + 1] < 1) {
                throw new IllegalArgumentException("a run's length must be >= 1, got " + pairs[i + 1]);
            }
            r.append(pairs[i], pairs[i + 1]);
        }
        return r;
    }

    /** Appends {@code n} occurrences of {@code value} (extends the last run if it has that value). */
    void append(long value, long n) {
        if (length > 0 && runs[length - 2] == value) {
            runs[length - 1] += n;
        } else {
            if (length + 2 > runs.length) {
                runs = Arrays.copyOf(runs, 2 * runs.length);
            }
            runs[length++] = value;
            runs[length++] = n;
        }
        occurrences += n;
    }

    /** Appends every occurrence of {@code other}, after this one's. */
    void appendAll(CountRuns other) {
        for (int i = 0; i < other.length; i += 2) {
            append(other.runs[i], other.runs[i + 1]);
        }
    }

    /** Occurrences, all runs together. */
    public long occurrences() {
        return occurrences;
    }

    /** Runs (value, length pairs). */
    public int runCount() {
        return length / 2;
    }

    public long value(int run) {
        return runs[2 * run];
    }

    public long runLength(int run) {
        return runs[2 * run + 1];
    }

    /** The pairs, a copy. */
    public long[] pairs() {
        return Arrays.copyOf(runs, length);
    }

    public long min() {
        long m = Long.MAX_VALUE;
        for (int i = 0; i < length; i += 2) {
            m = Math.min(m, runs[i]);
        }
        return m;
    }

    public long max() {
        long m = Long.MIN_VALUE;
        for (int i = 0; i < length; i += 2) {
            m = Math.max(m, runs[i]);
        }
        return m;
    }

    /** Reads the values occurrence by occurrence, from the first. */
    public Cursor cursor() {
        return new Cursor();
    }

    /** A reader of the occurrences in order; past the last it keeps answering the last value. */
    public final class Cursor {
        private int run;
        private long used;

        public long next() {
            while (run + 1 < runCount() && used >= runLength(run)) {
                run++;
                used = 0;
            }
            used++;
            return value(run);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CountRuns r && Arrays.equals(runs, 0, length, r.runs, 0, r.length);
    }

    @Override
    public int hashCode() {
        int h = 1;
        for (int i = 0; i < length; i++) {
            h = 31 * h + Long.hashCode(runs[i]);
        }
        return h;
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < length; i += 2) {
            if (i > 0) {
                s.append(' ');
            }
            s.append(runs[i]).append('×').append(runs[i + 1]);
        }
        return s.toString();
    }
}
