package org.eventspace.events;

import org.agrona.BitUtil;

/**
 * Layout of a {@link TraceBuffer}: a header, then {@code capacity} slots of one trace tuple each. The same
 * bytes are a heap or direct buffer in this JVM or a memory-mapped file another process reads
 * ({@link TraceBufferReader#open}).
 *
 * <p>Header (the descriptive fields are little-endian whatever the host, so any reader can decode them; the
 * write position, the slot sequences and the tuples are in the byte order the header names):
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                  Magic "ESTB" (int, 0x42545345)               |
 *  +-------------------------------+---------------+---------------+
 *  |        Version (short)        |  Byte order   |   reserved    |
 *  +-------------------------------+---------------+---------------+
 *  |                  Tuple length in bytes (int)                  |
 *  +---------------------------------------------------------------+
 *  |                  Slot length in bytes (int)                   |
 *  +---------------------------------------------------------------+
 *  |                  Capacity in slots (int, power of two)        |
 *  +---------------------------------------------------------------+
 *  |                  Collector id (int)                           |
 *  +---------------------------------------------------------------+
 *  |                  padding to byte 64                          ...
 *  +---------------------------------------------------------------+
 *  |                  Write position (long): tuples ever written   |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                  padding to byte 128                         ...
 *  +---------------------------------------------------------------+
 * </pre>
 * The write position has a cache line to itself: it is the one header word the writer stores per tuple and
 * every reader polls.
 *
 * <p>Slot {@code i} starts at {@code HEADER_LENGTH + i * SLOT_LENGTH}:
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                  Slot sequence (long, seqlock)                |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                  Trace tuple ({@link TraceTupleLayout}, 40 bytes)  ...
 *  +---------------------------------------------------------------+
 * </pre>
 * The slot sequence is a seqlock, as in the comm module's {@code TupleSlotLayout}: the writer stores
 * {@code -(position + 1)} before it touches the tuple and {@code position} after, so a reader that sees the
 * position it wants before and after its copy knows the copy is whole; {@code -1} marks a never-written slot.
 */
public final class TraceBufferLayout {
    /** "ESTB" read as a little-endian int. */
    public static final int MAGIC = 0x42545345;
    public static final short VERSION = 1;
    public static final byte LITTLE_ENDIAN = 0;
    public static final byte BIG_ENDIAN = 1;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = MAGIC_OFFSET + BitUtil.SIZE_OF_INT;
    public static final int BYTE_ORDER_OFFSET = VERSION_OFFSET + BitUtil.SIZE_OF_SHORT;
    public static final int TUPLE_LENGTH_OFFSET = BYTE_ORDER_OFFSET + 2 * BitUtil.SIZE_OF_BYTE;
    public static final int SLOT_LENGTH_OFFSET = TUPLE_LENGTH_OFFSET + BitUtil.SIZE_OF_INT;
    public static final int CAPACITY_OFFSET = SLOT_LENGTH_OFFSET + BitUtil.SIZE_OF_INT;
    public static final int COLLECTOR_ID_OFFSET = CAPACITY_OFFSET + BitUtil.SIZE_OF_INT;
    public static final int WRITE_POSITION_OFFSET = BitUtil.CACHE_LINE_LENGTH;
    public static final int HEADER_LENGTH = WRITE_POSITION_OFFSET + BitUtil.CACHE_LINE_LENGTH;

    public static final int SLOT_SEQUENCE_OFFSET = 0;
    public static final int SLOT_TUPLE_OFFSET = SLOT_SEQUENCE_OFFSET + BitUtil.SIZE_OF_LONG;
    public static final int SLOT_LENGTH = SLOT_TUPLE_OFFSET + TraceTupleLayout.LENGTH;

    private TraceBufferLayout() {
    }

    /** Bytes a buffer of {@code capacity} slots takes, header included. */
    public static long bufferLength(int capacity) {
        return HEADER_LENGTH + (long) capacity * SLOT_LENGTH;
    }
}
