package org.eventspace.comm.element;

import org.agrona.BitUtil;

/**
 * Layout of one tuple slot in an {@link Element}'s off-heap ring.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                  Sequence (long, seqlock)                     |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                  Length in words (int)                        |
 *  +---------------------------------------------------------------+
 *  |   Op code (byte)  | Type code (byte)  |      reserved         |
 *  +---------------------------------------------------------------+
 *  |                  Payload words (long x maxWords)             ...
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>The sequence field is the slot's seqlock: a writer stores {@code -(seq + 1)} before it touches the slot
 * and {@code seq} after, so a reader that sees the same non-negative sequence before and after its copy
 * knows the copy is whole.
 */
public final class TupleSlotLayout {
    public static final int SEQUENCE_OFFSET = 0;
    public static final int LENGTH_OFFSET = SEQUENCE_OFFSET + BitUtil.SIZE_OF_LONG;
    public static final int OP_OFFSET = LENGTH_OFFSET + BitUtil.SIZE_OF_INT;
    public static final int TYPE_OFFSET = OP_OFFSET + BitUtil.SIZE_OF_BYTE;
    public static final int PAYLOAD_OFFSET = OP_OFFSET + BitUtil.SIZE_OF_INT;

    private TupleSlotLayout() {
    }

    /** Bytes one slot takes for tuples of up to {@code maxWords} payload words, rounded to a cache line. */
    public static int slotBytes(int maxWords) {
        return BitUtil.align(PAYLOAD_OFFSET + maxWords * BitUtil.SIZE_OF_LONG, BitUtil.CACHE_LINE_LENGTH);
    }
}
