package org.eventspace.scope.filter;

/**
 * Layout of one {@link Packet} encoded as 64-bit words, the unit the scope moves packets in (comm's messages and
 * TCP frames carry long words). All offsets are in words from the packet's first word; a field marked "low" is
 * bits 0–31 of its word, "high" bits 32–63. {@link PacketCodec} reads and writes it.
 *
 * <pre>
 *   word  63                              32 31                               0
 *        +----------------------------------+----------------------------------+
 *     0  |       Record count (int)         |            Tag (int)             |
 *        +----------------------------------+----------------------------------+
 *     1  |                           Round (long)                              |
 *        +----------------------------------+----------------------------------+
 *     2  |       Double count (int)         |         Long count (int)         |
 *        +----------------------------------+----------------------------------+
 *     3  |  Long count words: the longs                                       ...
 *        +---------------------------------------------------------------------+
 *        |  Double count words: the doubles as IEEE 754 bits (raw, NaN kept)  ...
 *        +---------------------------------------------------------------------+
 *        |  Record count records, each:                                       ...
 *        +----------------------------------+----------------------------------+
 *   r+0  |   Event name length (int, bytes) |            Rank (int)            |
 *        +----------------------------------+----------------------------------+
 *   r+1  |                       Record round (long)                           |
 *        +---------------------------------------------------------------------+
 *   r+2  |                 Record value (double, IEEE 754 bits)                |
 *        +---------------------------------------------------------------------+
 *   r+3  |  ceil(name length / 8) words of the event name in UTF-8; byte i of  ...
 *        |  the name is bits 8(i mod 8)..8(i mod 8)+7 of word i/8; unused bytes  |
 *        |  of the last word are zero                                          |
 *        +---------------------------------------------------------------------+
 * </pre>
 *
 * <p>Why this shape: a filter's numbers are most of a reduced packet (ToM §4's statistics and bin counts), so
 * they go as whole words with no per-value header; event names are the only variable-length part, and they
 * travel inside records because ToM's reductions keep an event's name with its aggregate (§4.1). The name's
 * bytes are packed little-endian inside the word so that a little-endian transport ({@code FrameLayout}) puts
 * them on the wire in their natural order. There is no magic or version word: a packet always travels inside a
 * scope stream whose INIT (ToM §2.2) both ends saw, and a version belongs to that handshake, not to every packet.
 */
public final class PacketLayout {
    public static final int TAG_WORD = 0;
    public static final int TAG_SHIFT = 0;
    public static final int RECORD_COUNT_WORD = TAG_WORD;
    public static final int RECORD_COUNT_SHIFT = Integer.SIZE;
    public static final int ROUND_WORD = TAG_WORD + 1;
    public static final int LONG_COUNT_WORD = ROUND_WORD + 1;
    public static final int LONG_COUNT_SHIFT = 0;
    public static final int DOUBLE_COUNT_WORD = LONG_COUNT_WORD;
    public static final int DOUBLE_COUNT_SHIFT = Integer.SIZE;
    /** First word of the longs; the doubles follow the longs, the records follow the doubles. */
    public static final int PAYLOAD_WORD = LONG_COUNT_WORD + 1;
    /** Words of the header. */
    public static final int HEADER_WORDS = PAYLOAD_WORD;

    /** Offsets inside one record, from the record's first word. */
    public static final int RECORD_RANK_WORD = 0;
    public static final int RECORD_RANK_SHIFT = 0;
    public static final int RECORD_NAME_LENGTH_WORD = RECORD_RANK_WORD;
    public static final int RECORD_NAME_LENGTH_SHIFT = Integer.SIZE;
    public static final int RECORD_ROUND_WORD = RECORD_RANK_WORD + 1;
    public static final int RECORD_VALUE_WORD = RECORD_ROUND_WORD + 1;
    public static final int RECORD_NAME_WORD = RECORD_VALUE_WORD + 1;
    /** Words of a record before its name. */
    public static final int RECORD_HEADER_WORDS = RECORD_NAME_WORD;

    /** Bytes of one word. */
    public static final int WORD_BYTES = Long.BYTES;

    private PacketLayout() {
    }

    /** Words that hold an event name of {@code nameBytes} UTF-8 bytes. */
    public static int nameWords(int nameBytes) {
        // in long: a name length near Integer.MAX_VALUE (a damaged packet's) must not wrap to a negative word count
        return (int) ((nameBytes + (long) WORD_BYTES - 1) / WORD_BYTES);
    }
}
