package org.eventspace.trace;

/**
 * The dynamically balanced histogram of delta times of Ratn, Mueller, de Supinski and Schulz, "Preserving Time in
 * Large-Scale Communication Traces" (ICS 2008), §3.2: Algorithm 1 ({@code HistogramCreate}) and Algorithm 2
 * ({@code HistogramAdd}).
 *
 * <p>Algorithm 1: the first value {@code v} is taken as the centre of the distribution; the range is {@code 0..2v}
 * in {@code k} equal bins. Algorithm 2: a value goes into the bin whose {@code [min, max]} holds it (a new extreme
 * widens the first or last bin: "the length of a subrange monotonically increases with each new extreme value");
 * the bin's frequency, average and variance (Welford) are updated; every {@code smoothInterval} values landing in a
 * bin, the histogram is rebalanced: the two adjacent bins with the fewest values together are merged and the fullest
 * bin {@code B} is split at its average, the halves' averages {@code σ/2} either side of the old one and their
 * {@code σ} half the old one, "assuming a uniform distribution" as the paper does. So the number of bins stays
 * {@code k} and they come to hold similar numbers of values.
 *
 * <p>Where we deliberately differ: the paper's merge condition ({@code |b1 − b2| < m1} and
 * {@code b1 + b2 ≤ k · B}) leaves {@code m1} unspecified and its second clause holds for nearly every pair; we merge
 * the adjacent pair with the smallest sum provided that sum is below {@code B}'s frequency (otherwise the rebalance
 * would only move the imbalance); a split keeps the bin's sum (its halves' averages are σ/2 either side of the old one
 * only where that stays inside the bin; otherwise the second is moved so that the mean is unchanged), because replay
 * waits bin averages and a split that moves the mean changes the replayed time. The inter-node merge ({@link #merge}) works on whole bins, in O(k²) for k bins,
 * instead of the paper's O(freq) sample by sample, which it names as something to improve.
 *
 * <p>Not thread-safe: one per event per rank, merged after the run.
 */
public final class DeltaHistogram {
    /** The paper's default: "we use 5 histogram bins ... since the replay results achieve reasonable accuracy" (§5.1). */
    public static final int DEFAULT_BINS = 5;
    public static final int DEFAULT_SMOOTH_INTERVAL = 8;

    final int k;
    final int smoothInterval;
    /** {@code smoothInterval − 1} when it is a power of two (the default, 8), else −1: the test takes no division. */
    private final long smoothMask;
    final double[] lo;
    final double[] hi;
    final long[] freq;
    final double[] avg;
    final double[] m2;
    /** Scratch for {@link #rebalance} and {@link #merge}, so adding a value allocates nothing. */
    private final double[] sLo, sHi, sAvg, sM2;
    private final long[] sFreq;

    /** Algorithm 1, HistogramCreate(v, k): range 0..2v in k bins of 2v/k, then v added. */
    public static DeltaHistogram create(long v, int k, int smoothInterval) {
        if (k < 2) {
            throw new IllegalArgumentException("a histogram needs at least 2 bins, got k=" + k);
        }
        DeltaHistogram h = new DeltaHistogram(k, smoothInterval);
        double range = 2.0 * Math.max(v, 1);
        double binSize = range / k;
        for (int i = 0; i < k; i++) {
            h.lo[i] = i * binSize;
            h.hi[i] = (i + 1) * binSize;
        }
        h.add(v);
        return h;
    }

    DeltaHistogram(int k, int smoothInterval) {
        this.k = k;
        this.smoothInterval = Math.max(1, smoothInterval);
        this.smoothMask = Integer.bitCount(this.smoothInterval) == 1 ? this.smoothInterval - 1 : -1;
        lo = new double[k];
        hi = new double[k];
        freq = new long[k];
        avg = new double[k];
        m2 = new double[k];
        sLo = new double[2 * k];
        sHi = new double[2 * k];
        sAvg = new double[2 * k];
        sM2 = new double[2 * k];
        sFreq = new long[2 * k];
    }

    /** Algorithm 2, HistogramAdd(v). */
    public void add(long v) {
        int b = binOf(v);
        freq[b]++;
        double old = avg[b];
        if (freq[b] == 1) {
            avg[b] = v;
            m2[b] = 0;
        } else {
            avg[b] = avg[b] + (v - avg[b]) / freq[b];
            m2[b] = m2[b] + (v - old) * (v - avg[b]);
        }
        long f = freq[b];
        if (smoothMask >= 0 ? (f & smoothMask) == 0 : f % smoothInterval == 0) {
            rebalance();
        }
    }

    /** The bin with {@code min ≤ v ≤ max}, widening the first or last bin for a new extreme. */
    private int binOf(double v) {
        if (v < lo[0]) {
            lo[0] = v;
        }
        if (v > hi[k - 1]) {
            hi[k - 1] = v;
        }
        for (int i = 0; i < k - 1; i++) {
            if (v <= hi[i]) {
                return i;
            }
        }
        return k - 1;
    }

    /** The rebalancing step of Algorithm 2: merge the smallest adjacent pair, split the fullest bin at its average. */
    void rebalance() {
        int big = 0;
        for (int i = 1; i < k; i++) {
            if (freq[i] > freq[big]) {
                big = i;
            }
        }
        if (freq[big] < 2 || !(avg[big] > lo[big] && avg[big] < hi[big])) {
            return;
        }
        int pair = -1;
        long best = Long.MAX_VALUE;
        for (int i = 0; i + 1 < k; i++) {
            if (i == big || i + 1 == big) {
                continue;
            }
            long sum = freq[i] + freq[i + 1];
            if (sum < freq[big] && sum < best) {
                best = sum;
                pair = i;
            }
        }
        if (pair < 0) {
            return;
        }
        // Merge pair and pair+1 into one bin at index pair.
        long f = freq[pair] + freq[pair + 1];
        double mean = f == 0 ? (lo[pair] + hi[pair + 1]) / 2 : (avg[pair] * freq[pair] + avg[pair + 1] * freq[pair + 1]) / f;
        double d = avg[pair + 1] - avg[pair];
        double mergedM2 = f == 0 ? 0 : m2[pair] + m2[pair + 1] + d * d * freq[pair] * freq[pair + 1] / f;
        double mergedLo = lo[pair];
        double mergedHi = hi[pair + 1];
        // Split big into two halves at its average.
        long fb = freq[big];
        double sigma = fb > 1 ? Math.sqrt(m2[big] / (fb - 1)) : 0;
        long f1 = fb / 2;
        long f2 = fb - f1;
        // The paper's halves sit σ/2 either side of the old average; clamped into the bin, as a skewed bin (a few long
        // delays among many short ones) needs, they would move the bin's mean, and repeated splits would inflate the
        // delays a replay waits (we saw +300 % on gsum). So the second half's average is set to keep the bin's sum:
        // f1·a1 + f2·a2 = fb·avg exactly, the halves still inside [lo, hi].
        double a1 = Math.max(lo[big], avg[big] - sigma / 2);
        double a2 = (fb * avg[big] - f1 * a1) / f2;
        if (a2 > hi[big]) {
            a2 = hi[big];
            a1 = (fb * avg[big] - f2 * a2) / f1;
        }
        double half = sigma / 2;
        double[] nlo = sLo, nhi = sHi, navg = sAvg, nm2 = sM2;
        long[] nfreq = sFreq;
        int n = 0;
        for (int i = 0; i < k; i++) {
            if (i == pair) {
                nlo[n] = mergedLo; nhi[n] = mergedHi; nfreq[n] = f; navg[n] = mean; nm2[n] = mergedM2; n++;
            } else if (i == pair + 1) {
                continue;
            } else if (i == big) {
                nlo[n] = lo[big]; nhi[n] = avg[big]; nfreq[n] = f1; navg[n] = a1; nm2[n] = f1 > 1 ? half * half * (f1 - 1) : 0; n++;
                nlo[n] = avg[big]; nhi[n] = hi[big]; nfreq[n] = f2; navg[n] = a2; nm2[n] = f2 > 1 ? half * half * (f2 - 1) : 0; n++;
            } else {
                nlo[n] = lo[i]; nhi[n] = hi[i]; nfreq[n] = freq[i]; navg[n] = avg[i]; nm2[n] = m2[i]; n++;
            }
        }
        System.arraycopy(nlo, 0, lo, 0, k);
        System.arraycopy(nhi, 0, hi, 0, k);
        System.arraycopy(nfreq, 0, freq, 0, k);
        System.arraycopy(navg, 0, avg, 0, k);
        System.arraycopy(nm2, 0, m2, 0, k);
    }

    /**
     * Adds {@code other}'s bins to this histogram (the inter-node merge). The non-empty bins of both are ordered by
     * their averages and the two adjacent bins with the closest averages are merged until {@code k} remain; the
     * boundary between two bins is the midpoint of their averages. Merging the closest, not the smallest, keeps
     * the groups of ranks apart that Figure 12 is about (ranks whose compute deltas cluster at two distinct values
     * stay in distinct bins) — merging each source bin into the target bin holding its average lumped a slow rank's
     * samples together with a fast one's whenever the fast one's last bin had been widened.
     */
    public void merge(DeltaHistogram other) {
        if (other.k != k) {
            throw new IllegalArgumentException("cannot merge histograms of different bin counts: " + k + " and " + other.k);
        }
        int n = 0;
        double[] a = sAvg, l = sLo, h = sHi, m = sM2;
        long[] f = sFreq;
        for (int s = 0; s < 2; s++) {
            DeltaHistogram src = s == 0 ? this : other;
            for (int i = 0; i < src.k; i++) {
                if (src.freq[i] > 0) {
                    a[n] = src.avg[i]; l[n] = src.lo[i]; h[n] = src.hi[i]; m[n] = src.m2[i]; f[n] = src.freq[i];
                    n++;
                }
            }
        }
        // Insertion sort by average (at most 2k bins); ties by lower bound, for a deterministic order.
        for (int i = 1; i < n; i++) {
            for (int j = i; j > 0 && (a[j] < a[j - 1] || (a[j] == a[j - 1] && l[j] < l[j - 1])); j--) {
                swap(a, j); swap(l, j); swap(h, j); swap(m, j);
                long t = f[j]; f[j] = f[j - 1]; f[j - 1] = t;
            }
        }
        while (n > k) {
            int best = 0;
            for (int i = 1; i + 1 < n; i++) {
                if (a[i + 1] - a[i] < a[best + 1] - a[best]) {
                    best = i;
                }
            }
            long ff = f[best] + f[best + 1];
            double d = a[best + 1] - a[best];
            m[best] = m[best] + m[best + 1] + d * d * f[best] * f[best + 1] / ff;
            a[best] = (a[best] * f[best] + a[best + 1] * f[best + 1]) / ff;
            l[best] = Math.min(l[best], l[best + 1]);
            h[best] = Math.max(h[best], h[best + 1]);
            f[best] = ff;
            for (int i = best + 1; i + 1 < n; i++) {
                a[i] = a[i + 1]; l[i] = l[i + 1]; h[i] = h[i + 1]; m[i] = m[i + 1]; f[i] = f[i + 1];
            }
            n--;
        }
        double bottom = Double.MAX_VALUE, top = 0;
        for (int i = 0; i < n; i++) {
            bottom = Math.min(bottom, l[i]);
            top = Math.max(top, h[i]);
        }
        for (int i = 0; i < k; i++) {
            if (i < n) {
                lo[i] = i == 0 ? bottom : (a[i - 1] + a[i]) / 2;
                hi[i] = i == n - 1 ? top : (a[i] + a[i + 1]) / 2;
                freq[i] = f[i]; avg[i] = a[i]; m2[i] = m[i];
            } else {
                // Fewer non-empty bins than k: empty bins of no width at the top.
                lo[i] = top; hi[i] = top; freq[i] = 0; avg[i] = 0; m2[i] = 0;
            }
        }
    }

    private static void swap(double[] x, int j) {
        double t = x[j];
        x[j] = x[j - 1];
        x[j - 1] = t;
    }

    public int bins() {
        return k;
    }

    public double binMin(int i) {
        return lo[i];
    }

    public double binMax(int i) {
        return hi[i];
    }

    public long binFreq(int i) {
        return freq[i];
    }

    public double binAvg(int i) {
        return avg[i];
    }

    public double binSd(int i) {
        return freq[i] > 1 ? Math.sqrt(m2[i] / (freq[i] - 1)) : 0;
    }

    public long total() {
        long n = 0;
        for (long f : freq) {
            n += f;
        }
        return n;
    }

    static DeltaHistogram restore(double[] lo, double[] hi, long[] freq, double[] avg, double[] sd) {
        DeltaHistogram h = new DeltaHistogram(lo.length, DEFAULT_SMOOTH_INTERVAL);
        for (int i = 0; i < lo.length; i++) {
            h.lo[i] = lo[i];
            h.hi[i] = hi[i];
            h.freq[i] = freq[i];
            h.avg[i] = avg[i];
            h.m2[i] = freq[i] > 1 ? sd[i] * sd[i] * (freq[i] - 1) : 0;
        }
        return h;
    }
}
