package org.eventspace.wan.cluster;

import java.util.concurrent.locks.LockSupport;

import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.Message;

/**
 * What one cluster root keeps for one tree (dissertation appendix 7.3 §IV): the cluster's own partial results, newest
 * last, for the other roots to fetch (the paper's result element), and one one-tuple cache per remote cluster that this
 * root's prefetch threads fill with the newest partial result fetched from it.
 *
 * <p>A published tuple carries its sequence number (the cluster root's call count on the tree) and {@code lastFalse},
 * the newest sequence number this cluster decided a conditional call false on: the sequence-number rule needs it
 * (see {@link ClusterRoot}). Thread-safe: the cluster root's thread publishes and reads the caches, the
 * {@code partialfetch} wrappers' service threads read the published tuples, the prefetch threads write the caches.
 * Tuples are copied under this object's or the cache's monitor; nothing is allocated after construction.
 */
final class ClusterState {
    /**
     * Published tuples kept. A remote root that asks for an exact sequence number of a plain call is never more than one
     * plain call behind (this root needs its partial result to pass it), but conditional calls decided on local values
     * need no remote partial, so this root may run any number of them ahead: the newest plain call's tuple is therefore
     * kept apart from the ring ({@link #publish}), and the ring only serves the recent conditional calls.
     */
    static final int RING = 4;
    /**
     * Longest a {@code partialfetch} waits for a new tuple before answering "none yet" (its caller asks again). Long
     * against an iteration: a prefetch request is in flight before the tuple it asks for exists, and a "none yet" costs
     * the link's two-way latency before the next request arrives (at 50 ms, MagPIe over four sites with 30–50 ms
     * iterations timed out on a third of its fetches and took 62 ms an iteration). Closing the job wakes a waiting fetch.
     */
    static final long FETCH_SLICE_NS = 2_000_000_000L;
    /** Reply words before the payload: sequence number, lastFalse. */
    static final int HEADER_WORDS = 2;
    static final int NOT_YET = -1;
    static final int TRUE_BY_RULE = -2;
    static final int FALSE_BY_RULE = -3;

    final int cluster;
    final int clusters;
    private final long[] seq = new long[RING];
    private final long[] lastFalseOf = new long[RING];
    private final int[] lengths = new int[RING];
    private final long[][] payloads;
    private long newest = -1;
    /** The newest plain (unconditional) call's tuple, kept until the next plain call replaces it. */
    private long plainSeq = -1;
    private long plainLastFalse = -1;
    private int plainLength;
    private final long[] plainPayload;
    /** The newest sequence number this root decided (finished); its prefetch threads fetch past it. */
    volatile long done = -1;
    /** The newest sequence number this root decided a conditional call false on. */
    long lastFalse = -1;
    private volatile boolean closed;
    final Cache[] caches;
    /** The prefetch threads of this root, unparked when {@link #done} moves. */
    final Thread[] prefetchers;

    ClusterState(int cluster, int clusters, int maxWords) {
        this.cluster = cluster;
        this.clusters = clusters;
        this.payloads = new long[RING][maxWords];
        this.plainPayload = new long[maxWords];
        this.caches = new Cache[clusters];
        for (int b = 0; b < clusters; b++) {
            caches[b] = b == cluster ? null : new Cache(maxWords);
        }
        this.prefetchers = new Thread[clusters];
        java.util.Arrays.fill(seq, -1);
    }

    /**
     * Stores the cluster's partial result of call {@code s}; a {@code plain} call's (not conditional: every cluster needs
     * its exact partial result) also stays in the plain slot until the next plain call.
     */
    synchronized void publish(long s, Message m, boolean plain) {
        int slot = (int) (s % RING);
        seq[slot] = s;
        lastFalseOf[slot] = lastFalse;
        lengths[slot] = m.length();
        System.arraycopy(m.words(), 0, payloads[slot], 0, m.length());
        if (plain) {
            plainSeq = s;
            plainLastFalse = lastFalse;
            plainLength = m.length();
            System.arraycopy(m.words(), 0, plainPayload, 0, m.length());
        }
        newest = s;
        notifyAll();
    }

    /**
     * Fills {@code reply} with the tuple of sequence number {@code want} if still kept; else the newest plain call's if it
     * is at least {@code want} (a root waiting at that plain call needs it exactly, and for the conditional calls before
     * it any newer tuple answers by the sequence-number rule); else the newest — once the newest is at least
     * {@code want}. With sequence number -1 if none came within {@link #FETCH_SLICE_NS} or the job closed.
     */
    synchronized void fetch(long want, Message reply) throws InterruptedException {
        long deadline = System.nanoTime() + FETCH_SLICE_NS;
        long left;
        while (newest < want && !closed && (left = deadline - System.nanoTime()) > 0) {
            wait(left / 1_000_000L, (int) (left % 1_000_000L));
        }
        if (newest < want || closed) {
            reply.length(HEADER_WORDS).word(0, -1L).word(1, -1L);
            return;
        }
        int slot = (int) (want % RING);
        if (seq[slot] != want && plainSeq >= want) {
            reply.length(HEADER_WORDS + plainLength);
            reply.word(0, plainSeq).word(1, plainLastFalse);
            System.arraycopy(plainPayload, 0, reply.words(), HEADER_WORDS, plainLength);
            return;
        }
        if (seq[slot] != want) {
            slot = (int) (newest % RING);
        }
        reply.length(HEADER_WORDS + lengths[slot]);
        reply.word(0, seq[slot]).word(1, lastFalseOf[slot]);
        System.arraycopy(payloads[slot], 0, reply.words(), HEADER_WORDS, lengths[slot]);
    }

    /** Marks call {@code s} decided and wakes the prefetch threads waiting to fetch past it. */
    void finished(long s) {
        done = s;
        for (Thread t : prefetchers) {
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    boolean closed() {
        return closed;
    }

    synchronized void close() {
        closed = true;
        notifyAll();
        for (Thread t : prefetchers) {
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    /**
     * The one-tuple cache of a remote cluster's newest partial result (the paper's cache element). Written by one
     * prefetch thread, read by the cluster root's thread.
     */
    static final class Cache {
        private long seq = -1;
        private long lastFalse = -1;
        private int length;
        private final long[] payload;
        private CommException failure;

        Cache(int maxWords) {
            this.payload = new long[maxWords];
        }

        /** Stores a {@code partialfetch} reply (sequence number, lastFalse, payload) if it is newer. */
        synchronized void put(Message reply) {
            long s = reply.word(0);
            if (s <= seq) {
                return;
            }
            seq = s;
            lastFalse = reply.word(1);
            length = reply.length() - HEADER_WORDS;
            System.arraycopy(reply.words(), HEADER_WORDS, payload, 0, length);
        }

        synchronized long seq() {
            return seq;
        }

        /**
         * What the cache says about call {@code s}: {@link #NOT_YET} if it holds an older tuple; the payload's length,
         * copied into {@code into}, if it holds call {@code s}'s; if it holds a newer one, the sequence-number rule's
         * answer for a conditional call: {@link #FALSE_BY_RULE} if that cluster decided call {@code s} false (it had
         * every partial result, ours included), else {@link #TRUE_BY_RULE}.
         */
        synchronized int take(long s, long[] into) {
            if (seq < s) {
                return NOT_YET;
            }
            if (seq == s) {
                System.arraycopy(payload, 0, into, 0, length);
                return length;
            }
            return lastFalse == s ? FALSE_BY_RULE : TRUE_BY_RULE;
        }

        synchronized void fail(CommException e) {
            failure = e;
        }

        synchronized CommException failure() {
            return failure;
        }
    }
}
