package org.eventspace.scope.filter;

/**
 * Layout of one message of content-based compression ({@code cbc}) on one edge of an event scope: the encoding of a
 * packet against the blocks both ends of the edge already hold (dissertation §4.1.2.2 and §8.4.3.3, two-level
 * fingerprinting; {@link CbcEncoder}, {@link CbcDecoder}). Varints are unsigned LEB128; the check is little-endian.
 *
 * <pre>
 *   byte 0       flags: bit 0 RESET — the first message of an epoch: both block caches start empty
 *   varint       sequence: messages since the epoch began (0 for the RESET message)
 *   varint       raw length: bytes of the packet the message rebuilds
 *   ops, until raw length bytes are rebuilt, each one opcode byte and its operands:
 *     0x00 LITERAL  varint n, then n bytes: a new block; both ends store it as block id {@code next++}
 *     0x01 REF      varint back (≥ 1): the cached block {@code next − back}
 *     0x02 RUN      varint back (≥ 1), varint count (≥ 2): cached blocks {@code next − back} … {@code + count − 1}
 *   8 bytes      check: the packet's conservative fingerprint ({@link CbcFingerprints#check}), which the receiver
 *                recomputes over what it rebuilt
 * </pre>
 *
 * <p>Why references are block ids and not fingerprints: Canidae's sender is stateless and names a segment by its
 * 40-bit optimistic fingerprint, so its receiver must request segments it lacks and confirm each group with a
 * 160-bit conservative fingerprint (§8.4.3.3, Table 18). A scope edge is one request and one answer per round, with no
 * room for a segment request, so here the sender keeps a mirror of the receiver's bounded cache: it knows exactly
 * which ids the receiver holds, names blocks by id distance (one or two bytes, less than the 5-byte optimistic
 * fingerprint), and confirms every fingerprint hit by comparing the bytes, so a fingerprint collision never reaches
 * the wire. The per-message check then guards only against a mirror that diverged (a lost answer, a restarted
 * node); a mismatch, a sequence gap or a reference to an evicted id makes the receiver ask for a resync.
 */
public final class CbcLayout {
    public static final int FLAGS_OFFSET = 0;
    public static final int FLAG_RESET = 1;
    /** First byte after the flags: the sequence varint. */
    public static final int SEQUENCE_OFFSET = FLAGS_OFFSET + 1;
    public static final int OP_LITERAL = 0x00;
    public static final int OP_REF = 0x01;
    public static final int OP_RUN = 0x02;
    public static final int CHECK_BYTES = Long.BYTES;
    /** Longest varint of a long. */
    public static final int MAX_VARINT_BYTES = 10;
    /** Bytes of flags, sequence and raw length at most. */
    public static final int MAX_HEADER_BYTES = 1 + 2 * MAX_VARINT_BYTES;

    private CbcLayout() {
    }

    /** The most bytes a message for a packet of {@code rawBytes} in {@code blocks} blocks can take. */
    public static int maxMessageBytes(int rawBytes, int blocks) {
        return MAX_HEADER_BYTES + rawBytes + blocks * (1 + MAX_VARINT_BYTES) + CHECK_BYTES;
    }
}
