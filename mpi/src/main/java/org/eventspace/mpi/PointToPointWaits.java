package org.eventspace.mpi;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * Late sender and late receiver (Scalasca's point-to-point wait states; Geimer et al. 2010): a send from A to B is
 * matched to B's receive from A in MPI's non-overtaking order, per (communicator, source, destination, tag)
 * (MPI-3.1 §3.5).
 *
 * <ul>
 *   <li><b>Late sender</b>: the receiver sat in the call that completed its receive — a blocking MPI_Recv, the
 *   receive half of MPI_Sendrecv, or the wait or test that completed an MPI_Irecv — before the matching send
 *   started: {@code min(send entry, call exit) − call entry}. A call that completes several receives (MPI_Waitall
 *   of k MPI_Irecv) waited once, so it is charged once: the longest of its receives' waits (until the last of their
 *   sends started), each increase charged to the sender whose send made the wait longer
 *   ({@link #lateSenderCausedNs}).</li>
 *   <li><b>Late receiver</b>: a send still in its call when the receive was entered (an MPI_Irecv: posted) waited
 *   {@code receive entry − send entry}. The send half of MPI_Sendrecv is not judged: its exit includes the wait for
 *   its own receive half.</li>
 * </ul>
 *
 * An MPI_Irecv with a named source and tag takes its place in the order when it is posted (so a later blocking
 * receive on the same channel matches the next send); its completion record ({@link MpiTuple#RECORD_RECEIVE}) is
 * tied to it by the low 32 bits of its start. One posted with MPI_ANY_SOURCE or MPI_ANY_TAG is placed when its
 * completion names the source and tag (its order among receives of that channel is then the completions' order).
 *
 * <p>Not thread-safe: fed by one agent thread.
 */
final class PointToPointWaits {
    /** Unmatched calls kept per channel; beyond, the oldest is dropped and counted. */
    static final int MAX_QUEUE = 1024;
    /** MPI_Irecv kept per rank until their completion arrives; beyond, the oldest is dropped and counted. */
    static final int MAX_POSTED = 4096;

    private record Channel(int comm, int src, int dst, int tag) {
    }

    private static final class Send {
        final int src;
        final long entryNs;
        final long exitNs;
        final boolean judgeLateReceiver;

        Send(int src, long entryNs, long exitNs, boolean judgeLateReceiver) {
            this.src = src;
            this.entryNs = entryNs;
            this.exitNs = exitNs;
            this.judgeLateReceiver = judgeLateReceiver;
        }
    }

    /** The call a receive completed in: its window, and the late-sender wait charged to it so far. */
    private static final class Completion {
        final long entryNs;
        final long exitNs;
        long chargedNs;

        Completion(long entryNs, long exitNs) {
            this.entryNs = entryNs;
            this.exitNs = exitNs;
        }
    }

    private static final class Receive {
        final int comm;
        final int dst;
        final long entryNs;
        final int postLow;
        boolean placed;
        Send matched;
        Completion completion;

        Receive(int comm, int dst, long entryNs, int postLow) {
            this.comm = comm;
            this.dst = dst;
            this.entryNs = entryNs;
            this.postLow = postLow;
        }
    }

    private final Map<Channel, ArrayDeque<Send>> sends = new HashMap<>();
    private final Map<Channel, ArrayDeque<Receive>> receives = new HashMap<>();
    private final ArrayDeque<Receive>[] posted;
    private final Completion[] lastCompletion;
    /** Per receiving rank: its late-sender wait and the calls that had one. */
    final long[] lateSenderNs;
    final long[] lateSenderCount;
    /** Per sending rank: the late-sender wait its late sends made the receivers spend. */
    final long[] lateSenderCausedNs;
    /** Per sending rank: its late-receiver wait and the sends that had one. */
    final long[] lateReceiverNs;
    final long[] lateReceiverCount;
    long matched;
    long dropped;
    /** Completion records whose MPI_Irecv was not seen (the ring overwrote it, or it was dropped). */
    long completionsWithoutPost;

    @SuppressWarnings("unchecked")
    PointToPointWaits(int worldSize) {
        lateSenderNs = new long[worldSize];
        lateSenderCount = new long[worldSize];
        lateSenderCausedNs = new long[worldSize];
        lateReceiverNs = new long[worldSize];
        lateReceiverCount = new long[worldSize];
        posted = new ArrayDeque[worldSize];
        lastCompletion = new Completion[worldSize];
    }

    /**
     * A send of {@code src} to {@code dst}; {@code judgeLateReceiver} false for a sendrecv's send half (its exit
     * waits for its own receive).
     */
    void send(int comm, int src, int dst, int tag, long entryNs, long exitNs, boolean judgeLateReceiver) {
        Channel c = new Channel(comm, src, dst, tag);
        Send send = new Send(src, entryNs, exitNs, judgeLateReceiver);
        ArrayDeque<Receive> waiting = receives.get(c);
        if (waiting != null && !waiting.isEmpty()) {
            match(send, waiting.poll());
        } else {
            enqueue(sends, c, send);
        }
    }

    /** A receive that waited inside its own call (MPI_Recv, or the receive half of a sendrecv). */
    void receive(int comm, int src, int dst, int tag, long entryNs, long exitNs) {
        Receive r = new Receive(comm, dst, entryNs, 0);
        r.completion = new Completion(entryNs, exitNs);
        place(r, src, tag);
    }

    /** An MPI_Irecv posted at {@code entryNs}; {@code src} or {@code tag} negative: a wildcard. */
    void post(int comm, int src, int dst, int tag, long entryNs, int postLow) {
        if (!rank(dst)) {
            return;
        }
        Receive r = new Receive(comm, dst, entryNs, postLow);
        ArrayDeque<Receive> q = posted[dst];
        if (q == null) {
            q = posted[dst] = new ArrayDeque<>();
        }
        if (q.size() >= MAX_POSTED) {
            q.poll();
            dropped++;
        }
        q.add(r);
        if (src >= 0 && tag >= 0) {
            place(r, src, tag);
        }
    }

    /**
     * The MPI_Irecv of {@code dst} whose start had low 32 bits {@code postLow} completed from {@code src} with
     * {@code tag} inside the wait or test [{@code entryNs}, {@code exitNs}]. Records of one call carry the same
     * window and arrive one after the other, so they share one {@link Completion}.
     */
    void complete(int comm, int src, int dst, int tag, int postLow, long entryNs, long exitNs) {
        if (!rank(dst)) {
            return;
        }
        Receive r = null;
        ArrayDeque<Receive> q = posted[dst];
        if (q != null) {
            for (Iterator<Receive> it = q.iterator(); it.hasNext(); ) {
                Receive p = it.next();
                if (p.postLow == postLow && p.comm == comm) {
                    it.remove();
                    r = p;
                    break;
                }
            }
        }
        if (r == null) {
            completionsWithoutPost++;
            r = new Receive(comm, dst, entryNs, postLow);
        }
        Completion last = lastCompletion[dst];
        if (last == null || last.entryNs != entryNs || last.exitNs != exitNs) {
            last = lastCompletion[dst] = new Completion(entryNs, exitNs);
        }
        r.completion = last;
        if (!r.placed) {
            place(r, src, tag);
        } else if (r.matched != null) {
            charge(r, r.matched);
        }
    }

    private void place(Receive r, int src, int tag) {
        r.placed = true;
        if (src < 0) {
            return;
        }
        Channel c = new Channel(r.comm, src, r.dst, tag);
        ArrayDeque<Send> waiting = sends.get(c);
        if (waiting != null && !waiting.isEmpty()) {
            match(waiting.poll(), r);
        } else {
            enqueue(receives, c, r);
        }
    }

    private <T> void enqueue(Map<Channel, ArrayDeque<T>> queues, Channel c, T call) {
        ArrayDeque<T> q = queues.computeIfAbsent(c, k -> new ArrayDeque<>());
        if (q.size() >= MAX_QUEUE) {
            q.poll();
            dropped++;
        }
        q.add(call);
    }

    private void match(Send send, Receive receive) {
        matched++;
        if (!rank(send.src) || !rank(receive.dst)) {
            return;
        }
        receive.matched = send;
        if (send.judgeLateReceiver && receive.entryNs > send.entryNs && send.exitNs > receive.entryNs) {
            lateReceiverNs[send.src] += receive.entryNs - send.entryNs;
            lateReceiverCount[send.src]++;
        }
        if (receive.completion != null) {
            charge(receive, send);
        }
    }

    /** The late-sender wait of the receive's completing call, raised to this send's if it is longer. */
    private void charge(Receive receive, Send send) {
        Completion w = receive.completion;
        long late = send.entryNs > w.entryNs ? Math.min(send.entryNs, w.exitNs) - w.entryNs : 0;
        if (late > w.chargedNs) {
            if (w.chargedNs == 0) {
                lateSenderCount[receive.dst]++;
            }
            long more = late - w.chargedNs;
            lateSenderNs[receive.dst] += more;
            lateSenderCausedNs[send.src] += more;
            w.chargedNs = late;
        }
    }

    private boolean rank(int r) {
        return r >= 0 && r < lateSenderNs.length;
    }

    long unmatched() {
        long n = 0;
        for (ArrayDeque<Send> q : sends.values()) {
            n += q.size();
        }
        for (ArrayDeque<Receive> q : receives.values()) {
            n += q.size();
        }
        return n + dropped;
    }
}
