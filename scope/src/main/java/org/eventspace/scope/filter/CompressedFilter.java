package org.eventspace.scope.filter;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code CODEC/FILTER}: runs {@code FILTER} unchanged and encodes every packet it sends up an edge of the scope with
 * {@code CODEC} ({@link EdgeCodec}) — for scopes whose edges cross a slow link, such as the gateways of an emulated
 * WAN (dissertation §4.1.2 and §8.4: content-based compression of data sent across a WAN; SPEC §7). Monitor results
 * repeat largely from round to round, and a stateful codec ({@code cbc}) sends what the edge already carried as
 * references into a cache both ends keep.
 *
 * <p>Each node's instance holds the sending end of the edge to its parent (one {@link EdgeEncoder}) and the receiving
 * end of the edge from each child (one {@link EdgeDecoder} per child index); the front-end's instance holds the
 * receiving end of the root's edge. Packets:
 * <ul>
 *   <li>down, tag {@link #COMMAND}: longs {@code [flags, FILTER's command as PacketCodec words…]}; flag
 *       {@link #RESYNC} tells every node that receives it to start its encoder over (a new epoch);</li>
 *   <li>up, tag {@link #ENCODED}: longs {@code [encoded length in bytes, the encoded bytes packed little-endian…]}.</li>
 * </ul>
 * A decoder that cannot rebuild a child's packet exactly ({@link ResyncNeeded}: a lost answer after a timeout, an
 * evicted or unknown block, a check that differs) fails the round with a message naming the child, and the next
 * round's command carries {@link #RESYNC} to that node's children: a round is lost, never a wrong packet delivered.
 *
 * <p>Buffers (packet words, raw and packed bytes) are reused across rounds; what is allocated per round is the
 * {@link Packet} objects the filter API passes. Each instance counts its encoded and raw bytes and its encoding and
 * decoding time ({@link #stats()}). One thread at a time, as every {@link ScopeFilter}.
 */
public final class CompressedFilter implements ScopeFilter {
    /** Tag of a wrapped command going down. */
    public static final int COMMAND = Packet.FIRST_FILTER_TAG + 30;
    /** Tag of an encoded packet going up. */
    public static final int ENCODED = Packet.FIRST_FILTER_TAG + 31;
    /** Command flag: the receiving nodes start their encoders over. */
    public static final long RESYNC = 1;

    private static final double[] NO_DOUBLES = {};

    private final EdgeCodec codec;
    private final ScopeFilter inner;
    private final String name;
    private EdgeEncoder encoder;
    private EdgeDecoder[] decoders = new EdgeDecoder[0];
    private EdgeDecoder rootDecoder;
    /** A decoder of this node failed: the next command it sends down asks for a resync. */
    private boolean resyncBelow;
    private Packet lastRoot;
    private long[] words = new long[64];
    private byte[] bytes = new byte[512];
    private final Stats stats = new Stats();

    /** What one instance has encoded and decoded so far. Mutable; read it from the instance's thread. */
    public static final class Stats {
        public long packetsEncoded;
        public long rawBytesEncoded;
        public long bytesEncoded;
        public long encodeNanos;
        public long packetsDecoded;
        public long decodeNanos;
        public long resyncs;
    }

    public CompressedFilter(EdgeCodec codec, ScopeFilter inner) {
        this.codec = codec;
        this.inner = inner;
        this.name = codec.text() + "/" + inner.name();
    }

    @Override
    public String name() {
        return name;
    }

    public Stats stats() {
        return stats;
    }

    @Override
    public boolean readsResults() {
        return inner.readsResults();
    }

    @Override
    public boolean readsRawTuples() {
        return inner.readsRawTuples();
    }

    @Override
    public Packet command(long round, Packet previousRoot) {
        Packet command = inner.command(round, previousRoot == null ? null : lastRoot);
        return wrap(command, takeResync());
    }

    @Override
    public Packet down(Packet command) {
        return wrap(inner.down(unwrap(command)), takeResync());
    }

    @Override
    public Packet leaf(Packet command, List<ScopeRecord> records) {
        Packet innerCommand = unwrap(command);
        startOverIfAsked(command);
        return encode(inner.leaf(innerCommand, records));
    }

    @Override
    public Packet up(Packet command, List<Packet> fromChildren) {
        Packet innerCommand = unwrap(command);
        if (decoders.length < fromChildren.size()) {
            int had = decoders.length;
            decoders = Arrays.copyOf(decoders, fromChildren.size());
            for (int i = had; i < decoders.length; i++) {
                decoders[i] = codec.newDecoder();
            }
        }
        List<Packet> decoded = new ArrayList<>(fromChildren.size());
        StringBuilder failed = null;
        for (int i = 0; i < fromChildren.size(); i++) {
            try {
                decoded.add(decode(decoders[i], fromChildren.get(i), "child " + i));
            } catch (ResyncNeeded e) {
                failed = (failed == null ? new StringBuilder() : failed.append("; ")).append("child ").append(i)
                        .append(": ").append(e.getMessage());
            }
        }
        if (failed != null) {
            resyncBelow = true;
            stats.resyncs++;
            throw new ResyncNeeded(name + ": round " + command.round() + ": " + failed
                    + "; the next round asks the children to start over");
        }
        startOverIfAsked(command);
        return encode(inner.up(innerCommand, decoded));
    }

    @Override
    public FilterResult result(Packet root) {
        if (rootDecoder == null) {
            rootDecoder = codec.newDecoder();
        }
        Packet decoded;
        try {
            decoded = decode(rootDecoder, root, "the root");
        } catch (ResyncNeeded e) {
            resyncBelow = true;
            stats.resyncs++;
            throw new ResyncNeeded(name + ": round " + root.round() + ": the root: " + e.getMessage()
                    + "; the next round asks the root to start over");
        }
        lastRoot = decoded;
        return inner.result(decoded);
    }

    private boolean takeResync() {
        boolean r = resyncBelow;
        resyncBelow = false;
        return r;
    }

    private void startOverIfAsked(Packet command) {
        if ((command.longs()[0] & RESYNC) != 0 && encoder != null) {
            encoder.reset();
        }
    }

    private static Packet wrap(Packet command, boolean resync) {
        long[] encoded = PacketCodec.encode(command);
        long[] longs = new long[1 + encoded.length];
        longs[0] = resync ? RESYNC : 0;
        System.arraycopy(encoded, 0, longs, 1, encoded.length);
        return new Packet(COMMAND, command.round(), longs, NO_DOUBLES, List.of());
    }

    private Packet unwrap(Packet command) {
        if (command.tag() != COMMAND || command.longs().length < 1) {
            throw new IllegalArgumentException(name + ": expected a wrapped command (tag " + COMMAND + "), tag="
                    + command.tag() + ", round=" + command.round());
        }
        long[] longs = command.longs();
        return PacketCodec.decode(longs, 1, longs.length - 1);
    }

    /** {@code packet} as PacketCodec words, as bytes, encoded, packed into an {@link #ENCODED} packet. */
    private Packet encode(Packet packet) {
        if (encoder == null) {
            encoder = codec.newEncoder();
        }
        int n = PacketCodec.encodedLength(packet);
        if (words.length < n) {
            words = new long[Math.max(n, words.length * 2)];
        }
        PacketCodec.encode(packet, words, 0);
        int rawLength = n * Long.BYTES;
        bytes = WireBytes.ensure(bytes, rawLength);
        for (int i = 0; i < n; i++) {
            WireBytes.putLong(bytes, i * Long.BYTES, words[i]);
        }
        long start = System.nanoTime();
        int length = encoder.encode(bytes, rawLength);
        stats.encodeNanos += System.nanoTime() - start;
        stats.packetsEncoded++;
        stats.rawBytesEncoded += rawLength;
        stats.bytesEncoded += length;
        return new Packet(ENCODED, packet.round(), pack(encoder.output(), length), NO_DOUBLES, List.of());
    }

    private Packet decode(EdgeDecoder decoder, Packet packet, String from) {
        long[] longs = packet.longs();
        if (packet.tag() != ENCODED || longs.length < 1 || longs[0] < 0 || longs[0] > (long) (longs.length - 1) * Long.BYTES) {
            throw new IllegalArgumentException(name + ": " + from + " sent tag " + packet.tag() + " with "
                    + longs.length + " longs" + (longs.length > 0 ? ", length " + longs[0] : "") + ", expected an encoded"
                    + " packet (tag " + ENCODED + ")");
        }
        int length = (int) longs[0];
        bytes = WireBytes.ensure(bytes, (longs.length - 1) * Long.BYTES);
        for (int i = 1; i < longs.length; i++) {
            WireBytes.putLong(bytes, (i - 1) * Long.BYTES, longs[i]);
        }
        long start = System.nanoTime();
        int rawLength = decoder.decode(bytes, length);
        stats.decodeNanos += System.nanoTime() - start;
        stats.packetsDecoded++;
        if (rawLength % Long.BYTES != 0) {
            throw new ResyncNeeded(from + ": rebuilt " + rawLength + " bytes, not whole packet words");
        }
        int n = rawLength / Long.BYTES;
        if (words.length < n) {
            words = new long[Math.max(n, words.length * 2)];
        }
        byte[] raw = decoder.output();
        for (int i = 0; i < n; i++) {
            words[i] = WireBytes.getLong(raw, i * Long.BYTES);
        }
        return PacketCodec.decode(words, 0, n);
    }

    /** {@code [length, bytes packed little-endian, the last word zero-padded]}. */
    private static long[] pack(byte[] encoded, int length) {
        long[] longs = new long[1 + (length + Long.BYTES - 1) / Long.BYTES];
        longs[0] = length;
        int whole = length / Long.BYTES;
        for (int i = 0; i < whole; i++) {
            longs[1 + i] = WireBytes.getLong(encoded, i * Long.BYTES);
        }
        long tail = 0;
        for (int at = whole * Long.BYTES, shift = 0; at < length; at++, shift += Byte.SIZE) {
            tail |= (encoded[at] & 0xFFL) << shift;
        }
        if (whole * Long.BYTES < length) {
            longs[1 + whole] = tail;
        }
        return longs;
    }
}
