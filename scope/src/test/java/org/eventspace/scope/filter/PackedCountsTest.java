package org.eventspace.scope.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class PackedCountsTest {
    @Test
    void countsAreLeb128BytesLittleEndianInTheWords() {
        long[] words = new long[2];

        int written = PackedCounts.pack(new long[] {5, 300, 0, 127, 128}, words, 0);

        // 05 | AC 02 | 00 | 7F | 80 01: 7 bytes, one word, the last byte zero.
        assertThat(written).isEqualTo(1);
        assertThat(words[0]).isEqualTo(0x00_01_80_7F_00_02_AC_05L);
        assertThat(PackedCounts.unpack(words, 0, 1, 5)).containsExactly(5, 300, 0, 127, 128);
        assertThat(PackedCounts.words(new long[16])).as("16 zero bins").isEqualTo(2);
        assertThat(PackedCounts.words(new long[] {Long.MAX_VALUE})).isEqualTo(2);
        assertThat(PackedCounts.words(new long[0])).isZero();
    }

    @Test
    void malformedWordsFailSayingWhatIsWrong() {
        long[] one = {0x80808080_80808005L}; // 5, then a count whose bytes all say "more follows"
        assertThatThrownBy(() -> PackedCounts.unpack(one, 0, 1, 2)).hasMessage("count 1 of 2 runs past the end of the 1"
                + " words");
        assertThatThrownBy(() -> PackedCounts.unpack(new long[] {0x05L, 0}, 0, 2, 1))
                .hasMessage("1 counts take 1 words, not 2");
        assertThatThrownBy(() -> PackedCounts.unpack(new long[] {0x0705L}, 0, 1, 1))
                .hasMessage("zero padding after 1 counts, found byte 0x7 at byte 1");
        assertThatThrownBy(() -> PackedCounts.unpack(new long[] {0x0080L}, 0, 1, 1))
                .hasMessage("count 0 of 1 ends in a zero byte (not minimal) at byte 1");
        assertThatThrownBy(() -> PackedCounts.unpack(new long[] {-1L, -1L}, 0, 2, 1))
                .hasMessage("count 0 of 1 is longer than 9 bytes");
        assertThatThrownBy(() -> PackedCounts.pack(new long[] {1, -2}, new long[2], 0))
                .hasMessage("count 1 of 2 is negative: -2");
    }

    @Property(tries = 300)
    void unpackInvertsPackAtAnyOffset(@ForAll long seed, @ForAll @IntRange(max = 80) int size,
                                      @ForAll @IntRange(max = 3) int offset) {
        Random random = new Random(seed);
        long[] counts = new long[size];
        for (int i = 0; i < size; i++) {
            counts[i] = switch (random.nextInt(4)) {
                case 0 -> 0;
                case 1 -> random.nextInt(128);
                case 2 -> random.nextInt(1 << 20);
                default -> random.nextLong() >>> 1;
            };
        }
        long[] words = new long[offset + PackedCounts.words(counts) + 1];
        java.util.Arrays.fill(words, -1L); // packing overwrites its words entirely

        int written = PackedCounts.pack(counts, words, offset);

        assertThat(written).isEqualTo(PackedCounts.words(counts));
        assertThat(words[offset + written]).as("the word after is untouched").isEqualTo(-1L);
        assertThat(PackedCounts.unpack(words, offset, offset + written, size)).containsExactly(counts);
    }
}
