package org.eventspace.comm.traffic;

import java.util.ArrayList;
import java.util.List;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.eventspace.comm.path.Message;

/**
 * One host's traffic counters, taken where its messages are handed to the network (ibprof paper §3.2: counters per
 * local port and target, inside the communication library, so that the messages a collective's algorithm sends are
 * counted too). A host has a <em>port</em> per rank that sends or receives point-to-point messages over a hop, whose
 * peers are ranks, and one <em>host port</em> for the hops of its trees, whose peers are hosts: the joined
 * contributions a gred sends down and the results it gets back belong to the host, not to one rank. Each port is one
 * preallocated buffer laid out by {@link TrafficCounterLayout}: bytes and messages sent to and received from each
 * peer, per phase.
 *
 * <p>Ports are made when a hop is opened ({@link #client}, {@link #server}), never when a message moves. Counting is
 * wait-free and allocates nothing: a test of the tag's counted bit (set by the sender's scope) and four atomic adds (the phase's cell and the
 * operation's). Any thread may count
 * through a {@link Channel}; any thread may read {@link #ports()} at any time (volatile loads; a cell read while a
 * message is counted may show its bytes without its message, never a torn value).
 */
public final class TrafficCounters {
    /** Counts nothing: every channel it gives returns at the first test. */
    public static final TrafficCounters OFF = new TrafficCounters(-1, 0, 0, null);

    /** Which peers a port counts. */
    public enum PortKind {
        /** A rank's point-to-point messages; peers are ranks. */
        RANK,
        /** The host's tree hops; peers are hosts. */
        HOST
    }

    /** One port's counters: its kind, its own rank or host id, and its buffer (read with {@link #read}). */
    public record Port(PortKind kind, int id, int peers, UnsafeBuffer buffer) {
        /** One field ({@link TrafficCounterLayout}'s offsets) of the cell of {@code peer} in {@code phase}. */
        public long read(int peer, int phase, int fieldOffset) {
            return buffer.getLongVolatile(TrafficCounterLayout.cellOffset(peer, phase) + fieldOffset);
        }

        /** One field of the operation cell of {@code peer} for operation kind {@code kind} ({@link TrafficTag}). */
        public long readOperation(int peer, int kind, int fieldOffset) {
            return buffer.getLongVolatile(TrafficCounterLayout.operationCellOffset(peer, kind) + fieldOffset);
        }
    }

    private final int host;
    private final int ranks;
    private final int hosts;
    private final TrafficScope scope;
    private final List<Port> ports = new ArrayList<>();
    private Port hostPort;

    /**
     * @param host  the host these counters belong to.
     * @param ranks the job's ranks (a rank port's peers).
     * @param hosts the job's hosts (the host port's peers).
     * @param scope which messages are counted; null counts nothing.
     */
    public TrafficCounters(int host, int ranks, int hosts, TrafficScope scope) {
        this.host = host;
        this.ranks = ranks;
        this.hosts = hosts;
        this.scope = scope;
    }

    public boolean enabled() {
        return scope != null;
    }

    /** The scope counted, null when {@link #enabled()} is false. */
    public TrafficScope scope() {
        return scope;
    }

    public int host() {
        return host;
    }

    /** The ports made so far, in the order they were made. */
    public synchronized List<Port> ports() {
        return List.copyOf(ports);
    }

    /**
     * The channel of a hop's calling end: its requests are sent to the peer, its replies received from it.
     *
     * @param pointToPoint whether the hop writes a point-to-point mailbox {@code p2p.<source>.<dest>} (else: a tree hop).
     * @param sourceRank for a point-to-point hop the sending rank (on this host); ignored otherwise.
     * @param destRank   for a point-to-point hop the receiving rank; ignored otherwise.
     * @param peerHost   the host at the other end.
     */
    public Channel client(boolean pointToPoint, int sourceRank, int destRank, int peerHost) {
        if (scope == null) {
            return Channel.NONE;
        }
        return pointToPoint ? new Channel(scope, port(PortKind.RANK, sourceRank), destRank, true, false)
                : new Channel(scope, port(PortKind.HOST, host), peerHost, true, true);
    }

    /** The channel of a hop's serving end: its requests are received from the peer, its replies sent to it. */
    public Channel server(boolean pointToPoint, int sourceRank, int destRank, int peerHost) {
        if (scope == null) {
            return Channel.NONE;
        }
        return pointToPoint ? new Channel(scope, port(PortKind.RANK, destRank), sourceRank, false, false)
                : new Channel(scope, port(PortKind.HOST, host), peerHost, false, true);
    }

    private synchronized Port port(PortKind kind, int id) {
        if (kind == PortKind.HOST && hostPort != null) {
            return hostPort;
        }
        for (Port p : ports) {
            if (p.kind() == kind && p.id() == id) {
                return p;
            }
        }
        int peers = kind == PortKind.RANK ? ranks : hosts;
        int length = TrafficCounterLayout.length(peers);
        UnsafeBuffer buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(Math.max(length, 64), 64));
        Port p = new Port(kind, id, peers, buffer);
        ports.add(p);
        if (kind == PortKind.HOST) {
            hostPort = p;
        }
        return p;
    }

    /**
     * One hop end's view of a port: the cell of its peer. A transport calls {@link #request} when the hop's request is
     * handed to the network (calling end) or taken off it (serving end), and {@link #reply} likewise for the reply. A
     * point-to-point hop's reply is an acknowledgement, not data of the program's, and is not counted; a tree hop's reply
     * carries the collective's result back and is. May be called from any thread; allocates nothing.
     */
    public static final class Channel {
        /** Counts nothing. */
        public static final Channel NONE = new Channel(null, null, 0, true, false);

        private final TrafficScope scope;
        private final UnsafeBuffer buffer;
        private final int cell;
        private final int requestOffset;
        private final int replyOffset;
        private final boolean countReplies;
        /** A cell's message count follows its byte count, for both directions. */
        private static final int MESSAGES_AFTER_BYTES = TrafficCounterLayout.MESSAGES_SENT_OFFSET - TrafficCounterLayout.BYTES_SENT_OFFSET;

        Channel(TrafficScope scope, Port port, int peer, boolean calling, boolean countReplies) {
            this.scope = scope;
            this.buffer = port == null ? null : port.buffer();
            if (port != null && (peer < 0 || peer >= port.peers())) {
                throw new IllegalArgumentException("peer " + peer + " of a " + port.kind() + " port with peers 0.."
                        + (port.peers() - 1));
            }
            this.cell = port == null ? 0 : TrafficCounterLayout.cellOffset(peer, 0);
            this.requestOffset = calling ? TrafficCounterLayout.BYTES_SENT_OFFSET : TrafficCounterLayout.BYTES_RECEIVED_OFFSET;
            this.replyOffset = calling ? TrafficCounterLayout.BYTES_RECEIVED_OFFSET : TrafficCounterLayout.BYTES_SENT_OFFSET;
            this.countReplies = countReplies;
        }

        public boolean counting() {
            return scope != null;
        }

        /** The hop's request (its payload of {@code message.length()} words) crossed the network. */
        public void request(Message message) {
            count(message, requestOffset);
        }

        /** The hop's reply crossed the network. */
        public void reply(Message message) {
            if (countReplies) {
                count(message, replyOffset);
            }
        }

        /** This end handed {@code message} to the network: an exchange link's, where both directions carry data. */
        public void sent(Message message) {
            count(message, TrafficCounterLayout.BYTES_SENT_OFFSET);
        }

        /** This end took {@code message} off the network (an exchange link's). */
        public void received(Message message) {
            count(message, TrafficCounterLayout.BYTES_RECEIVED_OFFSET);
        }

        private void count(Message message, int field) {
            byte tag = message.tag();
            // The sender's scope decided (TrafficTag.COUNTED, the sign bit); NONE has no buffer.
            if (tag >= 0 || buffer == null) {
                return;
            }
            long bytes = (long) message.length() << 3;
            int at = cell + TrafficTag.phase(tag) * TrafficCounterLayout.CELL_LENGTH + field;
            buffer.getAndAddLong(at, bytes);
            buffer.getAndAddLong(at + MESSAGES_AFTER_BYTES, 1);
            // the same message in its operation's cell (the two sets are marginals of one count)
            int op = cell + (TrafficTag.MAX_PHASES + TrafficTag.kind(tag)) * TrafficCounterLayout.CELL_LENGTH + field;
            buffer.getAndAddLong(op, bytes);
            buffer.getAndAddLong(op + MESSAGES_AFTER_BYTES, 1);
        }
    }
}
