package org.eventspace.scope.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/** {@link PacketCodec} carries every packet exactly (doubles bit for bit) and rejects broken words cleanly. */
class PacketCodecProperties {
    @Provide
    Arbitrary<String> eventNames() {
        Arbitrary<Integer> codePoints = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.integers().between(0x20, 0x7E)),
                Tuple.of(1, Arbitraries.integers().between(0, 0x7FF)),
                Tuple.of(1, Arbitraries.integers().between(0x800, 0xFFFF)
                        .filter(c -> c < Character.MIN_SURROGATE || c > Character.MAX_SURROGATE)),
                Tuple.of(1, Arbitraries.integers().between(0x10000, Character.MAX_CODE_POINT)));
        return codePoints.list().ofMaxSize(40).map(cps -> {
            StringBuilder s = new StringBuilder();
            cps.forEach(s::appendCodePoint);
            return s.toString();
        });
    }

    @Provide
    Arbitrary<Double> doubles() {
        return Arbitraries.oneOf(Arbitraries.doubles(), Arbitraries.longs().map(Double::longBitsToDouble),
                Arbitraries.of(-0.0, Double.NaN, Double.POSITIVE_INFINITY, Double.MIN_VALUE));
    }

    @Provide
    Arbitrary<ScopeRecord> records() {
        return Combinators.combine(Arbitraries.integers().between(-1, Integer.MAX_VALUE), eventNames(),
                Arbitraries.longs().between(0, Long.MAX_VALUE), doubles()).as(ScopeRecord::new);
    }

    @Provide
    Arbitrary<Packet> packets() {
        return Combinators.combine(Arbitraries.integers(), Arbitraries.longs(),
                Arbitraries.longs().list().ofMaxSize(20), doubles().list().ofMaxSize(20),
                records().list().ofMaxSize(12)).as((tag, round, longs, doubles, records) ->
                new Packet(tag, round, longs.stream().mapToLong(Long::longValue).toArray(),
                        doubles.stream().mapToDouble(Double::doubleValue).toArray(), records));
    }

    @Property(tries = 400)
    void decodeInvertsEncode(@ForAll("packets") Packet packet) {
        long[] words = PacketCodec.encode(packet);

        assertThat(words).hasSize(PacketCodec.encodedLength(packet));
        assertSamePacket(PacketCodec.decode(words, words.length), packet);
    }

    @Property(tries = 200)
    void encodesAndDecodesAtAnOffsetOverDirtyWords(@ForAll("packets") Packet packet, @ForAll long seed) {
        Random random = new Random(seed);
        int offset = random.nextInt(5);
        long[] words = new long[offset + PacketCodec.encodedLength(packet) + random.nextInt(5)];
        for (int i = 0; i < words.length; i++) {
            words[i] = random.nextLong(); // encode must clear name padding itself
        }
        int written = PacketCodec.encode(packet, words, offset);

        assertThat(written).isEqualTo(PacketCodec.encodedLength(packet));
        assertSamePacket(PacketCodec.decode(words, offset, written), packet);
    }

    @Property(tries = 300)
    void truncatedOrOverlongWordsFailNamingTheWord(@ForAll("packets") Packet packet, @ForAll long seed) {
        Random random = new Random(seed);
        long[] words = PacketCodec.encode(packet);
        long[] overlong = java.util.Arrays.copyOf(words, words.length + 1 + random.nextInt(3));
        int truncated = random.nextInt(words.length);

        assertThatThrownBy(() -> PacketCodec.decode(words, truncated))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("malformed packet at word");
        assertThatThrownBy(() -> PacketCodec.decode(overlong, overlong.length))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("malformed packet at word " + words.length + ": expected the end");
    }

    @Property(tries = 300)
    void corruptedWordsFailWithIllegalArgumentOrDecodeToAPacketOfThatLength(@ForAll("packets") Packet packet,
                                                                             @ForAll long seed) {
        Random random = new Random(seed);
        long[] words = PacketCodec.encode(packet);
        for (int k = 1 + random.nextInt(3); k > 0; k--) {
            int i = random.nextInt(words.length);
            words[i] = random.nextBoolean() ? random.nextLong() : words[i] ^ (1L << random.nextInt(64));
        }
        try {
            Packet decoded = PacketCodec.decode(words, words.length);
            assertThat(PacketCodec.encodedLength(decoded)).isEqualTo(words.length);
        } catch (IllegalArgumentException e) {
            assertThat(e).hasMessageContaining("malformed packet at word");
        }
    }

    static void assertSamePacket(Packet actual, Packet expected) {
        assertThat(actual.tag()).isEqualTo(expected.tag());
        assertThat(actual.round()).isEqualTo(expected.round());
        assertThat(actual.longs()).isEqualTo(expected.longs());
        assertThat(bits(actual.doubles())).isEqualTo(bits(expected.doubles()));
        assertThat(actual.records()).hasSameSizeAs(expected.records());
        for (int i = 0; i < expected.records().size(); i++) {
            ScopeRecord a = actual.records().get(i);
            ScopeRecord e = expected.records().get(i);
            assertThat(new Object[] {a.rank(), a.event(), a.round(), Double.doubleToRawLongBits(a.value())})
                    .isEqualTo(new Object[] {e.rank(), e.event(), e.round(), Double.doubleToRawLongBits(e.value())});
        }
    }

    private static List<Long> bits(double[] doubles) {
        List<Long> out = new ArrayList<>();
        for (double d : doubles) {
            out.add(Double.doubleToRawLongBits(d));
        }
        return out;
    }
}
