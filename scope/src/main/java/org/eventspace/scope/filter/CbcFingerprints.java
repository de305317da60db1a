package org.eventspace.scope.filter;

/**
 * The fingerprints and the block boundaries of content-based compression (dissertation §4.1.2.2, §8.4.2.3 two-level
 * fingerprinting; §8.5.3.3 anchor-point segmentation). Stateless; may be called from any thread.
 *
 * <ul>
 *   <li><b>Level 1</b>, per block ({@link #block}): 64 bits over the block's bytes and length — the sender's key into
 *       its index of cached blocks. The dissertation sends a 40-bit optimistic fingerprint and risks collisions; ours
 *       never travels, and every hit is confirmed by comparing bytes, so 64 bits only keep false hits rare.</li>
 *   <li><b>Level 2</b>, per group of {@link #GROUP} consecutive blocks ({@link #group}): one fingerprint over the
 *       group's level-1 fingerprints, so that a wholly repeated group is found with one look-up and costs one RUN
 *       reference; and per message ({@link #check}): the conservative fingerprint over the whole packet that the
 *       receiver recomputes, the role SHA-1 has in Canidae (§8.4.3.4).</li>
 * </ul>
 *
 * <p>Blocks are content-defined, at word granularity: a block ends after word {@code i} when a hash of words
 * {@code i−1, i} has its low bits zero (so the average block is {@code BLOCK} bytes), no earlier than a quarter and no
 * later than four times that. Why content-defined and not fixed-size: a gateway's packet concatenates the result sets
 * of its cluster's hosts, and a host whose set did not change sends none that round, which shifts everything after it
 * by whole records; fixed blocks would all change, while anchors chosen by content move with the data (Manber's
 * argument, §1.2.5, used by LBFS, §8.5.3.3). Why words: a packet is whole 64-bit words (PacketLayout), so every shift
 * is a multiple of 8 bytes and a byte-wise rolling hash would only add work.
 */
public final class CbcFingerprints {
    /** Blocks per level-2 group. Canidae found 20–25 segments per conservative fingerprint best for 100 GB of data
     *  (§8.4.3.2); a scope packet is a few kB, so a group of 8 blocks of 64 bytes is already most of a host's set. */
    public static final int GROUP = 8;

    private static final long K1 = 0x9E3779B97F4A7C15L;
    private static final long K2 = 0xC2B2AE3D27D4EB4FL;
    private static final long BLOCK_SEED = 0x243F6A8885A308D3L;
    private static final long CHECK_SEED = 0x13198A2E03707344L;

    private CbcFingerprints() {
    }

    /** Level 1: the fingerprint of {@code bytes[from, from + length)}. */
    public static long block(byte[] bytes, int from, int length) {
        return hash(BLOCK_SEED, bytes, from, length);
    }

    /** Level 2: the fingerprint of the group of blocks whose level-1 fingerprints are {@code fps[from, from + count)}. */
    public static long group(long[] fps, int from, int count) {
        long h = K2 ^ count;
        for (int i = from; i < from + count; i++) {
            h = mix(h ^ fps[i]) * K1;
        }
        return mix(h);
    }

    /** Level 2, conservative: the check of a whole packet, {@code bytes[0, length)}. */
    public static long check(byte[] bytes, int length) {
        return hash(CHECK_SEED, bytes, 0, length);
    }

    /**
     * Where the content-defined block that starts at {@code from} ends (exclusive), for a packet of {@code length}
     * bytes: after at least {@code minWords} and at most {@code maxWords} whole words, at the first word whose pair
     * hash has {@code mask}'s bits zero; a tail shorter than a word stays with the block before it.
     */
    public static int blockEnd(byte[] bytes, int from, int length, int minWords, int maxWords, long mask) {
        int words = (length - from) / Long.BYTES;
        long previous = 0;
        for (int n = 1; n <= words; n++) {
            long w = WireBytes.getLong(bytes, from + (n - 1) * Long.BYTES);
            if (n == maxWords) {
                return from + n * Long.BYTES;
            }
            if (n >= minWords && (mix(previous * K1 ^ w) & mask) == 0) {
                return from + n * Long.BYTES;
            }
            previous = w;
        }
        return length;
    }

    private static long hash(long seed, byte[] bytes, int from, int length) {
        long h = seed ^ (length * K1);
        int at = from;
        int end = from + length;
        for (; at + Long.BYTES <= end; at += Long.BYTES) {
            h = (h ^ mix(WireBytes.getLong(bytes, at))) * K1;
        }
        long tail = 0;
        for (int shift = 0; at < end; at++, shift += Byte.SIZE) {
            tail |= (bytes[at] & 0xFFL) << shift;
        }
        return mix(h ^ mix(tail ^ K2));
    }

    /** MurmurHash3's 64-bit finaliser. */
    static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xFF51AFD7ED558CCDL;
        z = (z ^ (z >>> 33)) * 0xC4CEB9FE1A85EC53L;
        return z ^ (z >>> 33);
    }
}
