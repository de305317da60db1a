package org.eventspace.mpi;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * Late sender and late receiver (Scalasca's point-to-point wait states): a send from A to B is matched to B's
 * receive from A in MPI's non-overtaking order, per (communicator, source, destination, tag) (MPI-3.1 §3.5). A
 * blocking MPI_Recv that entered before its send entered waited {@code send entry − receive entry} for a late
 * sender (at most its own duration); a send still inside the call when the receive entered waited
 * {@code receive entry − send entry} for a late receiver. MPI_Irecv takes its place in the order (so later
 * receives still match their own sends) but gives no wait: its completion is in a wait that PMPI does not tie to
 * it. The receive half of MPI_Sendrecv is not recorded, so a send that only a sendrecv receives stays unmatched.
 *
 * <p>Not thread-safe: fed by one agent thread.
 */
final class PointToPointWaits {
    /** Unmatched calls kept per channel; beyond, the oldest is dropped and counted. */
    static final int MAX_QUEUE = 1024;

    private record Channel(int comm, int src, int dst, int tag) {
    }

    private record Call(long entryNs, long exitNs, boolean blockingReceive) {
    }

    private final Map<Channel, ArrayDeque<Call>> sends = new HashMap<>();
    private final Map<Channel, ArrayDeque<Call>> receives = new HashMap<>();
    final long[] lateSenderNs;
    final long[] lateSenderCount;
    final long[] lateReceiverNs;
    final long[] lateReceiverCount;
    long matched;
    long dropped;

    PointToPointWaits(int worldSize) {
        lateSenderNs = new long[worldSize];
        lateSenderCount = new long[worldSize];
        lateReceiverNs = new long[worldSize];
        lateReceiverCount = new long[worldSize];
    }

    void send(int comm, int src, int dst, int tag, long entryNs, long exitNs) {
        Channel c = new Channel(comm, src, dst, tag);
        ArrayDeque<Call> waiting = receives.get(c);
        Call send = new Call(entryNs, exitNs, false);
        if (waiting != null && !waiting.isEmpty()) {
            match(send, waiting.poll(), src, dst);
        } else {
            enqueue(sends, c, send);
        }
    }

    void receive(int comm, int src, int dst, int tag, long entryNs, long exitNs, boolean blocking) {
        Channel c = new Channel(comm, src, dst, tag);
        ArrayDeque<Call> waiting = sends.get(c);
        Call receive = new Call(entryNs, exitNs, blocking);
        if (waiting != null && !waiting.isEmpty()) {
            match(waiting.poll(), receive, src, dst);
        } else {
            enqueue(receives, c, receive);
        }
    }

    private void enqueue(Map<Channel, ArrayDeque<Call>> queues, Channel c, Call call) {
        ArrayDeque<Call> q = queues.computeIfAbsent(c, k -> new ArrayDeque<>());
        if (q.size() >= MAX_QUEUE) {
            q.poll();
            dropped++;
        }
        q.add(call);
    }

    private void match(Call send, Call receive, int src, int dst) {
        matched++;
        if (src < 0 || dst < 0 || src >= lateSenderNs.length || dst >= lateSenderNs.length) {
            return;
        }
        if (receive.blockingReceive && send.entryNs > receive.entryNs) {
            lateSenderNs[dst] += Math.min(send.entryNs, receive.exitNs) - receive.entryNs;
            lateSenderCount[dst]++;
        }
        if (receive.entryNs > send.entryNs && send.exitNs > receive.entryNs) {
            lateReceiverNs[src] += receive.entryNs - send.entryNs;
            lateReceiverCount[src]++;
        }
    }

    long unmatched() {
        long n = 0;
        for (ArrayDeque<Call> q : sends.values()) {
            n += q.size();
        }
        for (ArrayDeque<Call> q : receives.values()) {
            n += q.size();
        }
        return n + dropped;
    }
}
