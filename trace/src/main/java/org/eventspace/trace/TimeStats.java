package org.eventspace.trace;

/**
 * Aggregate statistics of delta times (Ratn et al., ICS 2008, §3.1): count, mean, variance (Welford's M2),
 * minimum and maximum with the rank that had each. Merging uses Chan et al.'s pairwise update, so the statistics of
 * a merged trace are those of all its samples. Not thread-safe.
 */
public final class TimeStats {
    long count;
    double mean;
    double m2;
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    int minRank = -1;
    int maxRank = -1;

    public void add(long v, int rank) {
        count++;
        double delta = v - mean;
        mean += delta / count;
        m2 += delta * (v - mean);
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
        if (o.count == 0) {
            return;
        }
        if (count == 0) {
            copy(o);
            return;
        }
        long n = count + o.count;
        double delta = o.mean - mean;
        mean += delta * o.count / n;
        m2 += o.m2 + delta * delta * count * o.count / n;
        count = n;
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
        count = o.count;
        mean = o.mean;
        m2 = o.m2;
        min = o.min;
        max = o.max;
        minRank = o.minRank;
        maxRank = o.maxRank;
    }

    static TimeStats of(long count, double mean, double sd, long min, int minRank, long max, int maxRank) {
        TimeStats s = new TimeStats();
        s.count = count;
        s.mean = mean;
        s.m2 = count > 1 ? sd * sd * (count - 1) : 0;
        s.min = min;
        s.minRank = minRank;
        s.max = max;
        s.maxRank = maxRank;
        return s;
    }

    public long count() {
        return count;
    }

    public double mean() {
        return mean;
    }

    /** Sample standard deviation; 0 below two samples. */
    public double sd() {
        return count > 1 ? Math.sqrt(m2 / (count - 1)) : 0;
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
