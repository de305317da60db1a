package org.eventspace.scope.filter;

import java.util.Arrays;

/**
 * Non-negative counts packed into long words as unsigned LEB128 varints: 7 bits a byte, least significant group
 * first, the high bit set on every byte but a count's last. The bytes sit in the words as {@link PacketLayout}
 * packs an event name: byte i is bits 8(i mod 8)..8(i mod 8)+7 of word i/8, and the unused bytes of the last word
 * are zero. Stateless; may be called from any thread.
 *
 * <pre>
 *   count              bytes   e.g.
 *   0 .. 127           1       5      → 0x05
 *   128 .. 16383       2       300    → 0xAC 0x02
 *   up to 2^63 − 1     ≤ 9     (7 bits a byte, 63 significant bits)
 * </pre>
 *
 * <p>Why: the histograms per (class, event) of ToM §4.3 multiply bins by classes by events, and their counts are
 * small (a bin holds at most one round's records of one class's ranks). A word per count would make 16 bins cost more than the raw
 * records of a few ranks, so the reduction ToM's classification is for would start only at a large rank count.
 * Packed, 16 counts below 128 take 2 words; the size grows by one byte a bin each time its counts pass a power of
 * 128 — logarithmically in the ranks, never linearly.
 */
final class PackedCounts {
    private static final int GROUP_BITS = 7;
    private static final int GROUP_MASK = (1 << GROUP_BITS) - 1;
    private static final int MORE = 1 << GROUP_BITS;
    /** Bytes of the longest varint of a non-negative long: ceil(63 / 7). */
    private static final int MAX_BYTES = 9;

    private PackedCounts() {
    }

    /** Words that {@code counts} take packed. */
    static int words(long[] counts) {
        long bytes = 0;
        for (long count : counts) {
            bytes += bytes(count);
        }
        return (int) ((bytes + PacketLayout.WORD_BYTES - 1) / PacketLayout.WORD_BYTES);
    }

    /**
     * Writes {@code counts} packed into {@code words} from {@code offset}, overwriting exactly
     * {@link #words(long[])} words, and returns that number.
     *
     * @throws IllegalArgumentException if a count is negative, naming it.
     */
    static int pack(long[] counts, long[] words, int offset) {
        int length = words(counts);
        Arrays.fill(words, offset, offset + length, 0L);
        int b = 0;
        for (int i = 0; i < counts.length; i++) {
            long count = counts[i];
            if (count < 0) {
                throw new IllegalArgumentException("count " + i + " of " + counts.length + " is negative: " + count);
            }
            while (count > GROUP_MASK) {
                b = putByte(words, offset, b, (int) (count & GROUP_MASK) | MORE);
                count >>>= GROUP_BITS;
            }
            b = putByte(words, offset, b, (int) count);
        }
        return length;
    }

    /**
     * The {@code count} counts packed in {@code words[from, to)}, which must hold exactly them: no word more than
     * they need and zero bytes after the last.
     *
     * @throws IllegalArgumentException saying which count or byte is wrong and what was found.
     */
    static long[] unpack(long[] words, int from, int to, int count) {
        long[] counts = new long[count];
        int available = (to - from) * PacketLayout.WORD_BYTES;
        int b = 0;
        for (int i = 0; i < count; i++) {
            long value = 0;
            for (int shift = 0; ; shift += GROUP_BITS) {
                if (b >= available) {
                    throw new IllegalArgumentException("count " + i + " of " + count + " runs past the end of the "
                            + (to - from) + " words");
                }
                if (shift / GROUP_BITS == MAX_BYTES) {
                    throw new IllegalArgumentException("count " + i + " of " + count + " is longer than " + MAX_BYTES
                            + " bytes");
                }
                int next = getByte(words, from, b++);
                value |= (long) (next & GROUP_MASK) << shift;
                if ((next & MORE) == 0) {
                    if (next == 0 && shift > 0) { // one encoding per count, so a packet's size is a function of its counts
                        throw new IllegalArgumentException("count " + i + " of " + count + " ends in a zero byte"
                                + " (not minimal) at byte " + (b - 1));
                    }
                    break;
                }
            }
            counts[i] = value;
        }
        int needed = (b + PacketLayout.WORD_BYTES - 1) / PacketLayout.WORD_BYTES;
        if (needed != to - from) {
            throw new IllegalArgumentException(count + " counts take " + needed + " words, not " + (to - from));
        }
        for (; b < available; b++) {
            if (getByte(words, from, b) != 0) {
                throw new IllegalArgumentException("zero padding after " + count + " counts, found byte 0x"
                        + Integer.toHexString(getByte(words, from, b)) + " at byte " + b);
            }
        }
        return counts;
    }

    private static int bytes(long count) {
        int bytes = 1;
        for (long rest = count >>> GROUP_BITS; rest != 0; rest >>>= GROUP_BITS) {
            bytes++;
        }
        return bytes;
    }

    private static int putByte(long[] words, int base, int index, int b) {
        words[base + index / PacketLayout.WORD_BYTES] |= (b & 0xFFL) << (Byte.SIZE * (index % PacketLayout.WORD_BYTES));
        return index + 1;
    }

    private static int getByte(long[] words, int base, int index) {
        return (int) (words[base + index / PacketLayout.WORD_BYTES] >>> (Byte.SIZE * (index % PacketLayout.WORD_BYTES)))
                & 0xFF;
    }
}
