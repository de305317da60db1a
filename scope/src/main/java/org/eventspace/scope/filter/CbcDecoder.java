package org.eventspace.scope.filter;

/**
 * The receiving end of content-based compression on one scope edge ({@link CbcEncoder}; layout in
 * {@link CbcLayout}): rebuilds each packet from literals and references into its block cache, stores the literals
 * as the sender's mirror did, and recomputes the packet's conservative fingerprint. It never returns a packet it could
 * not rebuild exactly: a sequence gap, a reference to an id it does not hold, a malformed op or a check that does not
 * match throws {@link ResyncNeeded}, and from then on only a RESET message (a new epoch) is accepted.
 *
 * <p>Buffers are allocated once, or grown to the largest packet seen. Not thread-safe.
 */
final class CbcDecoder implements EdgeDecoder {
    /** Largest packet accepted: a scope message's packet words, as bytes. */
    static final int MAX_RAW_BYTES = Integer.MAX_VALUE - 64;

    private final BlockCache cache;
    private final WireBytes.Reader in = new WireBytes.Reader();
    private final boolean columns;
    private byte[] out = new byte[256];
    private byte[] rows = new byte[256];
    private long expected;
    /** Whether the last failure left the cache out of step; true until the first RESET. */
    private boolean broken = true;

    CbcDecoder(int blockBytes, int cacheBlocks, boolean columns) {
        this.columns = columns;
        int averageWords = Math.max(1, blockBytes / Long.BYTES);
        this.cache = new BlockCache(cacheBlocks, averageWords * 4 * Long.BYTES);
    }

    @Override
    public int decode(byte[] encoded, int length) {
        try {
            return rebuild(encoded, length);
        } catch (ResyncNeeded e) {
            broken = true;
            throw e;
        }
    }

    private int rebuild(byte[] encoded, int length) {
        in.wrap(encoded, length);
        int flags = in.u8("flags");
        if ((flags & CbcLayout.FLAG_RESET) != 0) {
            cache.clear();
            expected = 0;
            broken = false;
        } else if (broken) {
            throw new ResyncNeeded("cbc: waiting for a RESET message after an earlier failure (or before the first),"
                    + " got a message of epoch position " + peekSequence());
        }
        long sequence = in.varint("sequence");
        if (sequence != expected) {
            throw new ResyncNeeded("cbc: message " + sequence + " arrived, expected " + expected
                    + (sequence > expected ? " (" + (sequence - expected) + " lost)" : " (a repeat)"));
        }
        int rawLength = in.count("raw length", MAX_RAW_BYTES);
        out = WireBytes.ensure(out, rawLength);
        int at = 0;
        while (at < rawLength) {
            int op = in.u8("opcode");
            switch (op) {
                case CbcLayout.OP_LITERAL -> {
                    int n = in.count("literal length", cache.slotBytes);
                    if (n == 0 || n > rawLength - at) {
                        throw new ResyncNeeded("cbc: literal of " + n + " bytes at packet byte " + at + " of " + rawLength);
                    }
                    in.need(n, "literal");
                    System.arraycopy(encoded, in.at, out, at, n);
                    cache.add(encoded, in.at, n);
                    in.at += n;
                    at += n;
                }
                case CbcLayout.OP_REF -> at = copy(in.varint("reference"), 1, at, rawLength);
                case CbcLayout.OP_RUN -> {
                    long back = in.varint("run start");
                    at = copy(back, in.count("run length", Integer.MAX_VALUE), at, rawLength);
                }
                default -> throw new ResyncNeeded("cbc: unknown opcode 0x" + Integer.toHexString(op) + " at byte "
                        + (in.at - 1));
            }
        }
        in.need(CbcLayout.CHECK_BYTES, "check");
        long check = WireBytes.getLong(encoded, in.at);
        in.at += CbcLayout.CHECK_BYTES;
        if (in.at != length) {
            throw new ResyncNeeded("cbc: " + (length - in.at) + " bytes after the check");
        }
        long rebuilt = CbcFingerprints.check(out, rawLength);
        if (rebuilt != check) {
            throw new ResyncNeeded("cbc: message " + sequence + ": rebuilt packet's check 0x" + Long.toHexString(rebuilt)
                    + " differs from the sender's 0x" + Long.toHexString(check) + " (the caches are out of step)");
        }
        expected++;
        if (columns) {
            rows = WireBytes.ensure(rows, rawLength);
            RecordColumns.toRows(out, rawLength, rows);
        }
        return rawLength;
    }

    /** Copies cached blocks {@code next − back …} ({@code count} of them) to {@code out} at {@code at}. */
    private int copy(long back, int count, int at, int rawLength) {
        long first = cache.next - back;
        if (back < 1 || count < 1 || !cache.holds(first) || !cache.holds(first + count - 1)) {
            throw new ResyncNeeded("cbc: reference to blocks " + first + ".." + (first + count - 1) + ", this end holds "
                    + Math.max(0, cache.next - cache.capacity) + ".." + (cache.next - 1)
                    + (back < 1 || first + count > cache.next ? " (never sent)" : " (evicted)"));
        }
        for (long id = first; id < first + count; id++) {
            int n = cache.length(id);
            if (n > rawLength - at) {
                throw new ResyncNeeded("cbc: block " + id + " of " + n + " bytes overruns the packet at byte " + at
                        + " of " + rawLength);
            }
            System.arraycopy(cache.data, cache.offset(id), out, at, n);
            at += n;
        }
        return at;
    }

    private long peekSequence() {
        int mark = in.at;
        try {
            return in.varint("sequence");
        } catch (ResyncNeeded e) {
            return -1;
        } finally {
            in.at = mark;
        }
    }

    @Override
    public byte[] output() {
        return columns ? rows : out;
    }
}
