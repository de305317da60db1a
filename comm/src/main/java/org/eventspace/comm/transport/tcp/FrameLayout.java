package org.eventspace.comm.transport.tcp;

import static org.agrona.BitUtil.SIZE_OF_BYTE;
import static org.agrona.BitUtil.SIZE_OF_INT;
import static org.agrona.BitUtil.SIZE_OF_LONG;

import java.nio.ByteOrder;

/**
 * Layout of the request and reply frames a TCP hop carries after its handshake ({@link HandshakeLayout}).
 * Every field is little-endian. A request carries a {@link org.eventspace.comm.path.Message} down to the
 * serving host; the reply carries the result back up, or the failure of the rest of the path.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                 Frame Length (bytes, header included)         |
 *  +---------------+---------------+---------------+---------------+
 *  |    Op Code    |  Value Type   |    Status     |  Traffic Tag  |
 *  +---------------+---------------+---------------+---------------+
 *  |                           Sequence                            |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                          Word Count                           |
 *  +---------------------------------------------------------------+
 *  |                  Error Text Length (bytes)                    |
 *  +---------------------------------------------------------------+
 *  |  Status OK: Word Count payload words, 8 bytes each           ...
 *  |  Status FAILED: Error Text Length bytes of UTF-8 text        ...
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>Op code is {@link org.eventspace.comm.path.ReduceOp#ordinal()}, value type
 * {@link org.eventspace.comm.path.ValueType#ordinal()} in its low four bits and, in its high four, the
 * {@link org.eventspace.comm.path.Condition#code()} of a conditional allreduce (0 otherwise), traffic tag {@link org.eventspace.comm.path.Message#tag()} (the
 * operation and phase the serving host counts the request under; {@link org.eventspace.comm.traffic.TrafficTag}); a
 * reply repeats the request's. The header is 24
 * bytes so the payload words start 8-byte aligned. A hop carries one frame at a time in each direction: the
 * client sends the next request only after it read the reply.
 */
public final class FrameLayout {
    public static final ByteOrder BYTE_ORDER = ByteOrder.LITTLE_ENDIAN;

    public static final int FRAME_LENGTH_OFFSET = 0;
    public static final int OP_CODE_OFFSET = FRAME_LENGTH_OFFSET + SIZE_OF_INT;
    public static final int VALUE_TYPE_OFFSET = OP_CODE_OFFSET + SIZE_OF_BYTE;
    public static final int STATUS_OFFSET = VALUE_TYPE_OFFSET + SIZE_OF_BYTE;
    public static final int TRAFFIC_TAG_OFFSET = STATUS_OFFSET + SIZE_OF_BYTE;
    public static final int SEQUENCE_OFFSET = TRAFFIC_TAG_OFFSET + SIZE_OF_BYTE;
    public static final int WORD_COUNT_OFFSET = SEQUENCE_OFFSET + SIZE_OF_LONG;
    public static final int ERROR_LENGTH_OFFSET = WORD_COUNT_OFFSET + SIZE_OF_INT;
    public static final int PAYLOAD_OFFSET = ERROR_LENGTH_OFFSET + SIZE_OF_INT;
    public static final int HEADER_LENGTH = PAYLOAD_OFFSET;

    public static final byte STATUS_OK = 0;
    public static final byte STATUS_FAILED = 1;

    /** Largest frame a peer may announce (32 Mi words); a larger length means a broken or hostile peer. */
    public static final int MAX_FRAME_LENGTH = HEADER_LENGTH + (1 << 28);
    /** Most payload words one frame can carry. */
    public static final int MAX_WORDS = (MAX_FRAME_LENGTH - HEADER_LENGTH) / SIZE_OF_LONG;
    /** Error texts are cut to this many bytes so a failure reply stays small. */
    public static final int MAX_ERROR_LENGTH = 4096;

    private FrameLayout() {
    }

    /** Bytes of a frame carrying {@code words} payload words. */
    public static int frameLength(int words) {
        return HEADER_LENGTH + words * SIZE_OF_LONG;
    }
}
