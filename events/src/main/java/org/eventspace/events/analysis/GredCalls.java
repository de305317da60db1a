package org.eventspace.events.analysis;

import org.eventspace.base.stats.Median;
import org.eventspace.base.stats.RunningStatistics;
import org.eventspace.base.stats.StatisticsSummary;
import org.eventspace.base.stats.UniformSample;

/**
 * The metrics of one allreduce (gred) wrapper over the calls it took part in (dissertation §7.1, EventSpace paper §3),
 * accumulated one call at a time: the post-mortem analysis of a dump and the live monitors add the same calls through
 * this one class, so they report the same numbers.
 *
 * <p>For a call with contributors on ports 0..P−1: the collector above port i gives t1,i (down) and t4,i (up), the
 * collector between the gred and its parent gives t2 and t3. l is the last arriver (largest t1,i, ties to the lower
 * port), f the first departer (smallest t4,i). Per port: down latency t2 − t1,i, up latency t4,i − t3, total
 * (t4,i − t1,i) − (t3 − t2), arrival wait t1,l − t1,i, departure wait t4,i − t4,f, and the arrival- and
 * departure-order distributions. For the gred: down latency t2 − t1,l and up latency t4,f − t3, the time below it
 * t3 − t2 (at a root gred, the store latency of the core; elsewhere what the rest of the tree took, hop included), and
 * the three stages of the dissertation's §7.1 at this gred: arrival t1,l − t1,first (first to last contributor),
 * reduce t2 − t1,l (its down latency) and broadcast t4,last − t3 (until the last contributor has the result).
 *
 * <p>With a median window W > 0 (the statistics monitor uses 100, as the Network Weather Service does), every
 * summary also carries the median of the last W values: a mean follows every outlier, a windowed median does not.
 *
 * <p>{@link #add} allocates nothing and does no division: it stores each metric's value of the call in a ring (orders
 * by insertion sort over a preallocated array: P is a gred's arity), and a full ring is folded into the running
 * statistics in one pass per metric; a reading combines the folded statistics with the calls since. Not thread-safe:
 * one analysis thread owns it; readers take a {@link #copy()}.
 */
public final class GredCalls {
    public static final int DOWN = 0;
    public static final int UP = 1;
    public static final int TOTAL = 2;
    public static final int ARRIVAL_WAIT = 3;
    public static final int DEPARTURE_WAIT = 4;
    private static final int METRICS = 5;
    /** Calls between two folds when there is no median window (whose length is the block otherwise). */
    private static final int FOLD_BLOCK = 64;
    /** The gred's own metrics: the first rows of {@link #values}; port p's five follow from row 5·(p+1). */
    private static final int G_DOWN = 0;
    private static final int G_UP = 1;
    private static final int G_BELOW = 2;
    private static final int G_ARRIVAL = 3;
    private static final int G_BROADCAST = 4;

    private final int ports;
    private final int window;
    /**
     * Every value a call adds, one row per metric: the gred's five, each port's five, then the arrival
     * and the departure wait of the k-th contributor. A ring of {@link #block} calls, each call's values side by side
     * ({@code values[slot · rows + row]}: a call writes two or three cache lines, not a line per metric, which matters
     * when the pass runs on a rank whose caches the network stack just used); with a median window the ring is the
     * window (the last W values). Every {@link #block} calls the whole ring is folded into the rows' running statistics
     * in one sequential sweep, so a call costs a store per metric and no arithmetic of the statistics.
     */
    private final double[] values;
    private final int rows;
    private final RunningStatistics[] stats;
    private final int block;
    /** Where the next call's values go; calls added since the last fold (the ring's slots 0 .. slot − 1). */
    private int slot;
    /** The fold's per-row sums, kept so that a fold allocates nothing. */
    private final double[] shift;
    private final double[] sum;
    private final double[] sumSquares;
    private final double[] low;
    private final double[] high;
    private long calls;
    private final long[][] arrivalOrder;
    private final long[][] departureOrder;
    private final int[] order;
    /**
     * Per port, a uniform sample (at most {@value #OWN_SAMPLE}, {@link UniformSample}) of its contributor's own lateness
     * per call — the time since its previous departure from this gred minus the ports' mean — and of the time between
     * its consecutive arrivals: their medians are what a verdict weighs, so that the order in which the previous call
     * released the contributors (a tree's structure, the threads' wake-up order) and a few preempted calls do not.
     */
    static final int OWN_SAMPLE = 256;
    private final long[] previousT1;
    private final long[] previousT4;
    private final UniformSample[] ownSample;
    private final UniformSample[] intervalSample;
    private boolean havePrevious;
    private final double[] gaps;
    /** The first call's earliest arrival and the last call's latest departure: the time the gred was in use. */
    private long firstNs = Long.MAX_VALUE;
    private long lastNs = Long.MIN_VALUE;

    /** Metrics without a median window (the post-mortem analysis). */
    public GredCalls(int ports) {
        this(ports, 0);
    }

    /** Metrics whose summaries carry the median of the last {@code window} values (0: none). */
    public GredCalls(int ports, int window) {
        if (ports < 1) {
            throw new IllegalArgumentException("a gred has at least one port, ports=" + ports);
        }
        if (window < 0) {
            throw new IllegalArgumentException("the median window must be >= 0, window=" + window);
        }
        this.ports = ports;
        this.window = window;
        this.block = window > 0 ? window : FOLD_BLOCK;
        int rows = METRICS + (METRICS + 2) * ports;
        this.rows = rows;
        this.values = new double[rows * block];
        this.shift = new double[rows];
        this.sum = new double[rows];
        this.sumSquares = new double[rows];
        this.low = new double[rows];
        this.high = new double[rows];
        this.stats = new RunningStatistics[rows];
        for (int r = 0; r < rows; r++) {
            stats[r] = new RunningStatistics();
        }
        this.arrivalOrder = new long[ports][ports];
        this.departureOrder = new long[ports][ports];
        this.order = new int[ports];
        this.previousT1 = new long[ports];
        this.previousT4 = new long[ports];
        this.ownSample = new UniformSample[ports];
        this.intervalSample = new UniformSample[ports];
        for (int p = 0; p < ports; p++) {
            ownSample[p] = new UniformSample(OWN_SAMPLE, 0x5EED + p);
            intervalSample[p] = new UniformSample(OWN_SAMPLE, 0x1E55 + p);
        }
        this.gaps = new double[ports];
    }

    /** Adds one call: {@code t1[i]}, {@code t4[i]} from the collector above port i, {@code t2}, {@code t3} from the one below. */
    public void add(long[] t1, long[] t4, long t2, long t3) {
        int at = slot * rows;
        double[] v = values;
        sortBy(t1);
        long t1l = t1[order[ports - 1]];
        long t1first = t1[order[0]];
        int arrivalRows = at + METRICS * (ports + 1);
        for (int k = 0; k < ports; k++) {
            arrivalOrder[order[k]][k]++;
            v[arrivalRows + k] = t1l - t1[order[k]];
        }
        sortBy(t4);
        long t4f = t4[order[0]];
        long t4last = t4[order[ports - 1]];
        int departureRows = arrivalRows + ports;
        for (int k = 0; k < ports; k++) {
            departureOrder[order[k]][k]++;
            v[departureRows + k] = t4[order[k]] - t4f;
        }
        sampleOwn(t1, t4);
        firstNs = Math.min(firstNs, t1first);
        lastNs = Math.max(lastNs, t4last);
        v[at + G_DOWN] = t2 - t1l;
        v[at + G_UP] = t4f - t3;
        v[at + G_BELOW] = t3 - t2;
        v[at + G_ARRIVAL] = t1l - t1first;
        v[at + G_BROADCAST] = t4last - t3;
        for (int p = 0, r = at + METRICS; p < ports; p++, r += METRICS) {
            v[r + DOWN] = t2 - t1[p];
            v[r + UP] = t4[p] - t3;
            v[r + TOTAL] = (t4[p] - t1[p]) - (t3 - t2);
            v[r + ARRIVAL_WAIT] = t1l - t1[p];
            v[r + DEPARTURE_WAIT] = t4[p] - t4f;
        }
        calls++;
        if (++slot == block) {
            foldRing();
            slot = 0;
        }
    }

    /**
     * Adds the whole ring to every row's statistics: one sweep over the calls in the order they were written, with
     * per-row sums shifted by the row's first value, so that the cancellation in M2 = Σd² − (Σd)²/n is bounded (the
     * shift is one of the values: (Σd)²/n ≤ n·M2, at most log₂(n+1) bits lost), then Chan's merge per row.
     */
    private void foldRing() {
        double[] v = values;
        for (int r = 0; r < rows; r++) {
            double x = v[r];
            shift[r] = x;
            sum[r] = 0;
            sumSquares[r] = 0;
            low[r] = x;
            high[r] = x;
        }
        for (int i = 0, base = 0; i < block; i++, base += rows) {
            for (int r = 0; r < rows; r++) {
                // Values come from longs: no NaN, no −0, so plain comparisons give the minimum and maximum.
                double x = v[base + r];
                double d = x - shift[r];
                sum[r] += d;
                sumSquares[r] += d * d;
                low[r] = x < low[r] ? x : low[r];
                high[r] = x > high[r] ? x : high[r];
            }
        }
        for (int r = 0; r < rows; r++) {
            mergeShifted(stats[r], block, shift[r], sum[r], sumSquares[r], low[r], high[r]);
        }
    }

    /** Adds n values given as their sums shifted by {@code shift} (Σd, Σd², d = x − shift), minimum and maximum. */
    private static void mergeShifted(RunningStatistics into, int n, double shift, double sum, double sumSquares,
                                     double min, double max) {
        double mean = sum / n;
        into.merge(n, shift + mean, Math.max(0.0, sumSquares - sum * mean), min, max);
    }

    /** Row {@code row} of the ring's slots 0 .. n − 1, a copy. */
    private double[] column(int row, int n) {
        double[] c = new double[n];
        for (int i = 0; i < n; i++) {
            c[i] = values[i * rows + row];
        }
        return c;
    }

    /** The statistics of metric {@code row}: those folded and the calls since, combined (a new accumulator). */
    private RunningStatistics statistics(int row) {
        RunningStatistics all = new RunningStatistics();
        all.merge(stats[row]);
        if (slot > 0) {
            double[] since = column(row, slot);
            double shifted = since[0];
            double s1 = 0;
            double s2 = 0;
            double min = shifted;
            double max = shifted;
            for (double x : since) {
                double d = x - shifted;
                s1 += d;
                s2 += d * d;
                min = Math.min(min, x);
                max = Math.max(max, x);
            }
            mergeShifted(all, slot, shifted, s1, s2, min, max);
        }
        return all;
    }

    /** The summary of metric {@code row}, with the median of its window attached if there is a window and a value. */
    private StatisticsSummary summary(int row) {
        StatisticsSummary summary = statistics(row).summary();
        if (window == 0 || summary.count() == 0) {
            return summary;
        }
        int filled = (int) Math.min(window, calls);
        return summary.withWindowMedian(Median.of(column(row, filled)));
    }

    /** Orders the ports by {@code t}, ties to the lower port (a stable insertion sort). */
    private void sortBy(long[] t) {
        for (int p = 0; p < ports; p++) {
            int q = p;
            while (q > 0 && t[order[q - 1]] > t[p]) {
                order[q] = order[q - 1];
                q--;
            }
            order[q] = p;
        }
    }

    public int ports() {
        return ports;
    }

    /** Calls added. */
    public long calls() {
        return calls;
    }

    /** How often {@code port} arrived last. */
    public long lastArrivals(int port) {
        return arrivalOrder[port][ports - 1];
    }

    /** Element k: how often {@code port} arrived (k+1)-th. A copy. */
    public long[] arrivalOrder(int port) {
        return arrivalOrder[port].clone();
    }

    /** Element k: how often {@code port} departed (k+1)-th. A copy. */
    public long[] departureOrder(int port) {
        return departureOrder[port].clone();
    }

    /** The arrival wait t1,l − t1,i of whichever contributor i arrived ({@code k}+1)-th. */
    public StatisticsSummary arrivalWaitByOrder(int k) {
        return statistics(METRICS * (ports + 1) + k).summary();
    }

    /** The departure wait t4,i − t4,f of whichever contributor i departed ({@code k}+1)-th. */
    public StatisticsSummary departureWaitByOrder(int k) {
        return statistics(METRICS * (ports + 1) + ports + k).summary();
    }

    /** The gred's own down latency t2 − t1,l: the reduce stage at this gred. */
    public StatisticsSummary down() {
        return summary(G_DOWN);
    }

    /** The gred's own up latency t4,f − t3. */
    public StatisticsSummary up() {
        return summary(G_UP);
    }

    /** t3 − t2: what happened below the gred (at a root gred, the core's store latency). */
    public StatisticsSummary below() {
        return summary(G_BELOW);
    }

    /** The arrival stage at this gred, t1,l − t1,first: from the first contributor's arrival to the last's. */
    public StatisticsSummary arrival() {
        return summary(G_ARRIVAL);
    }

    /** The broadcast stage at this gred, t4,last − t3: from the result coming up to the last contributor's return. */
    public StatisticsSummary broadcast() {
        return summary(G_BROADCAST);
    }

    /** One of {@link #DOWN}, {@link #UP}, {@link #TOTAL}, {@link #ARRIVAL_WAIT}, {@link #DEPARTURE_WAIT} of {@code port}. */
    public StatisticsSummary port(int port, int metric) {
        return summary(METRICS * (port + 1) + metric);
    }

    private void sampleOwn(long[] t1, long[] t4) {
        boolean known = havePrevious;
        double mean = 0;
        for (int p = 0; p < ports && known; p++) {
            gaps[p] = t1[p] - previousT4[p];
            mean += gaps[p];
        }
        if (known) {
            mean /= ports;
            for (int p = 0; p < ports; p++) {
                ownSample[p].add(gaps[p] - mean);
                intervalSample[p].add(t1[p] - previousT1[p]);
            }
        }
        for (int p = 0; p < ports; p++) {
            previousT1[p] = t1[p];
            previousT4[p] = t4[p];
        }
        havePrevious = true;
    }

    /** The median own lateness of port p's contributor per call, ns (see {@link #OWN_SAMPLE}); NaN before two calls. */
    public double ownLatenessMedianNs(int port) {
        return ownSample[port].median();
    }

    /** The median time between port p's consecutive arrivals, ns; NaN before two calls. */
    public double intervalMedianNs(int port) {
        return intervalSample[port].median();
    }

    /**
     * The time from the first call's earliest arrival to the last call's latest departure (0 before two calls): what a
     * contributor's total lateness is a share of, when a verdict sizes its effect.
     */
    public long spanNs() {
        return lastNs > firstNs ? lastNs - firstNs : 0;
    }

    /** An independent copy, for a reader on another thread (take it under the owner's lock). */
    public GredCalls copy() {
        GredCalls c = new GredCalls(ports, window);
        System.arraycopy(values, 0, c.values, 0, values.length);
        for (int r = 0; r < rows; r++) {
            c.stats[r].merge(stats[r]);
        }
        c.slot = slot;
        c.calls = calls;
        c.firstNs = firstNs;
        c.lastNs = lastNs;
        c.havePrevious = havePrevious;
        for (int p = 0; p < ports; p++) {
            c.ownSample[p] = ownSample[p].copy();
            c.intervalSample[p] = intervalSample[p].copy();
            c.previousT1[p] = previousT1[p];
            c.previousT4[p] = previousT4[p];
            System.arraycopy(arrivalOrder[p], 0, c.arrivalOrder[p], 0, ports);
            System.arraycopy(departureOrder[p], 0, c.departureOrder[p], 0, ports);
        }
        return c;
    }
}
