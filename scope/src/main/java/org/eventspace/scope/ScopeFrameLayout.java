package org.eventspace.scope;

/**
 * Layout of the words an event scope puts in a comm {@code Message} on every edge of its tree, down (a control
 * command) and up (the answer): a fixed header, the bytes moved per level, then one filter packet in
 * {@code PacketLayout}. Offsets are in 64-bit words from the message's first word; "high" is bits 32–63 of a
 * word, "low" bits 0–31. Only {@link ScopeFrame} reads and writes it.
 *
 * <pre>
 *   word  63                              32 31              16 15               0
 *        +----------------------------------+------------------+------------------+
 *     0  |          Magic 'ESSC'            |   Version (16)   |   Control (16)   |
 *        +----------------------------------+------------------+------------------+
 *     1  |          Levels (int)            |       Packet words (int)            |
 *        +----------------------------------+-------------------------------------+
 *     2  |  Budget: ns the receiver has to answer (down); 0 (up)                  |
 *        +------------------------------------------------------------------------+
 *     3  |  Records produced on the leaves below since the last round            |
 *        +------------------------------------------------------------------------+
 *     4  |  Records gathered: read at the leaves below                            |
 *        +------------------------------------------------------------------------+
 *     5  |  Records dropped: overwritten before read, or refused by a push buffer |
 *        +------------------------------------------------------------------------+
 *     6  |  Raw bytes: what the leaves below read from their sources             |
 *        +------------------------------------------------------------------------+
 *     7  |  Levels words: bytes sent up by the nodes of level 0, 1, …           ...
 *        +------------------------------------------------------------------------+
 *        |  Packet words words: the filter's packet (PacketCodec)               ...
 *        +------------------------------------------------------------------------+
 * </pre>
 *
 * <p>Why the scope adds a header of its own around the filter's packet: the front-end must learn the gather rate
 * and the data volume of every round whatever the filter does to the records (a statistics filter keeps no
 * record, a histogram keeps none either), and these counts are the scope's, not the filter's. The control word
 * carries the stream's INIT, PULL, FIN and FINACK (ToM §2.2, §3); the budget shrinks at every level so that a
 * failure deep in the tree reaches the front-end before the gathers above it give up waiting.
 */
public final class ScopeFrameLayout {
    /** {@code 'E' 'S' 'S' 'C'}. */
    public static final int MAGIC = 0x45535343;
    public static final int VERSION = 1;

    public static final int MAGIC_WORD = 0;
    public static final int MAGIC_SHIFT = 32;
    public static final int VERSION_SHIFT = 16;
    public static final int CONTROL_SHIFT = 0;
    public static final int SIZES_WORD = MAGIC_WORD + 1;
    public static final int LEVELS_SHIFT = 32;
    public static final int PACKET_WORDS_SHIFT = 0;
    public static final int BUDGET_WORD = SIZES_WORD + 1;
    public static final int PRODUCED_WORD = BUDGET_WORD + 1;
    public static final int GATHERED_WORD = PRODUCED_WORD + 1;
    public static final int DROPPED_WORD = GATHERED_WORD + 1;
    public static final int RAW_BYTES_WORD = DROPPED_WORD + 1;
    /** First word of the bytes-per-level array; the packet follows it. */
    public static final int LEVEL_BYTES_WORD = RAW_BYTES_WORD + 1;
    public static final int HEADER_WORDS = LEVEL_BYTES_WORD;
    /** Most levels a scope tree may have (a binary scope over 2^62 hosts needs 63). */
    public static final int MAX_LEVELS = 64;

    private ScopeFrameLayout() {
    }

    /** First word of the packet of a frame with {@code levels} levels. */
    public static int packetWord(int levels) {
        return HEADER_WORDS + levels;
    }

    /** Words of a frame with {@code levels} levels and a packet of {@code packetWords} words. */
    public static int frameWords(int levels, int packetWords) {
        return HEADER_WORDS + levels + packetWords;
    }
}
