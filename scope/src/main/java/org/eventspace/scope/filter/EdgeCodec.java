package org.eventspace.scope.filter;

import java.util.Objects;

/**
 * How the packets going up an edge of an event scope are encoded for the wire, validated once from its text: the
 * codec part of a {@code CODEC/FILTER} filter ({@link CompressedFilter}). Immutable; every edge gets its own
 * {@link #newEncoder()} at the child and {@link #newDecoder()} at the parent, made from equal specs, so both ends agree
 * on block size and cache size without talking.
 *
 * <pre>
 *   none                         the packet's bytes as they are (the baseline of bytes moved)
 *   deflate                      each packet deflated on its own (the general-purpose baseline)
 *   cbc[:BLOCK[:BLOCKS[:SEG]]]   content-based compression against the blocks this edge sent before: content-defined
 *                                blocks of BLOCK bytes on average (8..4096, a power of two, default 64), a cache of
 *                                BLOCKS blocks at each end (16..1048576, default 4096), blocks cut from the packet's
 *                                {@code rows} as they are or from its record {@code columns} (default); {@link CbcEncoder}
 *   cbc+deflate[:BLOCK[:BLOCKS[:SEG]]]  cbc, then its message deflated
 * </pre>
 *
 * @param kind        which codec.
 * @param blockBytes  cbc's average block size in bytes; 0 for none and deflate.
 * @param cacheBlocks cbc's cache size in blocks; 0 for none and deflate.
 * @param columns     cbc's segmentation: blocks cut from the packet's record columns ({@link RecordColumns}), or from
 *                    its bytes as they are; false for none and deflate.
 */
public record EdgeCodec(Kind kind, int blockBytes, int cacheBlocks, boolean columns) {
    public static final int DEFAULT_BLOCK_BYTES = 64;
    public static final int DEFAULT_CACHE_BLOCKS = 4096;
    public static final int MIN_BLOCK_BYTES = 8;
    public static final int MAX_BLOCK_BYTES = 4096;
    public static final int MIN_CACHE_BLOCKS = 16;
    public static final int MAX_CACHE_BLOCKS = 1 << 20;
    /**
     * The codec for the monitors' results on a {@code flat} (or {@code kary}) scope whose edges cross a WAN link
     * ({@code run --wan} with {@code --monitor}): chosen by {@code bench wan-compression} and end-to-end runs over
     * {@code examples/wan/four-sites.wan} (docs/BENCHMARKS.md, "Monitor data across the WAN"). When every host's set
     * crosses on its own, cbc+deflate moved the same bytes as deflate (−0.1 % and +0.5 % on the WAN edges) for more
     * CPU; where gathers concatenate a site's sets ({@code hier}) it moved 1–4 % fewer bytes end to end, but with the
     * gathers through the gateways its rounds took 4–8 % longer than deflate's and the job's allreduce the same (within
     * 1 %). By the dissertation's rule (§4.1.2, §8.4: keep content-based compression only where it beats the
     * general-purpose compressor on bytes and time) it is kept nowhere by default; {@code --filter cbc+deflate/newest}
     * chooses it.
     */
    public static final String WAN_DEFAULT = "deflate";

    /** The codecs, by their text. */
    public enum Kind {
        NONE("none"), DEFLATE("deflate"), CBC("cbc"), CBC_DEFLATE("cbc+deflate");

        private final String text;

        Kind(String text) {
            this.text = text;
        }

        public String text() {
            return text;
        }

        public boolean contentBased() {
            return this == CBC || this == CBC_DEFLATE;
        }

        /** The kind named {@code text}, or null. */
        static Kind named(String text) {
            for (Kind k : values()) {
                if (k.text.equals(text)) {
                    return k;
                }
            }
            return null;
        }
    }

    /** Segmentation by columns for cbc, none for the others. */
    public EdgeCodec(Kind kind, int blockBytes, int cacheBlocks) {
        this(kind, blockBytes, cacheBlocks, kind.contentBased());
    }

    public EdgeCodec {
        Objects.requireNonNull(kind, "kind");
        if (columns && !kind.contentBased()) {
            throw new IllegalArgumentException(kind.text + " takes no segmentation");
        }
        if (kind.contentBased()) {
            if (blockBytes < MIN_BLOCK_BYTES || blockBytes > MAX_BLOCK_BYTES || Integer.bitCount(blockBytes) != 1) {
                throw new IllegalArgumentException("cbc block must be a power of two " + MIN_BLOCK_BYTES + ".."
                        + MAX_BLOCK_BYTES + " bytes, block=" + blockBytes);
            }
            if (cacheBlocks < MIN_CACHE_BLOCKS || cacheBlocks > MAX_CACHE_BLOCKS) {
                throw new IllegalArgumentException("cbc cache must be " + MIN_CACHE_BLOCKS + ".." + MAX_CACHE_BLOCKS
                        + " blocks, blocks=" + cacheBlocks);
            }
        } else if (blockBytes != 0 || cacheBlocks != 0) {
            throw new IllegalArgumentException(kind.text + " takes no block or cache size, block=" + blockBytes
                    + ", blocks=" + cacheBlocks);
        }
    }

    /** Whether {@code word} (the text before any ':') names a codec. */
    public static boolean isCodec(String word) {
        return Kind.named(word) != null;
    }

    /** Parses a codec's text (see the class comment). @throws IllegalArgumentException naming what was expected. */
    public static EdgeCodec parse(String text) {
        Objects.requireNonNull(text, "codec text");
        String[] parts = text.split(":", -1);
        Kind kind = Kind.named(parts[0]);
        if (kind == null) {
            throw new IllegalArgumentException("expected a codec none, deflate, cbc[:BLOCK[:BLOCKS]] or"
                    + " cbc+deflate[:BLOCK[:BLOCKS]], got '" + text + "'");
        }
        if (!kind.contentBased()) {
            if (parts.length > 1) {
                throw new IllegalArgumentException("expected " + kind.text + " with no argument, got '" + text + "'");
            }
            return new EdgeCodec(kind, 0, 0);
        }
        if (parts.length > 4) {
            throw new IllegalArgumentException("expected " + kind.text + "[:BLOCK[:BLOCKS[:SEG]]], got '" + text + "'");
        }
        int block = parts.length > 1 ? number(parts[1], "BLOCK", text) : DEFAULT_BLOCK_BYTES;
        int blocks = parts.length > 2 ? number(parts[2], "BLOCKS", text) : DEFAULT_CACHE_BLOCKS;
        boolean columns = true;
        if (parts.length > 3) {
            if (!parts[3].equals("rows") && !parts[3].equals("columns")) {
                throw new IllegalArgumentException("expected SEG rows or columns in '" + text + "', got '" + parts[3] + "'");
            }
            columns = parts[3].equals("columns");
        }
        return new EdgeCodec(kind, block, blocks, columns);
    }

    private static int number(String s, String what, String text) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected " + what + " an integer in '" + text + "', got '" + s + "'");
        }
    }

    /** The canonical text, which {@link #parse} turns back into an equal codec. */
    public String text() {
        return kind.contentBased() ? kind.text + ":" + blockBytes + ":" + cacheBlocks + (columns ? ":columns" : ":rows")
                : kind.text;
    }

    /** A fresh sending end for one edge. */
    public EdgeEncoder newEncoder() {
        return switch (kind) {
            case NONE -> new DeflateEdge.Copy();
            case DEFLATE -> new DeflateEdge.Encoder();
            case CBC -> new CbcEncoder(blockBytes, cacheBlocks, columns);
            case CBC_DEFLATE -> DeflateEdge.Chain.encoding(new CbcEncoder(blockBytes, cacheBlocks, columns), new DeflateEdge.Encoder());
        };
    }

    /** A fresh receiving end for one edge. */
    public EdgeDecoder newDecoder() {
        return switch (kind) {
            case NONE -> new DeflateEdge.Copy();
            case DEFLATE -> new DeflateEdge.Decoder();
            case CBC -> new CbcDecoder(blockBytes, cacheBlocks, columns);
            case CBC_DEFLATE -> DeflateEdge.Chain.decoding(new DeflateEdge.Decoder(), new CbcDecoder(blockBytes, cacheBlocks, columns));
        };
    }
}
