package org.eventspace.mpi;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
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
 * <p>The pairing does not depend on the order the calls are read in, only on each rank's own order: every send of a
 * channel comes from one rank's ring and every receive placed on it from another's, each read in the order it was
 * written, so the k-th send on a channel meets the k-th receive on it however the node agents' reads interleave (one
 * host's reader may run far ahead of another's). So nothing is dropped while it waits: a call stays queued until its
 * partner is read or the run ends. Memory stays bounded by holding back the reader instead ({@link #holdBack}): a rank
 * with {@link #pendingBound} calls waiting for partners is not read further while a rank behind it in time has tuples
 * to read ({@link MpiAnalysis#holdBack}); a call queued past the bound anyway (no such rank: its partners never came,
 * or their tuples were overwritten) is counted ({@link #pendingBoundExceeded}). At the end, what is still queued
 * is counted as unmatched, split by whether the partner rank's ring overwrote tuples before they were read
 * ({@link #finish}).
 *
 * <p>Not thread-safe: fed by one agent thread.
 */
final class PointToPointWaits {
    /**
     * Calls waiting for their partner over every rank (about 50 bytes each) before readers are held back: each rank
     * gets this share, at least {@link NodeAgent#BATCH}.
     */
    static final int MAX_PENDING = 1 << 21;
    /**
     * MPI_Irecv kept per rank until their completion arrives (one never waited for, or freed, never completes);
     * beyond, the oldest is forgotten and counted ({@link #postsForgotten}): its completion, if it comes, is then
     * counted in {@link #completionsWithoutPost}. Each rank's posts come from its own ring, in order: the read order
     * of other ranks does not change which are forgotten.
     */
    static final int MAX_POSTED = 4096;

    private record Channel(int comm, int src, int dst, int tag) {
    }

    private static final class Send {
        final int src;
        final int dst;
        final long entryNs;
        final long exitNs;
        final boolean judgeLateReceiver;

        Send(int src, int dst, long entryNs, long exitNs, boolean judgeLateReceiver) {
            this.src = src;
            this.dst = dst;
            this.entryNs = entryNs;
            this.exitNs = exitNs;
            this.judgeLateReceiver = judgeLateReceiver;
        }
    }

    /**
     * The call a receive completed in: its window, and the late sends of its receives matched so far, by how late
     * (then send entry, then source), so each sender's share is the increase its send made over the one before it
     * in that order, whichever was read first.
     */
    private static final class Completion {
        final long entryNs;
        final long exitNs;
        /** Per late send: {late ns, send entry ns, source}, ascending. */
        final List<long[]> late = new ArrayList<>(1);

        Completion(long entryNs, long exitNs) {
            this.entryNs = entryNs;
            this.exitNs = exitNs;
        }

        long chargedNs() {
            return late.isEmpty() ? 0 : late.get(late.size() - 1)[0];
        }
    }

    private static final Comparator<long[]> BY_LATENESS = Comparator.<long[]>comparingLong(a -> a[0])
            .thenComparingLong(a -> a[1]).thenComparingLong(a -> a[2]);

    private static final class Receive {
        final int comm;
        final int dst;
        final long entryNs;
        final int postLow;
        /** The source it waits for once placed on a channel. */
        int src = -1;
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
    /** Per rank: its calls queued for a partner (sends by it, receives placed by it). */
    private final long[] pending;
    /** Calls per rank queued before its reader is held back. */
    final long pendingBound;
    long matched;
    /** Calls queued while their rank was already at {@link #pendingBound} (read anyway: no rank behind it could be). */
    long pendingBoundExceeded;
    /** MPI_Irecv forgotten beyond {@link #MAX_POSTED} before their completion arrived. */
    long postsForgotten;
    /** Completion records whose MPI_Irecv was not seen (the ring overwrote it, or it was forgotten). */
    long completionsWithoutPost;
    /** At {@link #finish}: calls still queued whose partner rank's ring overwrote no tuple (no partner call seen). */
    long unmatchedNoPartner;
    /** At {@link #finish}: calls still queued whose partner rank's ring overwrote tuples before they were read. */
    long unmatchedPartnerOverwritten;

    @SuppressWarnings("unchecked")
    PointToPointWaits(int worldSize) {
        lateSenderNs = new long[worldSize];
        lateSenderCount = new long[worldSize];
        lateSenderCausedNs = new long[worldSize];
        lateReceiverNs = new long[worldSize];
        lateReceiverCount = new long[worldSize];
        posted = new ArrayDeque[worldSize];
        lastCompletion = new Completion[worldSize];
        pending = new long[worldSize];
        pendingBound = Math.max(NodeAgent.BATCH, MAX_PENDING / Math.max(1, worldSize));
    }

    /**
     * Whether {@code rank}'s reader should wait: it has {@link #pendingBound} calls queued for partners that other
     * readers have not reached yet. Reading the others first loses nothing (the pairing does not depend on the order).
     */
    boolean holdBack(int rank) {
        return rank(rank) && pending[rank] >= pendingBound;
    }

    /**
     * A send of {@code src} to {@code dst}; {@code judgeLateReceiver} false for a sendrecv's send half (its exit
     * waits for its own receive).
     */
    void send(int comm, int src, int dst, int tag, long entryNs, long exitNs, boolean judgeLateReceiver) {
        Channel c = new Channel(comm, src, dst, tag);
        Send send = new Send(src, dst, entryNs, exitNs, judgeLateReceiver);
        ArrayDeque<Receive> waiting = receives.get(c);
        if (waiting != null && !waiting.isEmpty()) {
            Receive r = waiting.poll();
            unqueued(r.dst);
            match(send, r);
        } else {
            enqueue(sends, c, send, src);
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
            postsForgotten++;
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
        r.src = src;
        Channel c = new Channel(r.comm, src, r.dst, tag);
        ArrayDeque<Send> waiting = sends.get(c);
        if (waiting != null && !waiting.isEmpty()) {
            Send s = waiting.poll();
            unqueued(s.src);
            match(s, r);
        } else {
            enqueue(receives, c, r, r.dst);
        }
    }

    /** Queues {@code call} of rank {@code owner} until its partner is read: never dropped, counted past the bound. */
    private <T> void enqueue(Map<Channel, ArrayDeque<T>> queues, Channel c, T call, int owner) {
        queues.computeIfAbsent(c, k -> new ArrayDeque<>()).add(call);
        if (rank(owner)) {
            if (pending[owner] >= pendingBound) {
                pendingBoundExceeded++;
            }
            pending[owner]++;
        }
    }

    private void unqueued(int owner) {
        if (rank(owner)) {
            pending[owner]--;
        }
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

    /**
     * The late-sender wait of the receive's completing call, raised to this send's if it is longer; the senders'
     * shares are the increases in the order of lateness, so they do not depend on which send was read first.
     */
    private void charge(Receive receive, Send send) {
        Completion w = receive.completion;
        long late = send.entryNs > w.entryNs ? Math.min(send.entryNs, w.exitNs) - w.entryNs : 0;
        if (late <= 0) {
            return;
        }
        long before = w.chargedNs();
        long[] entry = {late, send.entryNs, send.src};
        int at = Collections.binarySearch(w.late, entry, BY_LATENESS);
        at = at < 0 ? -at - 1 : at;
        long previous = at == 0 ? 0 : w.late.get(at - 1)[0];
        long share = late - previous;
        w.late.add(at, entry);
        lateSenderCausedNs[send.src] += share;
        if (at + 1 < w.late.size()) {
            // the next later send's increase is now counted from this one's lateness
            lateSenderCausedNs[(int) w.late.get(at + 1)[2]] -= share;
        }
        if (before == 0) {
            lateSenderCount[receive.dst]++;
        }
        lateSenderNs[receive.dst] += w.chargedNs() - before;
    }

    private boolean rank(int r) {
        return r >= 0 && r < lateSenderNs.length;
    }

    /** Calls still waiting for their partner (after {@link #finish}: every call that never found one). */
    long unmatched() {
        long n = 0;
        for (ArrayDeque<Send> q : sends.values()) {
            n += q.size();
        }
        for (ArrayDeque<Receive> q : receives.values()) {
            n += q.size();
        }
        return n;
    }

    /**
     * The end of the run: splits the calls still queued by why they found no partner — the partner rank's ring
     * overwrote tuples before they were read ({@code missedByRank[partner] > 0}: its call may have been among them),
     * or it did not (no partner call was made, or the partner left no files).
     */
    void finish(long[] missedByRank) {
        unmatchedNoPartner = 0;
        unmatchedPartnerOverwritten = 0;
        for (ArrayDeque<Send> q : sends.values()) {
            for (Send s : q) {
                countUnmatched(missedByRank, s.dst);
            }
        }
        for (ArrayDeque<Receive> q : receives.values()) {
            for (Receive r : q) {
                countUnmatched(missedByRank, r.src);
            }
        }
    }

    private void countUnmatched(long[] missedByRank, int partner) {
        if (partner >= 0 && partner < missedByRank.length && missedByRank[partner] > 0) {
            unmatchedPartnerOverwritten++;
        } else {
            unmatchedNoPartner++;
        }
    }
}
