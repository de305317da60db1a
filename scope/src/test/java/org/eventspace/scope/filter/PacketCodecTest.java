package org.eventspace.scope.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

class PacketCodecTest {
    @Test
    void encodesThePacketWordForWordAsTheLayoutDescribes() {
        Packet packet = new Packet(StatsFilter.STATISTICS, 7, new long[] {42}, new double[] {2.5},
                List.of(new ScopeRecord(3, "MPI_Allreduce()", 7, 1.5), new ScopeRecord(-1, "", 0, -0.0)));

        long[] words = PacketCodec.encode(packet);

        assertThat(words).containsExactly(
                2L << 32 | StatsFilter.STATISTICS,       // record count | tag
                7,                                        // round
                1L << 32 | 1,                             // double count | long count
                42,                                       // the long
                Double.doubleToRawLongBits(2.5),          // the double
                15L << 32 | 3,                            // name length | rank
                7,                                        // record round
                Double.doubleToRawLongBits(1.5),          // record value
                word("MPI_Allr"), word("educe()"),        // name bytes, little-endian in the word
                (0xFFFF_FFFFL),                           // empty name | rank -1
                0,
                Double.doubleToRawLongBits(-0.0));
        assertThat(PacketCodec.encodedLength(packet)).isEqualTo(words.length);
        PacketCodecProperties.assertSamePacket(PacketCodec.decode(words, words.length), packet);
    }

    private static long word(String ascii) {
        long w = 0;
        for (int i = 0; i < ascii.length(); i++) {
            w |= (long) ascii.charAt(i) << (8 * i);
        }
        return w;
    }

    @Test
    void aNameOfFourByteCharactersRoundTrips() {
        Packet packet = Packet.ofRecords(100, 1, List.of(new ScopeRecord(0, "\uD83D\uDE80 send \u00e9", 1, 1)));

        long[] words = PacketCodec.encode(packet);

        assertThat(PacketCodec.decode(words, words.length).records().get(0).event()).isEqualTo("\uD83D\uDE80 send \u00e9");
        assertThat(PacketCodec.encodedLength(packet.records().get(0))).isEqualTo(3 + 2); // 4+6+2 = 12 bytes
    }

    @Test
    void rejectsAnUnpairedSurrogateOnEncode() {
        Packet packet = Packet.ofRecords(100, 1, List.of(new ScopeRecord(0, "bad\uD800", 1, 1)));

        assertThatThrownBy(() -> PacketCodec.encode(packet)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unpaired surrogate at index 3");
    }

    @Test
    void aNameLengthNearTheLargestIntIsRefusedNotAllocated() {
        long[] words = PacketCodec.encode(Packet.ofRecords(100, 1, List.of(new ScopeRecord(0, "abcdefghi", 1, 1))));
        int record = PacketLayout.HEADER_WORDS + PacketLayout.RECORD_NAME_LENGTH_WORD;
        words[record] = (words[record] & 0xFFFF_FFFFL) | ((long) Integer.MAX_VALUE << PacketLayout.RECORD_NAME_LENGTH_SHIFT);

        // found by the property test: the word count wrapped negative and the decoder asked for a 2 GiB array
        assertThatThrownBy(() -> PacketCodec.decode(words, words.length)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("malformed packet at word").hasMessageContaining("2147483647-byte event name");
    }

    @Test
    void malformedInputNamesTheWordAndWhatWasExpected() {
        long[] good = PacketCodec.encode(Packet.ofRecords(100, 1, List.of(new ScopeRecord(0, "abcdefghi", 1, 1))));
        // header 3 words, record header at 3..5, name at 6..7

        assertThatThrownBy(() -> PacketCodec.decode(good, 2))
                .hasMessage("malformed packet at word 0: expected a header of 3 words, found only 2 words left of 2");
        long[] negativeLongCount = good.clone();
        negativeLongCount[PacketLayout.LONG_COUNT_WORD] = 0xFFFF_FFFFL;
        assertThatThrownBy(() -> PacketCodec.decode(negativeLongCount, good.length))
                .hasMessage("malformed packet at word 2: expected a long count >= 0, found -1");
        long[] tooManyDoubles = good.clone();
        tooManyDoubles[PacketLayout.DOUBLE_COUNT_WORD] = 9L << PacketLayout.DOUBLE_COUNT_SHIFT;
        assertThatThrownBy(() -> PacketCodec.decode(tooManyDoubles, good.length))
                .hasMessage("malformed packet at word 3: expected 9 doubles (double count at word 2),"
                        + " found only 5 words left of 8");
        assertThatThrownBy(() -> PacketCodec.decode(good, 7))
                .hasMessage("malformed packet at word 6: expected the 9-byte event name of record 0,"
                        + " found only 1 words left of 7");
        long[] dirtyPadding = good.clone();
        dirtyPadding[7] |= 1L << 40;
        assertThatThrownBy(() -> PacketCodec.decode(dirtyPadding, good.length))
                .hasMessage("malformed packet at word 7: expected zero padding after the event name of record 0,"
                        + " found 0x100000000");
        long[] badUtf8 = good.clone();
        badUtf8[6] = (badUtf8[6] & ~0xFFL) | 0xFF;
        assertThatThrownBy(() -> PacketCodec.decode(badUtf8, good.length))
                .hasMessageStartingWith("malformed packet at word 6: expected the UTF-8 event name of record 0,"
                        + " found invalid UTF-8");
        long[] badRank = good.clone();
        badRank[3] = (badRank[3] & 0xFFFF_FFFF_0000_0000L) | 0xFFFF_FFFEL;
        assertThatThrownBy(() -> PacketCodec.decode(badRank, good.length))
                .hasMessage("malformed packet at word 3: expected a rank >= -1 in record 0, found -2");
        long[] badRound = good.clone();
        badRound[4] = -5;
        assertThatThrownBy(() -> PacketCodec.decode(badRound, good.length))
                .hasMessage("malformed packet at word 4: expected a round >= 0 in record 0, found -5");
        long[] trailing = java.util.Arrays.copyOf(good, good.length + 1);
        assertThatThrownBy(() -> PacketCodec.decode(trailing, trailing.length))
                .hasMessage("malformed packet at word 8: expected the end of the packet after 1 records,"
                        + " found 1 more words");
        assertThatThrownBy(() -> PacketCodec.decode(good, 9)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("packet range outside the words: offset=0, length=9, words=8");
    }

    @Test
    void encodeIntoTooSmallAnArrayNamesTheSizes() {
        Packet packet = Packet.ofNumbers(100, 0, new long[] {1, 2}, new double[0]);

        assertThatThrownBy(() -> PacketCodec.encode(packet, new long[6], 2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("packet of 5 words does not fit at offset 2 of 6 words");
    }
}
