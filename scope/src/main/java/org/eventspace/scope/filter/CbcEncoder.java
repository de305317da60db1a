package org.eventspace.scope.filter;

import java.util.Arrays;

/**
 * The sending end of content-based compression on one scope edge (dissertation §4.1.2.2, §8.4: redundant segment
 * elimination with two-level fingerprints; message layout in {@link CbcLayout}). Each packet is cut into
 * content-defined blocks ({@link CbcFingerprints#blockEnd}); then, block by block:
 * <ol>
 *   <li>at the start of every group of {@link CbcFingerprints#GROUP} blocks, the group's level-2 fingerprint is looked
 *       up: a group this edge sent before as one run of literals becomes one RUN reference;</li>
 *   <li>a block that continues the run being built (the next cached id holds the same bytes) extends it;</li>
 *   <li>otherwise the block's level-1 fingerprint is looked up: a cached block with the same bytes is referenced;</li>
 *   <li>otherwise the block goes as a literal and is stored in the mirror cache, evicting the oldest.</li>
 * </ol>
 * Consecutive references merge into one RUN, so a wholly repeated packet costs one reference. Every hit is confirmed
 * by comparing bytes with the mirror, which holds exactly what the receiver holds.
 *
 * <p>Both indexes are direct-mapped tables of ids (a slot keeps the newest block or group that hashed to it), lossy
 * by design: a lost entry costs a literal, never a wrong reference. All buffers are allocated once, or grown to the
 * largest packet seen; an encoding allocates nothing after that. Not thread-safe.
 */
final class CbcEncoder implements EdgeEncoder {
    private final int minWords;
    private final int maxWords;
    private final long mask;
    private final BlockCache cache;
    private final int indexMask;
    private final long[] blockKeys;
    private final long[] blockIds;
    private final long[] groupKeys;
    private final long[] groupIds;
    private final boolean columns;
    private byte[] out = new byte[256];
    private byte[] scratch = new byte[256];
    private int[] ends = new int[64];
    private long[] fps = new long[64];
    /** Per block of the packet: the id it was stored under as a literal, or −1. */
    private long[] literalIds = new long[64];
    private long sequence;
    private boolean resetPending = true;

    /** @param columns whether blocks are cut from the record columns ({@link RecordColumns}) instead of the rows. */
    CbcEncoder(int blockBytes, int cacheBlocks, boolean columns) {
        this.columns = columns;
        int averageWords = Math.max(1, blockBytes / Long.BYTES);
        this.minWords = Math.max(1, averageWords / 4);
        this.maxWords = averageWords * 4;
        this.mask = Long.highestOneBit(averageWords) - 1;
        this.cache = new BlockCache(cacheBlocks, maxWords * Long.BYTES);
        int tableSize = Integer.highestOneBit(Math.max(16, cacheBlocks * 2 - 1)) * 2;
        this.indexMask = tableSize - 1;
        this.blockKeys = new long[tableSize];
        this.blockIds = new long[tableSize];
        this.groupKeys = new long[tableSize];
        this.groupIds = new long[tableSize];
        Arrays.fill(blockIds, -1);
        Arrays.fill(groupIds, -1);
    }

    @Override
    public int encode(byte[] packet, int length) {
        byte[] raw = packet;
        if (columns) {
            scratch = WireBytes.ensure(scratch, length);
            RecordColumns.toColumns(packet, length, scratch);
            raw = scratch;
        }
        int blocks = cut(raw, length);
        out = WireBytes.ensure(out, CbcLayout.maxMessageBytes(length, blocks));
        out[CbcLayout.FLAGS_OFFSET] = (byte) (resetPending ? CbcLayout.FLAG_RESET : 0);
        resetPending = false;
        int at = WireBytes.putVarint(out, CbcLayout.SEQUENCE_OFFSET, sequence++);
        at = WireBytes.putVarint(out, at, length);
        long runFirst = -1;
        int runCount = 0;
        int i = 0;
        while (i < blocks) {
            int from = i == 0 ? 0 : ends[i - 1];
            literalIds[i] = -1;
            if (i % CbcFingerprints.GROUP == 0 && i + CbcFingerprints.GROUP <= blocks) {
                long first = groupHit(raw, i);
                if (first >= 0) {
                    if (runCount > 0 && runFirst + runCount == first) {
                        runCount += CbcFingerprints.GROUP;
                    } else {
                        at = flushRun(at, runFirst, runCount);
                        runFirst = first;
                        runCount = CbcFingerprints.GROUP;
                    }
                    for (int k = i + 1; k < i + CbcFingerprints.GROUP; k++) {
                        literalIds[k] = -1;
                    }
                    i += CbcFingerprints.GROUP;
                    continue;
                }
            }
            int blockLength = ends[i] - from;
            if (runCount > 0 && cache.same(runFirst + runCount, raw, from, blockLength)) {
                runCount++;
                i++;
                continue;
            }
            long id = blockHit(raw, from, blockLength, fps[i]);
            if (id >= 0) {
                at = flushRun(at, runFirst, runCount);
                runFirst = id;
                runCount = 1;
                i++;
                continue;
            }
            at = flushRun(at, runFirst, runCount);
            runCount = 0;
            out[at++] = CbcLayout.OP_LITERAL;
            at = WireBytes.putVarint(out, at, blockLength);
            System.arraycopy(raw, from, out, at, blockLength);
            at += blockLength;
            long stored = cache.add(raw, from, blockLength);
            int slot = (int) fps[i] & indexMask;
            blockKeys[slot] = fps[i];
            blockIds[slot] = stored;
            literalIds[i] = stored;
            i++;
        }
        at = flushRun(at, runFirst, runCount);
        indexGroups(blocks);
        WireBytes.putLong(out, at, CbcFingerprints.check(raw, length));
        return at + CbcLayout.CHECK_BYTES;
    }

    /** Cuts {@code raw} into blocks: their ends and level-1 fingerprints; returns how many. */
    private int cut(byte[] raw, int length) {
        int blocks = 0;
        int from = 0;
        while (from < length) {
            if (blocks == ends.length) {
                ends = Arrays.copyOf(ends, blocks * 2);
                fps = Arrays.copyOf(fps, blocks * 2);
                literalIds = Arrays.copyOf(literalIds, blocks * 2);
            }
            int end = CbcFingerprints.blockEnd(raw, from, length, minWords, maxWords, mask);
            ends[blocks] = end;
            fps[blocks] = CbcFingerprints.block(raw, from, end - from);
            blocks++;
            from = end;
        }
        return blocks;
    }

    /** The first id of a cached run of {@link CbcFingerprints#GROUP} blocks equal to the group at block {@code i}, or −1. */
    private long groupHit(byte[] raw, int i) {
        long key = CbcFingerprints.group(fps, i, CbcFingerprints.GROUP);
        int slot = (int) key & indexMask;
        long first = groupIds[slot];
        if (first < 0 || groupKeys[slot] != key) {
            return -1;
        }
        for (int k = 0; k < CbcFingerprints.GROUP; k++) {
            int from = i + k == 0 ? 0 : ends[i + k - 1];
            if (!cache.same(first + k, raw, from, ends[i + k] - from)) {
                return -1;
            }
        }
        return first;
    }

    /** The id of a cached block equal to {@code raw[from, from + length)} whose fingerprint is {@code fp}, or −1. */
    private long blockHit(byte[] raw, int from, int length, long fp) {
        int slot = (int) fp & indexMask;
        long id = blockIds[slot];
        return id >= 0 && blockKeys[slot] == fp && cache.same(id, raw, from, length) ? id : -1;
    }

    /** Indexes every whole group of this packet that went as consecutive literals. */
    private void indexGroups(int blocks) {
        for (int g = 0; g + CbcFingerprints.GROUP <= blocks; g += CbcFingerprints.GROUP) {
            long first = literalIds[g];
            boolean consecutive = first >= 0;
            for (int k = 1; consecutive && k < CbcFingerprints.GROUP; k++) {
                consecutive = literalIds[g + k] == first + k;
            }
            if (consecutive) {
                long key = CbcFingerprints.group(fps, g, CbcFingerprints.GROUP);
                int slot = (int) key & indexMask;
                groupKeys[slot] = key;
                groupIds[slot] = first;
            }
        }
    }

    private int flushRun(int at, long first, int count) {
        if (count == 0) {
            return at;
        }
        long back = cache.next - first;
        if (count == 1) {
            out[at++] = CbcLayout.OP_REF;
            return WireBytes.putVarint(out, at, back);
        }
        out[at++] = CbcLayout.OP_RUN;
        at = WireBytes.putVarint(out, at, back);
        return WireBytes.putVarint(out, at, count);
    }

    @Override
    public byte[] output() {
        return out;
    }

    @Override
    public void reset() {
        cache.clear();
        Arrays.fill(blockIds, -1);
        Arrays.fill(groupIds, -1);
        sequence = 0;
        resetPending = true;
    }
}
