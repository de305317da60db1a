package org.eventspace.scope.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Every codec gives back every packet byte for byte, over random sequences of packets that repeat earlier ones, mutate
 * them (changed words, inserted and removed records, truncation) or are new, with caches small enough to evict; and a
 * stateful decoder that misses a message asks for a resync and then follows the encoder's new epoch exactly.
 */
class EdgeCodecProperties {
    @Provide
    Arbitrary<String> codecs() {
        return Arbitraries.of("none", "deflate", "cbc:8:16", "cbc:16:16:rows", "cbc:64:16", "cbc:64:4096:rows",
                "cbc:64:4096", "cbc:512:32", "cbc+deflate:32:16:rows", "cbc+deflate:64:4096");
    }

    /** A packet-like sequence: words of a few recurring shapes, so that blocks repeat within and across packets. */
    static List<byte[]> sequence(long seed, int packets) {
        Random random = new Random(seed);
        List<byte[]> out = new ArrayList<>();
        byte[] previous = randomPacket(random);
        for (int p = 0; p < packets; p++) {
            byte[] next = switch (random.nextInt(6)) {
                case 0 -> previous.clone();
                case 1 -> mutateWords(random, previous);
                case 2 -> insertRecords(random, previous);
                case 3 -> removeRecords(random, previous);
                case 4 -> Arrays.copyOf(previous, random.nextInt(previous.length + 1));
                default -> randomPacket(random);
            };
            if (random.nextInt(10) == 0 && !out.isEmpty()) {
                next = out.get(random.nextInt(out.size())).clone();
            }
            out.add(next);
            previous = next;
        }
        return out;
    }

    private static byte[] randomPacket(Random random) {
        int records = random.nextInt(120);
        byte[] b = new byte[records * 24 + random.nextInt(3) * 8 + (random.nextInt(8) == 0 ? random.nextInt(8) : 0)];
        for (int i = 0; i + 8 <= b.length; i += 8) {
            WireBytes.putLong(b, i, random.nextInt(4) == 0 ? random.nextLong() : random.nextInt(16));
        }
        return b;
    }

    private static byte[] mutateWords(Random random, byte[] from) {
        byte[] b = from.clone();
        for (int k = random.nextInt(4); k >= 0 && b.length >= 8; k--) {
            WireBytes.putLong(b, 8 * random.nextInt(b.length / 8), random.nextLong());
        }
        return b;
    }

    private static byte[] insertRecords(Random random, byte[] from) {
        int at = 8 * random.nextInt(from.length / 8 + 1);
        byte[] extra = randomPacket(random);
        byte[] b = new byte[from.length + extra.length];
        System.arraycopy(from, 0, b, 0, at);
        System.arraycopy(extra, 0, b, at, extra.length);
        System.arraycopy(from, at, b, at + extra.length, from.length - at);
        return b;
    }

    private static byte[] removeRecords(Random random, byte[] from) {
        int at = 8 * random.nextInt(from.length / 8 + 1);
        int n = Math.min(from.length - at, 8 * random.nextInt(40));
        byte[] b = new byte[from.length - n];
        System.arraycopy(from, 0, b, 0, at);
        System.arraycopy(from, at + n, b, at, from.length - at - n);
        return b;
    }

    private static byte[] roundTrip(EdgeEncoder encoder, EdgeDecoder decoder, byte[] packet) {
        int n = encoder.encode(packet, packet.length);
        int m = decoder.decode(Arrays.copyOf(encoder.output(), n), n);
        return Arrays.copyOf(decoder.output(), m);
    }

    @Property(tries = 150)
    void everyPacketRoundTripsByteForByte(@ForAll("codecs") String text, @ForAll long seed,
                                          @ForAll @IntRange(min = 1, max = 60) int packets) {
        EdgeCodec codec = EdgeCodec.parse(text);
        EdgeEncoder encoder = codec.newEncoder();
        EdgeDecoder decoder = codec.newDecoder();
        for (byte[] packet : sequence(seed, packets)) {
            assertThat(roundTrip(encoder, decoder, packet)).isEqualTo(packet);
        }
    }

    @Property(tries = 100)
    void aMissedMessageAsksForAResyncAndTheNewEpochRoundTrips(@ForAll("contentBased") String text, @ForAll long seed,
                                                            @ForAll @IntRange(min = 2, max = 40) int packets,
                                                            @ForAll @IntRange(min = 0, max = 39) int missAt) {
        EdgeCodec codec = EdgeCodec.parse(text);
        EdgeEncoder encoder = codec.newEncoder();
        EdgeDecoder decoder = codec.newDecoder();
        List<byte[]> sequence = sequence(seed, packets);
        int miss = missAt % (packets - 1);
        for (int i = 0; i < sequence.size(); i++) {
            byte[] packet = sequence.get(i);
            if (i == miss) {
                encoder.encode(packet, packet.length); // lost on the way: the encoder moved on, the decoder did not
                continue;
            }
            if (i == miss + 1) {
                int n = encoder.encode(packet, packet.length);
                byte[] message = Arrays.copyOf(encoder.output(), n);
                // A lost RESET message leaves the decoder waiting for one; any later loss is a sequence gap.
                assertThatThrownBy(() -> decoder.decode(message, n)).isInstanceOf(ResyncNeeded.class)
                        .hasMessageContaining(miss == 0 ? "waiting for a RESET" : "1 lost");
                // Until the encoder starts over, the decoder refuses whatever comes, rather than guess.
                int again = encoder.encode(packet, packet.length);
                byte[] stale = Arrays.copyOf(encoder.output(), again);
                assertThatThrownBy(() -> decoder.decode(stale, again)).isInstanceOf(ResyncNeeded.class);
                encoder.reset();
            }
            assertThat(roundTrip(encoder, decoder, packet)).isEqualTo(packet);
        }
    }

    @Provide
    Arbitrary<String> contentBased() {
        return Arbitraries.of("cbc:8:16", "cbc:64:16:rows", "cbc:64:4096", "cbc+deflate:32:16");
    }

    @Property(tries = 100)
    void aCorruptedMessageIsNeverDeliveredAsAPacket(@ForAll("contentBased") String text, @ForAll long seed,
                                                    @ForAll @IntRange(min = 1, max = 20) int packets,
                                                    @ForAll @IntRange(min = 0, max = 1 << 20) int flip) {
        EdgeCodec codec = EdgeCodec.parse(text);
        EdgeEncoder encoder = codec.newEncoder();
        EdgeDecoder decoder = codec.newDecoder();
        List<byte[]> sequence = sequence(seed, packets);
        for (int i = 0; i < sequence.size() - 1; i++) {
            byte[] packet = sequence.get(i);
            assertThat(roundTrip(encoder, decoder, packet)).isEqualTo(packet);
        }
        byte[] last = sequence.get(sequence.size() - 1);
        int n = encoder.encode(last, last.length);
        byte[] message = Arrays.copyOf(encoder.output(), n);
        message[flip % n] ^= (byte) (1 << (flip % 8));
        try {
            int m = decoder.decode(message, n);
            // A flip the format tolerates (one the check cannot see would be a 2^-64 event) must still give the packet.
            assertThat(Arrays.copyOf(decoder.output(), m)).isEqualTo(last);
        } catch (ResyncNeeded expected) {
            encoder.reset();
            assertThat(roundTrip(encoder, decoder, last)).isEqualTo(last);
        }
    }
}
