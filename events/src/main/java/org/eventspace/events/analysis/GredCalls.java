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
 * <p>{@link #add} allocates nothing (orders by insertion sort over a preallocated array: P is a gred's arity). Not
 * thread-safe: one analysis thread owns it; readers take a {@link #copy()}.
 */
public final class GredCalls {
    public static final int DOWN = 0;
    public static final int UP = 1;
    public static final int TOTAL = 2;
    public static final int ARRIVAL_WAIT = 3;
    public static final int DEPARTURE_WAIT = 4;
    private static final int METRICS = 5;
    /** The gred's own metrics, in row {@code ports} of the median windows. */
    private static final int G_DOWN = 0;
    private static final int G_UP = 1;
    private static final int G_BELOW = 2;
    private static final int G_ARRIVAL = 3;
    private static final int G_BROADCAST = 4;

    private final int ports;
    private final int window;
    /** The last {@link #window} values of each port's metrics ([port][metric]) and, at [ports][0|1], the gred's down and up. */
    private final double[][][] recent;
    private final RunningStatistics down = new RunningStatistics();
    private final RunningStatistics up = new RunningStatistics();
    private final RunningStatistics below = new RunningStatistics();
    private final RunningStatistics arrival = new RunningStatistics();
    private final RunningStatistics broadcast = new RunningStatistics();
    private final RunningStatistics[][] perPort;
    private final long[][] arrivalOrder;
    private final long[][] departureOrder;
    /** Element k: the arrival (departure) wait of whichever contributor came (k+1)-th: the statsm's per-order waits. */
    private final RunningStatistics[] arrivalWaitByOrder;
    private final RunningStatistics[] departureWaitByOrder;
    private final int[] order;
    /** The first call's earliest arrival and the last call's latest departure: the time the gred was in use. */
    /**
     * Per port, a uniform sample (Vitter's Algorithm R, at most {@value #OWN_SAMPLE}) of its contributor's own lateness
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
        this.recent = window == 0 ? null : new double[ports + 1][METRICS][window];
        this.perPort = new RunningStatistics[ports][METRICS];
        for (RunningStatistics[] row : perPort) {
            for (int k = 0; k < METRICS; k++) {
                row[k] = new RunningStatistics();
            }
        }
        this.arrivalOrder = new long[ports][ports];
        this.departureOrder = new long[ports][ports];
        this.arrivalWaitByOrder = new RunningStatistics[ports];
        this.departureWaitByOrder = new RunningStatistics[ports];
        for (int k = 0; k < ports; k++) {
            arrivalWaitByOrder[k] = new RunningStatistics();
            departureWaitByOrder[k] = new RunningStatistics();
        }
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
        sortBy(t1);
        for (int k = 0; k < ports; k++) {
            arrivalOrder[order[k]][k]++;
        }
        long t1l = t1[order[ports - 1]];
        long t1first = t1[order[0]];
        for (int k = 0; k < ports; k++) {
            arrivalWaitByOrder[k].add(t1l - t1[order[k]]);
        }
        sortBy(t4);
        for (int k = 0; k < ports; k++) {
            departureOrder[order[k]][k]++;
        }
        long t4f = t4[order[0]];
        for (int k = 0; k < ports; k++) {
            departureWaitByOrder[k].add(t4[order[k]] - t4f);
        }
        long t4last = t4[order[ports - 1]];
        sampleOwn(t1, t4);
        firstNs = Math.min(firstNs, t1first);
        lastNs = Math.max(lastNs, t4last);
        int slot = window == 0 ? 0 : (int) (down.count() % window);
        down.add(t2 - t1l);
        up.add(t4f - t3);
        below.add(t3 - t2);
        arrival.add(t1l - t1first);
        broadcast.add(t4last - t3);
        if (window > 0) {
            double[][] g = recent[ports];
            g[G_DOWN][slot] = t2 - t1l;
            g[G_UP][slot] = t4f - t3;
            g[G_BELOW][slot] = t3 - t2;
            g[G_ARRIVAL][slot] = t1l - t1first;
            g[G_BROADCAST][slot] = t4last - t3;
        }
        for (int p = 0; p < ports; p++) {
            RunningStatistics[] s = perPort[p];
            s[DOWN].add(t2 - t1[p]);
            s[UP].add(t4[p] - t3);
            s[TOTAL].add((t4[p] - t1[p]) - (t3 - t2));
            s[ARRIVAL_WAIT].add(t1l - t1[p]);
            s[DEPARTURE_WAIT].add(t4[p] - t4f);
            if (window > 0) {
                double[][] r = recent[p];
                r[DOWN][slot] = t2 - t1[p];
                r[UP][slot] = t4[p] - t3;
                r[TOTAL][slot] = (t4[p] - t1[p]) - (t3 - t2);
                r[ARRIVAL_WAIT][slot] = t1l - t1[p];
                r[DEPARTURE_WAIT][slot] = t4[p] - t4f;
            }
        }
    }

    /** {@code summary} with the median of the window {@code values} attached, if there is a window and a value. */
    private StatisticsSummary withMedian(StatisticsSummary summary, double[] values) {
        if (window == 0 || summary.count() == 0) {
            return summary;
        }
        int filled = (int) Math.min(window, summary.count());
        return summary.withWindowMedian(Median.of(filled == window ? values : java.util.Arrays.copyOf(values, filled)));
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
        return down.count();
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
        return arrivalWaitByOrder[k].summary();
    }

    /** The departure wait t4,i − t4,f of whichever contributor i departed ({@code k}+1)-th. */
    public StatisticsSummary departureWaitByOrder(int k) {
        return departureWaitByOrder[k].summary();
    }

    /** The gred's own down latency t2 − t1,l: the reduce stage at this gred. */
    public StatisticsSummary down() {
        return withMedian(down.summary(), window == 0 ? null : recent[ports][G_DOWN]);
    }

    /** The gred's own up latency t4,f − t3. */
    public StatisticsSummary up() {
        return withMedian(up.summary(), window == 0 ? null : recent[ports][G_UP]);
    }

    /** t3 − t2: what happened below the gred (at a root gred, the core's store latency). */
    public StatisticsSummary below() {
        return withMedian(below.summary(), window == 0 ? null : recent[ports][G_BELOW]);
    }

    /** The arrival stage at this gred, t1,l − t1,first: from the first contributor's arrival to the last's. */
    public StatisticsSummary arrival() {
        return withMedian(arrival.summary(), window == 0 ? null : recent[ports][G_ARRIVAL]);
    }

    /** The broadcast stage at this gred, t4,last − t3: from the result coming up to the last contributor's return. */
    public StatisticsSummary broadcast() {
        return withMedian(broadcast.summary(), window == 0 ? null : recent[ports][G_BROADCAST]);
    }

    /** One of {@link #DOWN}, {@link #UP}, {@link #TOTAL}, {@link #ARRIVAL_WAIT}, {@link #DEPARTURE_WAIT} of {@code port}. */
    public StatisticsSummary port(int port, int metric) {
        return withMedian(perPort[port][metric].summary(), window == 0 ? null : recent[port][metric]);
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
        if (window > 0) {
            for (int p = 0; p <= ports; p++) {
                for (int k = 0; k < METRICS; k++) {
                    System.arraycopy(recent[p][k], 0, c.recent[p][k], 0, window);
                }
            }
        }
        c.firstNs = firstNs;
        c.havePrevious = havePrevious;
        for (int p = 0; p < ports; p++) {
            c.ownSample[p] = ownSample[p].copy();
            c.intervalSample[p] = intervalSample[p].copy();
            c.previousT1[p] = previousT1[p];
            c.previousT4[p] = previousT4[p];
        }
        c.lastNs = lastNs;
        c.down.merge(down);
        c.up.merge(up);
        c.below.merge(below);
        c.arrival.merge(arrival);
        c.broadcast.merge(broadcast);
        for (int p = 0; p < ports; p++) {
            for (int k = 0; k < METRICS; k++) {
                c.perPort[p][k].merge(perPort[p][k]);
            }
            c.arrivalWaitByOrder[p].merge(arrivalWaitByOrder[p]);
            c.departureWaitByOrder[p].merge(departureWaitByOrder[p]);
            System.arraycopy(arrivalOrder[p], 0, c.arrivalOrder[p], 0, ports);
            System.arraycopy(departureOrder[p], 0, c.departureOrder[p], 0, ports);
        }
        return c;
    }
}
