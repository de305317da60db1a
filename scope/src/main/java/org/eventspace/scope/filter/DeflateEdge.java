package org.eventspace.scope.filter;

import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * The general-purpose baseline: each packet deflated on its own (java.util.zip, raw deflate without the zlib header,
 * level 6), as the dissertation's Varg compresses each screen update with zlib (§4.2.1) — stateless, so an edge under
 * it never needs a resync. A message is the packet's length as a varint, then its deflate stream. The Deflater and
 * Inflater are made once per edge and reset per packet; buffers grow to the largest packet seen. Not thread-safe;
 * {@link #close} ends the native zlib state (also reclaimed by the cleaner if never called).
 */
final class DeflateEdge {
    private DeflateEdge() {
    }

    static final class Encoder implements EdgeEncoder, AutoCloseable {
        private final Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
        private byte[] out = new byte[256];

        @Override
        public int encode(byte[] raw, int length) {
            out = WireBytes.ensure(out, CbcLayout.MAX_VARINT_BYTES + length + length / 100 + 64);
            int at = WireBytes.putVarint(out, 0, length);
            deflater.reset();
            deflater.setInput(raw, 0, length);
            deflater.finish();
            while (!deflater.finished()) {
                at += deflater.deflate(out, at, out.length - at);
                if (at == out.length) {
                    out = WireBytes.ensure(out, out.length * 2);
                }
            }
            return at;
        }

        @Override
        public byte[] output() {
            return out;
        }

        @Override
        public void reset() {
            // Stateless between packets.
        }

        @Override
        public void close() {
            deflater.end();
        }
    }

    static final class Decoder implements EdgeDecoder, AutoCloseable {
        private final Inflater inflater = new Inflater(true);
        private final WireBytes.Reader in = new WireBytes.Reader();
        private byte[] out = new byte[256];

        @Override
        public int decode(byte[] encoded, int length) {
            in.wrap(encoded, length);
            int rawLength = in.count("raw length", CbcDecoder.MAX_RAW_BYTES);
            out = WireBytes.ensure(out, rawLength + 1);
            inflater.reset();
            inflater.setInput(encoded, in.at, length - in.at);
            int at = 0;
            try {
                while (!inflater.finished()) {
                    int n = inflater.inflate(out, at, out.length - at);
                    at += n;
                    if (n == 0 && (inflater.needsInput() || inflater.needsDictionary() || at == out.length)) {
                        break;
                    }
                }
            } catch (DataFormatException e) {
                throw new ResyncNeeded("deflate: malformed stream: " + e.getMessage());
            }
            if (!inflater.finished() || at != rawLength || inflater.getRemaining() != 0) {
                throw new ResyncNeeded("deflate: message rebuilt " + at + " bytes (finished=" + inflater.finished()
                        + ", " + inflater.getRemaining() + " bytes left over), its header says " + rawLength);
            }
            return rawLength;
        }

        @Override
        public byte[] output() {
            return out;
        }

        @Override
        public void close() {
            inflater.end();
        }
    }

    /** {@code none}: the packet's bytes as they are, copied. */
    static final class Copy implements EdgeEncoder, EdgeDecoder {
        private byte[] out = new byte[256];

        @Override
        public int encode(byte[] raw, int length) {
            out = WireBytes.ensure(out, length);
            System.arraycopy(raw, 0, out, 0, length);
            return length;
        }

        @Override
        public int decode(byte[] encoded, int length) {
            return encode(encoded, length);
        }

        @Override
        public byte[] output() {
            return out;
        }

        @Override
        public void reset() {
            // Stateless.
        }
    }

    /** {@code cbc+deflate}: content-based compression first, then the message deflated. */
    static final class Chain implements EdgeEncoder, EdgeDecoder {
        private final EdgeEncoder first;
        private final EdgeEncoder second;
        private final EdgeDecoder secondBack;
        private final EdgeDecoder firstBack;

        /** An encoding chain ({@code first} then {@code second}); the decoders are unused. */
        static Chain encoding(EdgeEncoder first, EdgeEncoder second) {
            return new Chain(first, second, null, null);
        }

        /** A decoding chain: {@code secondBack} undoes the outer encoding, then {@code firstBack} the inner one. */
        static Chain decoding(EdgeDecoder secondBack, EdgeDecoder firstBack) {
            return new Chain(null, null, secondBack, firstBack);
        }

        private Chain(EdgeEncoder first, EdgeEncoder second, EdgeDecoder secondBack, EdgeDecoder firstBack) {
            this.first = first;
            this.second = second;
            this.secondBack = secondBack;
            this.firstBack = firstBack;
        }

        @Override
        public int encode(byte[] raw, int length) {
            int n = first.encode(raw, length);
            return second.encode(first.output(), n);
        }

        @Override
        public int decode(byte[] encoded, int length) {
            int n = secondBack.decode(encoded, length);
            return firstBack.decode(secondBack.output(), n);
        }

        @Override
        public byte[] output() {
            return first != null ? second.output() : firstBack.output();
        }

        @Override
        public void reset() {
            first.reset();
            second.reset();
        }
    }
}
