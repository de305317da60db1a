package org.eventspace.monitor;

import org.eventspace.comm.pathmap.Node;
import org.eventspace.events.TraceBuffer;
import org.eventspace.events.TraceBufferReader;
import org.eventspace.events.TraceOp;
import org.eventspace.events.TraceTupleFlyweight;
import org.eventspace.events.analysis.GredCalls;

/**
 * One gred's metrics, computed while the job runs from its collectors' trace buffers on its host: the collector above
 * each port (t1,i, t4,i) and the one below (t2, t3). Each collector's tuples arrive in sequence order (a contributor
 * makes its calls one after the other), so one call's tuples are joined by a merge on the sequence number: once every
 * collector has a tuple waiting, the oldest that some collector lacks are dropped (overwritten before they were read,
 * or a failed call) and a sequence that all have is one call, added to {@link GredCalls}.
 *
 * <p>{@link #poll} runs on the host's analysis thread and allocates nothing; {@link #snapshot} copies the metrics under
 * the same lock for any other thread.
 */
final class LiveGred {
    /** Tuples read ahead per collector before the join must consume some. */
    private static final int WINDOW = 1 << 10;
    private static final int MASK = WINDOW - 1;
    /** Tuples one {@link #poll} reads per collector at most, so one busy gred cannot starve the host's others. */
    private static final int READ_BATCH = 256;

    private final Node gred;
    private final String[] contributors;
    private final TraceBufferReader[] readers;
    /** The trace buffers the readers read (port order, then the one below); null for the central analysis. */
    private final TraceBuffer[] buffers;
    /** Per port, the rank profile this gred's reader counts each tuple into, or null. */
    private final RankProfile[] profiles;
    /**
     * Per collector, the read-ahead ring: slot i holds a tuple's sequence, start and end at 3i, 3i+1, 3i+2, so that a
     * tuple is one cache line written and read, not three.
     */
    private final long[][] ring;
    private final long[] head;
    private final long[] tail;
    private final long[] t1;
    private final long[] t4;
    private final int ports;
    private final GredCalls calls;
    private final int medianWindow;
    private long dropped;
    private long failed;
    private long read;
    /** Central analysis only: tuples handed in per collector beyond what the read-ahead ring holds; else null. */
    private final long[][] pending;
    private final int[] pendingHead;
    private final int[] pendingTail;

    /**
     * @param above the trace buffer of the collector above each port, in port order.
     * @param below the trace buffer of the collector between the gred and its parent.
     */
    LiveGred(Node gred, String[] contributors, TraceBuffer[] above, TraceBuffer below, int medianWindow) {
        this(gred, contributors, medianWindow, readers(above, below), buffers(above, below));
    }

    private static TraceBuffer[] buffers(TraceBuffer[] above, TraceBuffer below) {
        TraceBuffer[] all = java.util.Arrays.copyOf(above, above.length + 1);
        all[above.length] = below;
        return all;
    }

    private static TraceBufferReader[] readers(TraceBuffer[] above, TraceBuffer below) {
        TraceBufferReader[] readers = new TraceBufferReader[above.length + 1];
        for (int p = 0; p < above.length; p++) {
            readers[p] = above[p].newReader();
        }
        readers[above.length] = below.newReader();
        return readers;
    }

    private LiveGred(Node gred, String[] contributors, int medianWindow, TraceBufferReader[] readers, TraceBuffer[] buffers) {
        boolean central = readers == null;
        this.gred = gred;
        this.buffers = buffers;
        this.profiles = new RankProfile[contributors.length];
        this.contributors = contributors.clone();
        this.ports = contributors.length;
        this.readers = readers;
        this.ring = new long[ports + 1][3 * WINDOW];
        this.head = new long[ports + 1];
        this.tail = new long[ports + 1];
        this.t1 = new long[ports];
        this.t4 = new long[ports];
        this.calls = new GredCalls(ports, medianWindow);
        this.medianWindow = medianWindow;
        this.pending = central ? new long[ports + 1][3 * 64] : null;
        this.pendingHead = central ? new int[ports + 1] : null;
        this.pendingTail = central ? new int[ports + 1] : null;
    }

    /**
     * A gred analysed at the front-end (centralised analysis): no trace buffer is read here; the scope's rounds hand
     * in each collector's tuples ({@link #offer}, then {@link #pump}). Collector index p &lt; arity is the one above port
     * p, index arity the one below.
     */
    LiveGred(Node gred, String[] contributors, int medianWindow) {
        this(gred, contributors, medianWindow, null, null);
    }

    /** Central analysis: one tuple of collector {@code c}, in the order the collector wrote them. */
    void offer(int c, long seq, long t0, long t1, boolean failedCall) {
        synchronized (this) {
            read++;
            if (failedCall) {
                failed++;
                return;
            }
        }
        if (pendingTail[c] + 3 > pending[c].length) {
            int live = pendingTail[c] - pendingHead[c];
            long[] grown = live + 3 > pending[c].length / 2 ? new long[pending[c].length * 2] : pending[c];
            System.arraycopy(pending[c], pendingHead[c], grown, 0, live);
            pending[c] = grown;
            pendingHead[c] = 0;
            pendingTail[c] = live;
        }
        long[] q = pending[c];
        q[pendingTail[c]++] = seq;
        q[pendingTail[c]++] = t0;
        q[pendingTail[c]++] = t1;
    }

    /** Central analysis: moves what was offered into the join, as far as every collector's tuples allow. */
    void pump() {
        while (true) {
            int moved = 0;
            for (int c = 0; c <= ports; c++) {
                long[] q = pending[c];
                while (pendingHead[c] < pendingTail[c] && tail[c] - head[c] < WINDOW) {
                    int slot = 3 * (int) (tail[c] & MASK);
                    ring[c][slot] = q[pendingHead[c]++];
                    ring[c][slot + 1] = q[pendingHead[c]++];
                    ring[c][slot + 2] = q[pendingHead[c]++];
                    tail[c]++;
                    moved++;
                }
            }
            synchronized (this) {
                join();
            }
            if (moved == 0) {
                return;
            }
        }
    }

    Node gred() {
        return gred;
    }

    /** The port whose collector writes {@code buffer}, or -1. */
    int portReading(TraceBuffer buffer) {
        for (int p = 0; buffers != null && p < ports; p++) {
            if (buffers[p] == buffer) {
                return p;
            }
        }
        return -1;
    }

    /** From now on this gred's reader of port {@code port} also counts each call into {@code profile}. Before polling. */
    void feeds(int port, RankProfile profile) {
        profiles[port] = profile;
    }

    /**
     * Reads what the collectors wrote since the last poll and joins it; returns the tuples read. The read-ahead rings
     * are this thread's alone; the metrics are taken under the lock once per poll that read something.
     */
    int poll(TraceTupleFlyweight tuple) {
        if (readers == null) {
            return 0;
        }
        int read = 0;
        int failedNow = 0;
        for (int c = 0; c <= ports; c++) {
            TraceBufferReader reader = readers[c];
            RankProfile profile = c < ports ? profiles[c] : null;
            long[] r = ring[c];
            long at = tail[c];
            long limit = Math.min(head[c] + WINDOW, at + READ_BATCH);
            while (at < limit && reader.readNext(tuple)) {
                read++;
                if ((tuple.flags() & TraceOp.FLAG_FAILED) != 0) {
                    failedNow++;
                    continue;
                }
                if (profile != null) {
                    profile.count(tuple.opType(), tuple.endNs() - tuple.startNs());
                }
                int slot = 3 * (int) (at & MASK);
                r[slot] = tuple.sequence();
                r[slot + 1] = tuple.startNs();
                r[slot + 2] = tuple.endNs();
                at++;
            }
            tail[c] = at;
        }
        if (read > 0) {
            synchronized (this) {
                this.read += read;
                this.failed += failedNow;
                join();
            }
        }
        return read;
    }

    /** Joins the calls every collector has a tuple of; the caller holds the lock (central analysis: pump). */
    private void join() {
        while (true) {
            long newest = Long.MIN_VALUE;
            for (int c = 0; c <= ports; c++) {
                if (head[c] == tail[c]) {
                    return;
                }
                newest = Math.max(newest, ring[c][3 * (int) (head[c] & MASK)]);
            }
            boolean all = true;
            for (int c = 0; c <= ports; c++) {
                while (head[c] < tail[c] && ring[c][3 * (int) (head[c] & MASK)] < newest) {
                    head[c]++;
                    dropped++;
                }
                all &= head[c] < tail[c];
            }
            if (!all) {
                return;
            }
            for (int p = 0; p < ports; p++) {
                int slot = 3 * (int) (head[p] & MASK);
                t1[p] = ring[p][slot + 1];
                t4[p] = ring[p][slot + 2];
                head[p]++;
            }
            int below = 3 * (int) (head[ports] & MASK);
            calls.add(t1, t4, ring[ports][below + 1], ring[ports][below + 2]);
            head[ports]++;
        }
    }

    /** Tuples the collectors' rings overwrote before this gred's reader got to them. */
    long missed() {
        long missed = 0;
        if (readers == null) {
            return 0; // the scope's leaves count what the rings overwrote (its records_dropped)
        }
        for (TraceBufferReader r : readers) {
            missed += r.missed();
        }
        return missed;
    }

    /** What this gred's metrics are now, for any thread. */
    synchronized GredSnapshot snapshot() {
        return new GredSnapshot(gred.name(), gred.host(), gred.tree(), contributors.clone(), calls.copy(), dropped, failed, missed(),
                read, memoryBytes());
    }

    /** What this gred's analysis keeps: the read-ahead rings and the metrics (their windows for the median). */
    long memoryBytes() {
        long rings = 3L * (ports + 1) * WINDOW * Long.BYTES;
        if (pending != null) {
            for (long[] q : pending) {
                rings += (long) q.length * Long.BYTES;
            }
        }
        long metrics = (ports + 1) * 5L * (64 + (long) medianWindow * Double.BYTES) + 2L * ports * ports * Long.BYTES;
        return rings + metrics;
    }
}
