package org.eventspace.scope.filter;

import static org.eventspace.scope.filter.PacketLayout.DOUBLE_COUNT_SHIFT;
import static org.eventspace.scope.filter.PacketLayout.DOUBLE_COUNT_WORD;
import static org.eventspace.scope.filter.PacketLayout.HEADER_WORDS;
import static org.eventspace.scope.filter.PacketLayout.LONG_COUNT_SHIFT;
import static org.eventspace.scope.filter.PacketLayout.LONG_COUNT_WORD;
import static org.eventspace.scope.filter.PacketLayout.PAYLOAD_WORD;
import static org.eventspace.scope.filter.PacketLayout.RECORD_COUNT_SHIFT;
import static org.eventspace.scope.filter.PacketLayout.RECORD_COUNT_WORD;
import static org.eventspace.scope.filter.PacketLayout.RECORD_HEADER_WORDS;
import static org.eventspace.scope.filter.PacketLayout.RECORD_NAME_LENGTH_SHIFT;
import static org.eventspace.scope.filter.PacketLayout.RECORD_NAME_LENGTH_WORD;
import static org.eventspace.scope.filter.PacketLayout.RECORD_NAME_WORD;
import static org.eventspace.scope.filter.PacketLayout.RECORD_RANK_SHIFT;
import static org.eventspace.scope.filter.PacketLayout.RECORD_RANK_WORD;
import static org.eventspace.scope.filter.PacketLayout.RECORD_ROUND_WORD;
import static org.eventspace.scope.filter.PacketLayout.RECORD_VALUE_WORD;
import static org.eventspace.scope.filter.PacketLayout.ROUND_WORD;
import static org.eventspace.scope.filter.PacketLayout.TAG_SHIFT;
import static org.eventspace.scope.filter.PacketLayout.TAG_WORD;
import static org.eventspace.scope.filter.PacketLayout.WORD_BYTES;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Encodes a {@link Packet} to long words and back, in the layout of {@link PacketLayout}. Lengths are in words
 * (8 bytes each). Stateless; may be called from any thread.
 *
 * <p>The encoded length is also the measure of data volume: ClassFilter's reduction factor (ToM §4.3, "the total
 * non-reduced data size divided by data size with reduction") is a ratio of encoded lengths, so it counts what
 * the scope would really move.
 */
public final class PacketCodec {
    private static final long INT_MASK = 0xFFFF_FFFFL;

    private PacketCodec() {
    }

    /** Words {@code packet} takes encoded. */
    public static int encodedLength(Packet packet) {
        long words = (long) HEADER_WORDS + packet.longs().length + packet.doubles().length;
        for (ScopeRecord record : packet.records()) {
            words += encodedLength(record);
        }
        if (words > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("packet exceeds " + Integer.MAX_VALUE + " words, words=" + words);
        }
        return (int) words;
    }

    /** Words one record takes inside a packet. */
    public static int encodedLength(ScopeRecord record) {
        return RECORD_HEADER_WORDS + PacketLayout.nameWords(utf8Length(record.event()));
    }

    /** {@code packet} as a new array of exactly {@link #encodedLength(Packet)} words. */
    public static long[] encode(Packet packet) {
        long[] words = new long[encodedLength(packet)];
        encode(packet, words, 0);
        return words;
    }

    /**
     * Writes {@code packet} into {@code words} from {@code offset} and returns the words written; the words of
     * the range are overwritten entirely (name padding is cleared).
     */
    public static int encode(Packet packet, long[] words, int offset) {
        int length = encodedLength(packet);
        if (offset < 0 || offset > words.length - length) {
            throw new IllegalArgumentException("packet of " + length + " words does not fit at offset " + offset
                    + " of " + words.length + " words");
        }
        long[] longs = packet.longs();
        double[] doubles = packet.doubles();
        List<ScopeRecord> records = packet.records();
        words[offset + TAG_WORD] = ((packet.tag() & INT_MASK) << TAG_SHIFT)
                | ((records.size() & INT_MASK) << RECORD_COUNT_SHIFT);
        words[offset + ROUND_WORD] = packet.round();
        words[offset + LONG_COUNT_WORD] = ((longs.length & INT_MASK) << LONG_COUNT_SHIFT)
                | ((doubles.length & INT_MASK) << DOUBLE_COUNT_SHIFT);
        int at = offset + PAYLOAD_WORD;
        System.arraycopy(longs, 0, words, at, longs.length);
        at += longs.length;
        for (double d : doubles) {
            words[at++] = Double.doubleToRawLongBits(d);
        }
        for (ScopeRecord record : records) {
            at = encodeRecord(record, words, at);
        }
        return at - offset;
    }

    /**
     * The packet encoded in the first {@code length} words of {@code words}, which must hold exactly one packet.
     *
     * @throws IllegalArgumentException naming the word offset and what was expected there, if the words are not
     *                                  a packet of exactly {@code length} words.
     */
    public static Packet decode(long[] words, int length) {
        return decode(words, 0, length);
    }

    /** As {@link #decode(long[], int)}, for the packet at {@code offset}; error offsets count from {@code offset}. */
    public static Packet decode(long[] words, int offset, int length) {
        if (offset < 0 || length < 0 || offset > words.length - length) {
            throw new IllegalArgumentException("packet range outside the words: offset=" + offset + ", length="
                    + length + ", words=" + words.length);
        }
        WordReader in = new WordReader(words, offset, length);
        in.require(HEADER_WORDS, TAG_WORD, "a header of " + HEADER_WORDS + " words");
        int tag = (int) (words[offset + TAG_WORD] >>> TAG_SHIFT);
        int recordCount = in.count(RECORD_COUNT_WORD, RECORD_COUNT_SHIFT, "record count");
        long round = words[offset + ROUND_WORD];
        int longCount = in.count(LONG_COUNT_WORD, LONG_COUNT_SHIFT, "long count");
        int doubleCount = in.count(DOUBLE_COUNT_WORD, DOUBLE_COUNT_SHIFT, "double count");
        int at = PAYLOAD_WORD;
        in.require(longCount, at, longCount + " longs (long count at word " + LONG_COUNT_WORD + ")");
        long[] longs = new long[longCount];
        System.arraycopy(words, offset + at, longs, 0, longCount);
        at += longCount;
        in.require(doubleCount, at, doubleCount + " doubles (double count at word " + DOUBLE_COUNT_WORD + ")");
        double[] doubles = new double[doubleCount];
        for (int i = 0; i < doubleCount; i++) {
            doubles[i] = Double.longBitsToDouble(words[offset + at + i]);
        }
        at += doubleCount;
        List<ScopeRecord> records = new ArrayList<>(Math.min(recordCount, length));
        for (int i = 0; i < recordCount; i++) {
            in.require(RECORD_HEADER_WORDS, at, "record " + i + " of " + recordCount + " (a " + RECORD_HEADER_WORDS
                    + "-word record header)");
            at = decodeRecord(in, at, i, records);
        }
        if (at != length) {
            throw new IllegalArgumentException("malformed packet at word " + at + ": expected the end of the packet"
                    + " after " + recordCount + " records, found " + (length - at) + " more words");
        }
        return new Packet(tag, round, longs, doubles, records);
    }

    private static int encodeRecord(ScopeRecord record, long[] words, int at) {
        String event = record.event();
        int nameBytes = utf8Length(event);
        words[at + RECORD_RANK_WORD] = ((record.rank() & INT_MASK) << RECORD_RANK_SHIFT)
                | ((nameBytes & INT_MASK) << RECORD_NAME_LENGTH_SHIFT);
        words[at + RECORD_ROUND_WORD] = record.round();
        words[at + RECORD_VALUE_WORD] = Double.doubleToRawLongBits(record.value());
        int name = at + RECORD_NAME_WORD;
        int nameWords = PacketLayout.nameWords(nameBytes);
        Arrays.fill(words, name, name + nameWords, 0L);
        int b = 0;
        for (int i = 0; i < event.length(); i++) {
            int c = event.charAt(i);
            if (c < 0x80) {
                b = putByte(words, name, b, c);
            } else if (c < 0x800) {
                b = putByte(words, name, b, 0xC0 | (c >>> 6));
                b = putByte(words, name, b, 0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate((char) c)) {
                int cp = Character.toCodePoint((char) c, event.charAt(++i)); // utf8Length checked the pair
                b = putByte(words, name, b, 0xF0 | (cp >>> 18));
                b = putByte(words, name, b, 0x80 | ((cp >>> 12) & 0x3F));
                b = putByte(words, name, b, 0x80 | ((cp >>> 6) & 0x3F));
                b = putByte(words, name, b, 0x80 | (cp & 0x3F));
            } else {
                b = putByte(words, name, b, 0xE0 | (c >>> 12));
                b = putByte(words, name, b, 0x80 | ((c >>> 6) & 0x3F));
                b = putByte(words, name, b, 0x80 | (c & 0x3F));
            }
        }
        return name + nameWords;
    }

    private static int putByte(long[] words, int base, int index, int b) {
        words[base + index / WORD_BYTES] |= (b & 0xFFL) << (Byte.SIZE * (index % WORD_BYTES));
        return index + 1;
    }

    private static int decodeRecord(WordReader in, int at, int index, List<ScopeRecord> into) {
        long[] words = in.words;
        int base = in.offset;
        int rank = (int) (words[base + at + RECORD_RANK_WORD] >>> RECORD_RANK_SHIFT);
        int nameBytes = in.count(at + RECORD_NAME_LENGTH_WORD, RECORD_NAME_LENGTH_SHIFT,
                "event name length of record " + index);
        long round = words[base + at + RECORD_ROUND_WORD];
        double value = Double.longBitsToDouble(words[base + at + RECORD_VALUE_WORD]);
        int name = at + RECORD_NAME_WORD;
        int nameWords = PacketLayout.nameWords(nameBytes);
        in.require(nameWords, name, "the " + nameBytes + "-byte event name of record " + index);
        byte[] bytes = new byte[nameBytes];
        for (int i = 0; i < nameBytes; i++) {
            bytes[i] = (byte) (words[base + name + i / WORD_BYTES] >>> (Byte.SIZE * (i % WORD_BYTES)));
        }
        if (nameBytes % WORD_BYTES != 0) {
            int last = name + nameWords - 1;
            long padding = words[base + last] >>> (Byte.SIZE * (nameBytes % WORD_BYTES));
            if (padding != 0) {
                throw malformed(last, "zero padding after the event name of record " + index,
                        "0x" + Long.toHexString(padding));
            }
        }
        String event;
        try {
            event = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw malformed(name, "the UTF-8 event name of record " + index, "invalid UTF-8 (" + e + ")");
        }
        if (rank < -1) {
            throw malformed(at + RECORD_RANK_WORD, "a rank >= -1 in record " + index, Integer.toString(rank));
        }
        if (round < 0) {
            throw malformed(at + RECORD_ROUND_WORD, "a round >= 0 in record " + index, Long.toString(round));
        }
        into.add(new ScopeRecord(rank, event, round, value));
        return name + nameWords;
    }

    /** UTF-8 bytes of {@code s}; rejects an unpaired surrogate, which UTF-8 cannot carry. */
    static int utf8Length(String s) {
        int bytes = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new IllegalArgumentException("event name has an unpaired surrogate at index " + i
                        + " and cannot be encoded as UTF-8: " + s);
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }

    private static IllegalArgumentException malformed(int word, String expected, String found) {
        return new IllegalArgumentException("malformed packet at word " + word + ": expected " + expected
                + ", found " + found);
    }

    /** Bounds checks over the packet's words; offsets are relative to the packet's first word. */
    private static final class WordReader {
        final long[] words;
        final int offset;
        final int length;

        WordReader(long[] words, int offset, int length) {
            this.words = words;
            this.offset = offset;
            this.length = length;
        }

        void require(int count, int at, String expected) {
            if (count > length - at) {
                throw malformed(at, expected, "only " + (length - at) + " words left of " + length);
            }
        }

        int count(int word, int shift, String what) {
            int count = (int) (words[offset + word] >>> shift);
            if (count < 0) {
                throw malformed(word, "a " + what + " >= 0", Integer.toString(count));
            }
            return count;
        }
    }
}
