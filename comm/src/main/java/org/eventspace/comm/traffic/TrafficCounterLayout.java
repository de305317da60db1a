package org.eventspace.comm.traffic;

import static org.agrona.BitUtil.SIZE_OF_LONG;

/**
 * Layout of one port's traffic counters ({@link TrafficCounters}): a cell per (peer, phase), each four longs, the
 * bytes and messages this port sent to that peer and received from it, kept apart because one side may not see what
 * the other counted (ibprof paper §3.2: an RDMA fragment is not recorded at both ends). Native byte order; every field
 * 8-byte aligned, written with atomic adds and read with volatile loads.
 *
 * <pre>
 *  cell(peer, phase) at (peer * MAX_PHASES + phase) * CELL_LENGTH:
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
 * <p>Bytes are payload bytes (8 per message word): what the algorithm moves, the same on every transport, without
 * the TCP frame's 24-byte header.
 */
public final class TrafficCounterLayout {
    public static final int BYTES_SENT_OFFSET = 0;
    public static final int MESSAGES_SENT_OFFSET = BYTES_SENT_OFFSET + SIZE_OF_LONG;
    public static final int BYTES_RECEIVED_OFFSET = MESSAGES_SENT_OFFSET + SIZE_OF_LONG;
    public static final int MESSAGES_RECEIVED_OFFSET = BYTES_RECEIVED_OFFSET + SIZE_OF_LONG;
    public static final int CELL_LENGTH = MESSAGES_RECEIVED_OFFSET + SIZE_OF_LONG;

    private TrafficCounterLayout() {
    }

    /** Offset of the cell of {@code peer} in {@code phase}. */
    public static int cellOffset(int peer, int phase) {
        return (peer * TrafficTag.MAX_PHASES + phase) * CELL_LENGTH;
    }

    /** Bytes of a port with {@code peers} peers. */
    public static int length(int peers) {
        return peers * TrafficTag.MAX_PHASES * CELL_LENGTH;
    }
}
