package org.eventspace.comm.traffic;

import static org.agrona.BitUtil.SIZE_OF_LONG;

/**
 * Layout of one port's traffic counters ({@link TrafficCounters}): per peer a cell per phase and a cell per operation
 * kind ({@link TrafficTag}), each four longs, the
 * bytes and messages this port sent to that peer and received from it, kept apart because one side may not see what
 * the other counted (ibprof paper §3.2: an RDMA fragment is not recorded at both ends). Native byte order; every field
 * 8-byte aligned, written with atomic adds and read with volatile loads.
 *
 * <pre>
 *  a peer's cells: MAX_PHASES phase cells, then KINDS operation cells (SLOTS in all);
 *  cell(peer, phase) at (peer * SLOTS + phase) * CELL_LENGTH,
 *  operation cell(peer, kind) at (peer * SLOTS + MAX_PHASES + kind) * CELL_LENGTH:
 *  +---------------------------------------------------------------+
 *  |                     Bytes sent to peer                        |
 *  +---------------------------------------------------------------+
 *  |                    Messages sent to peer                      |
 *  +---------------------------------------------------------------+
 *  |                   Bytes received from peer                    |
 *  +---------------------------------------------------------------+
 *  |                 Messages received from peer                   |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>Every counted message is added to two cells of its peer: its phase's and its operation's. The two sets are
 * marginals of one count (each sums to the same total), kept instead of the (phase, operation) product so that a
 * port stays {@code SLOTS × 32} bytes per peer.
 *
 * <p>Bytes are payload bytes (8 per message word): what the algorithm moves, the same on every transport, without
 * the TCP frame's 24-byte header.
 */
public final class TrafficCounterLayout {
    public static final int BYTES_SENT_OFFSET = 0;
    public static final int MESSAGES_SENT_OFFSET = BYTES_SENT_OFFSET + SIZE_OF_LONG;
    public static final int BYTES_RECEIVED_OFFSET = MESSAGES_SENT_OFFSET + SIZE_OF_LONG;
    public static final int MESSAGES_RECEIVED_OFFSET = BYTES_RECEIVED_OFFSET + SIZE_OF_LONG;
    public static final int CELL_LENGTH = MESSAGES_RECEIVED_OFFSET + SIZE_OF_LONG;
    /** Cells per peer: one per phase, one per operation kind. */
    public static final int SLOTS = TrafficTag.MAX_PHASES + TrafficTag.KINDS;

    private TrafficCounterLayout() {
    }

    /** Offset of the cell of {@code peer} in {@code phase}. */
    public static int cellOffset(int peer, int phase) {
        return (peer * SLOTS + phase) * CELL_LENGTH;
    }

    /** Offset of the operation cell of {@code peer} for operation kind {@code kind}. */
    public static int operationCellOffset(int peer, int kind) {
        return (peer * SLOTS + TrafficTag.MAX_PHASES + kind) * CELL_LENGTH;
    }

    /** Bytes of a port with {@code peers} peers. */
    public static int length(int peers) {
        return peers * SLOTS * CELL_LENGTH;
    }
}
