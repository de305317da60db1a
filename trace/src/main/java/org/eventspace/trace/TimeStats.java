package org.eventspace.trace;

import org.eventspace.base.stats.RunningStatistics;

/**
 * Aggregate statistics of delta times (Ratn et al., ICS 2008, §3.1): count, mean, sample standard deviation,
 * minimum and maximum with the rank that had each — the {@code n, mean, sd, min, min_rank, max, max_rank} of a
 * timing in the trace file. The arithmetic (Welford's update, Chan et al.'s pairwise merge, so the statistics of a
 * merged trace are those of all its samples) is {@link RunningStatistics}'; this type adds what the trace format
 * needs beside it: integral extremes and the ranks that had them (ties go to the lower rank, so a merge gives the
 * same ranks in any order). Not thread-safe. Adding a sample allocates nothing.
 */
public final class TimeStats {
    private final RunningStatistics welford = new RunningStatistics();
    private long min = Long.MAX_VALUE;
    private long max = Long.MIN_VALUE;
    private int minRank = -1;
    private int maxRank = -1;

    public void add(long v, int rank) {
        welford.add(v);
        if (v < min || (v == min && rank < minRank)) {
            min = v;
            minRank = rank;
        }
        if (v > max || (v == max && rank < maxRank)) {
            max = v;
            maxRank = rank;
        }
    }

    public void merge(TimeStats o) {
        if (o.count() == 0) {
            return;
        }
        welford.merge(o.welford);
        if (o.min < min || (o.min == min && o.minRank < minRank)) {
            min = o.min;
            minRank = o.minRank;
        }
        if (o.max > max || (o.max == max && o.maxRank < maxRank)) {
            max = o.max;
            maxRank = o.maxRank;
        }
    }

    void copy(TimeStats o) {
        welford.reset();
        welford.merge(o.welford);
        min = o.min;
        max = o.max;
        minRank = o.minRank;
        maxRank = o.maxRank;
    }

    /** The statistics a trace file states: M2 is recovered from the sample standard deviation, sd²·(n − 1). */
    static TimeStats of(long count, double mean, double sd, long min, int minRank, long max, int maxRank) {
        TimeStats s = new TimeStats();
        s.welford.merge(count, mean, count > 1 ? sd * sd * (count - 1) : 0, min, max);
        s.min = min;
        s.minRank = minRank;
        s.max = max;
        s.maxRank = maxRank;
        return s;
    }

    public long count() {
        return welford.count();
    }

    /** The mean; 0 below one sample. */
    public double mean() {
        return welford.count() == 0 ? 0 : welford.mean();
    }

    /** Sample standard deviation (M2 / (n − 1), Ratn et al. report the spread of a sample of calls); 0 below two samples. */
    public double sd() {
        long n = welford.count();
        return n > 1 ? Math.sqrt(welford.m2() / (n - 1)) : 0;
    }

    public long min() {
        return min;
    }

    public long max() {
        return max;
    }

    public int minRank() {
        return minRank;
    }

    public int maxRank() {
        return maxRank;
    }
}
