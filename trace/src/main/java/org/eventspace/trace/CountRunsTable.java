package org.eventspace.trace;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The counts that change over time ({@link CountRuns}), each distinct sequence once, packed into one byte string: the
 * file's {@code words_runs_table}, which events' {@code words_runs} name by index (docs/TRACE-FORMAT.md, "Packed runs").
 *
 * <p>Why: what ScalaTrace's inter-node compression (Ratn et al. §3.2–3.3) leaves of a molecular-dynamics code is its
 * message sizes, which change at every neighbour-list rebuild and differ on every rank. They are not random, though:
 * a rank's receive sizes are its neighbour's send sizes (the same sequence at two events), the peeled iterations of a
 * loop repeat the body's, the sizes change at a fixed period (every rebuild, so the run lengths are all one period)
 * and they are multiples of an element's bytes. So each distinct sequence is kept once, as either
 * <ul>
 *   <li><b>runs</b>: value, length pairs, or</li>
 *   <li><b>blocks</b>: one value per period of {@code p} occurrences (the last block takes what is left of the
 *       event's occurrences), which drops every length when the sizes change at a fixed period,</li>
 * </ul>
 * whichever is shorter, with the values divided by their greatest common divisor and written as differences from the
 * previous value, zig-zag mapped to unsigned and as LEB128 varints (7 bits a byte). Lossless: decoding gives the same
 * runs, since {@link CountRuns} merges equal neighbours and so has one form for each sequence. Differences wrap
 * around 2^64 both ways, so any long values survive.
 *
 * <p>One entry, in order (varints are unsigned LEB128): {@code head} = period × 4 + 2 × repeat + packed (period 0:
 * runs; p ≥ 1: blocks of p; repeat: scale and n are the previous entry's and not written); {@code scale} ≥ 1;
 * {@code n} ≥ 1 values; the first value as the zig-zag difference of value/scale from the previous entry's first
 * value/scale; the other n − 1 as zig-zag differences from the value before, as varints or (packed) as one width byte
 * w and w bits each, most significant first; for runs, n lengths ≥ 1. Entries follow each other with nothing between
 * (docs/TRACE-FORMAT.md has the same). Immutable once read.
 */
final class CountRunsTable {
    /** The top-level field holding the table. */
    static final String FIELD = "words_runs_table";

    /** One decoded entry: values, and either lengths (runs) or a period (blocks). */
    private record Entry(int period, long scale, long[] values, long[] lengths) {
    }

    private final List<Entry> entries;

    private CountRunsTable(List<Entry> entries) {
        this.entries = entries;
    }

    int size() {
        return entries.size();
    }

    // ---------------------------------------------------------------- writing

    /**
     * Rewrites a trace document made by {@link TraceFile#toJson} in place: every event's {@code words_runs} entries
     * name an entry of one {@value #FIELD} instead of holding their runs; when each entry is one rank and together
     * they are the event's ranks (its group's, or its own {@code ranks}), just the indexes, one per rank in ascending
     * order. A document without runs is left alone.
     */
    static void compact(ObjectNode root) {
        Map<CountRuns, Integer> index = new LinkedHashMap<>();
        JsonNode groups = root.get("groups");
        if (groups == null || !groups.isArray()) {
            return;
        }
        for (JsonNode g : groups) {
            compactNodes(g.get("trace"), g.get("ranks"), index);
        }
        if (index.isEmpty()) {
            return;
        }
        Encoder table = new Encoder();
        index.keySet().forEach(table::add);
        root.put(FIELD, table.toByteArray());
    }

    private static void compactNodes(JsonNode nodes, JsonNode ranks, Map<CountRuns, Integer> index) {
        if (nodes == null || !nodes.isArray()) {
            return;
        }
        for (JsonNode n : nodes) {
            JsonNode own = n.has("ranks") ? n.get("ranks") : ranks;
            if (n.has("body")) {
                compactNodes(n.get("body"), own, index);
            } else if (n.has("words_runs")) {
                ((ObjectNode) n).set("words_runs", refs((ArrayNode) n.get("words_runs"), own, index));
            }
        }
    }

    private static JsonNode refs(ArrayNode runs, JsonNode nodeRanks, Map<CountRuns, Integer> index) {
        ArrayNode general = runs.arrayNode();
        Map<Integer, Integer> byRank = new java.util.TreeMap<>();
        for (JsonNode pair : runs) {
            long[] pairs = new long[pair.get(0).size()];
            for (int i = 0; i < pairs.length; i++) {
                pairs[i] = pair.get(0).get(i).asLong();
            }
            int ref = index.computeIfAbsent(CountRuns.of(pairs), k -> index.size());
            general.addArray().add(ref).add(pair.get(1));
            for (int rank : rankList(pair.get(1)).ranks()) {
                byRank.put(rank, ref);
            }
        }
        // An index per rank beats (index, ranklist) pairs while ranks are few beside the distinct sequences.
        RankList own = nodeRanks == null ? null : rankList(nodeRanks);
        if (own != null && byRank.size() <= 4 * runs.size() && Arrays.equals(own.ranks(),
                byRank.keySet().stream().mapToInt(Integer::intValue).toArray())) {
            ArrayNode shortForm = runs.arrayNode();
            byRank.values().forEach(shortForm::add);
            boolean consecutive = true;
            for (int i = 1; i < shortForm.size(); i++) {
                consecutive &= shortForm.get(i).asInt() == shortForm.get(0).asInt() + i;
            }
            // the ranks' sequences were new here, one after another: the first index says them all
            return consecutive ? shortForm.get(0) : shortForm;
        }
        return general;
    }

    private static RankList rankList(JsonNode runs) {
        int[] r = new int[runs.size()];
        for (int i = 0; i < r.length; i++) {
            r[i] = runs.get(i).asInt();
        }
        return RankList.ofRuns(r);
    }

    /**
     * Writes entries one after another; each may take its period, scale and count from the entry before and its first
     * value is written as a difference from the entry before's (the ranks of a halo exchange start from the same
     * lattice), so an encoder is used for one table only. Not thread-safe.
     */
    static final class Encoder {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private final Header previous = new Header();

        /** Appends one entry: of runs and blocks, varints and packed bits, the shortest. */
        void add(CountRuns r) {
            int n = r.runCount();
            long[] values = new long[n];
            long[] lengths = new long[n];
            for (int i = 0; i < n; i++) {
                values[i] = r.value(i);
                lengths[i] = r.runLength(i);
            }
            byte[] best = entry(0, values, lengths);
            long period = 0;
            for (int i = 0; i < n - 1; i++) {
                period = LongMath.gcd(period, lengths[i]);
            }
            if (period == 0) {
                period = lengths[n - 1];
            }
            long blockCount = 0;
            for (long l : lengths) {
                blockCount += (l + period - 1) / period;
            }
            // blocks only when they are few: a period of 1 over long runs would write every occurrence
            if (period <= Integer.MAX_VALUE / 4 && blockCount <= 2L * n) {
                long[] blockValues = new long[(int) blockCount];
                int b = 0;
                for (int i = 0; i < n; i++) {
                    for (long k = 0; k < (lengths[i] + period - 1) / period; k++) {
                        blockValues[b++] = values[i];
                    }
                }
                byte[] blocks = entry(period, blockValues, null);
                if (blocks.length < best.length) {
                    best = blocks;
                }
            }
            out.writeBytes(best);
            read(best, previous); // the reader's own steps set what the next entry takes from this one
        }

        byte[] toByteArray() {
            return out.toByteArray();
        }

        /** The shorter of the entry with varint and with bit-packed differences. */
        private byte[] entry(long period, long[] values, long[] lengths) {
            byte[] varints = entry(period, values, lengths, false);
            if (values.length < 2) {
                return varints;
            }
            byte[] packed = entry(period, values, lengths, true);
            return packed.length < varints.length ? packed : varints;
        }

        private byte[] entry(long period, long[] values, long[] lengths, boolean packed) {
            ByteArrayOutputStream e = new ByteArrayOutputStream();
            long scale = scale(values);
            boolean repeat = period == previous.period && scale == previous.scale && values.length == previous.count;
            writeVarint(e, period << 2 | (repeat ? 2 : 0) | (packed ? 1 : 0));
            if (!repeat) {
                writeVarint(e, scale);
                writeVarint(e, values.length);
            }
            writeVarint(e, zigzag(values[0] / scale - previous.first / scale));
            long[] z = new long[values.length - 1];
            long widest = 0;
            for (int i = 1; i < values.length; i++) {
                z[i - 1] = zigzag(values[i] / scale - values[i - 1] / scale); // wraps around 2^64, as the reader's sum
                widest |= z[i - 1];
            }
            if (packed) {
                int width = Math.max(1, 64 - Long.numberOfLeadingZeros(widest));
                e.write(width);
                long bits = 0;
                int held = 0;
                for (long v : z) {
                    for (int b = width - 1; b >= 0; b--) {
                        bits = bits << 1 | (v >>> b & 1);
                        if (++held == 8) {
                            e.write((int) bits);
                            bits = 0;
                            held = 0;
                        }
                    }
                }
                if (held > 0) {
                    e.write((int) (bits << (8 - held)));
                }
            } else {
                for (long v : z) {
                    writeVarint(e, v);
                }
            }
            if (lengths != null) {
                for (long l : lengths) {
                    writeVarint(e, l);
                }
            }
            return e.toByteArray();
        }
    }

    /** What an entry leaves for the next: its period, scale, count of values and first value. */
    private static final class Header {
        long period = -1;
        long scale = -1;
        long count = -1;
        long first;
    }

    private static long zigzag(long d) {
        return d << 1 ^ d >> 63;
    }

    /** The greatest common divisor of the values' magnitudes; 1 if they are all 0 or one has no magnitude. */
    private static long scale(long[] values) {
        long g = 0;
        for (long v : values) {
            if (v == Long.MIN_VALUE) {
                return 1;
            }
            g = LongMath.gcd(g, Math.abs(v));
        }
        return g == 0 ? 1 : g;
    }

    /** Unsigned LEB128. */
    private static void writeVarint(ByteArrayOutputStream out, long v) {
        while ((v & ~0x7fL) != 0) {
            out.write((int) ((v & 0x7f) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }

    // ---------------------------------------------------------------- reading

    /**
     * Reads a table's bytes; an {@link IllegalArgumentException} says which entry and byte is bad and what was
     * expected there.
     */
    static CountRunsTable read(byte[] bytes) {
        return read(bytes, new Header());
    }

    private static CountRunsTable read(byte[] bytes, Header previous) {
        List<Entry> entries = new ArrayList<>();
        int[] at = {0};
        while (at[0] < bytes.length) {
            String where = "entry " + entries.size() + " (byte " + at[0] + ")";
            long head = readVarint(bytes, at, where);
            long period = head >>> 2;
            boolean repeat = (head & 2) != 0;
            boolean packed = (head & 1) != 0;
            if (period > Integer.MAX_VALUE / 4) {
                throw new IllegalArgumentException(where + ": expected a period up to 2^29 - 1, got " + period);
            }
            long scale;
            long n;
            if (repeat) {
                if (previous.count < 0 || period != previous.period) {
                    throw new IllegalArgumentException(where + ": expected the period of the entry before ("
                            + previous.period + ") when it repeats that entry's, got " + period);
                }
                scale = previous.scale;
                n = previous.count;
            } else {
                scale = readVarint(bytes, at, where);
                n = readVarint(bytes, at, where);
            }
            if (scale < 1) {
                throw new IllegalArgumentException(where + ": expected a scale >= 1, got " + Long.toUnsignedString(scale));
            }
            // every value after the first takes a bit at least: no more than the bits that are left
            if (n < 1 || n > Integer.MAX_VALUE - 8 || n - 1 > 8L * (bytes.length - at[0])) {
                throw new IllegalArgumentException(where + ": expected a count of values from 1 to what the "
                        + (bytes.length - at[0]) + " bytes left hold, got " + Long.toUnsignedString(n));
            }
            long[] values = new long[(int) n];
            values[0] = (unzigzag(readVarint(bytes, at, where)) + previous.first / scale) * scale;
            if (packed) {
                if (n < 2 || at[0] >= bytes.length) {
                    throw new IllegalArgumentException(where
                            + ": expected 2 values or more and a width for packed differences");
                }
                int width = bytes[at[0]++] & 0xff;
                if (width < 1 || width > 64) {
                    throw new IllegalArgumentException(where + ": expected a bit width from 1 to 64, got " + width);
                }
                long bitsNeeded = (n - 1) * width;
                if ((bitsNeeded + 7) / 8 > bytes.length - at[0]) {
                    throw new IllegalArgumentException(where + ": expected " + (n - 1) + " differences of " + width
                            + " bits, got the end of the table");
                }
                long bit = 8L * at[0];
                for (int i = 1; i < n; i++) {
                    long z = 0;
                    for (int b = 0; b < width; b++, bit++) {
                        z = z << 1 | (bytes[(int) (bit >>> 3)] >>> (7 - (bit & 7)) & 1);
                    }
                    values[i] = (unzigzag(z) + values[i - 1] / scale) * scale;
                }
                at[0] += (int) ((bitsNeeded + 7) / 8);
            } else {
                for (int i = 1; i < n; i++) {
                    values[i] = (unzigzag(readVarint(bytes, at, where)) + values[i - 1] / scale) * scale;
                }
            }
            long[] lengths = null;
            if (period == 0) {
                lengths = new long[(int) n];
                for (int i = 0; i < n; i++) {
                    lengths[i] = readVarint(bytes, at, where);
                    if (lengths[i] < 1) {
                        throw new IllegalArgumentException(where + ": expected run lengths >= 1, got "
                                + Long.toUnsignedString(lengths[i]) + " for run " + i);
                    }
                }
            }
            entries.add(new Entry((int) period, scale, values, lengths));
            previous.period = period;
            previous.scale = scale;
            previous.count = n;
            previous.first = values[0];
        }
        return new CountRunsTable(entries);
    }

    private static long unzigzag(long z) {
        return z >>> 1 ^ -(z & 1);
    }

    private static long readVarint(byte[] bytes, int[] at, String where) {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (at[0] >= bytes.length) {
                throw new IllegalArgumentException(where + ": expected a varint, got the end of the table at byte " + at[0]);
            }
            int b = bytes[at[0]++] & 0xff;
            if (shift == 63 && b > 1) {
                throw new IllegalArgumentException(where + ": expected a varint below 2^64 ending at byte " + (at[0] - 1));
            }
            v |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
        throw new IllegalArgumentException(where + ": expected a varint of at most 10 bytes ending at byte " + (at[0] - 1));
    }

    /**
     * Entry {@code ref} as the counts of an event one rank makes {@code occurrences} times; an
     * {@link IllegalArgumentException} says what does not fit.
     */
    CountRuns runs(long ref, long occurrences) {
        if (ref < 0 || ref >= entries.size()) {
            throw new IllegalArgumentException("an index into " + FIELD + " below " + entries.size());
        }
        Entry e = entries.get((int) ref);
        long[] pairs = new long[2 * e.values.length];
        if (e.lengths != null) {
            for (int i = 0; i < e.values.length; i++) {
                pairs[2 * i] = e.values[i];
                pairs[2 * i + 1] = e.lengths[i];
            }
        } else {
            long n = e.values.length;
            long full = (n - 1) * (long) e.period;
            if (occurrences <= full || occurrences - full > e.period) {
                throw new IllegalArgumentException("entry " + ref + " has " + n + " blocks of " + e.period
                        + " occurrences, which do not make the " + occurrences + " calls one rank makes here");
            }
            for (int i = 0; i < n; i++) {
                pairs[2 * i] = e.values[i];
                pairs[2 * i + 1] = i + 1 < n ? e.period : occurrences - full;
            }
        }
        CountRuns r = CountRuns.of(pairs);
        if (r.occurrences() != occurrences) {
            throw new IllegalArgumentException("entry " + ref + "'s runs add up to " + r.occurrences()
                    + " calls, not the " + occurrences + " one rank makes here (the enclosing loops' iterations)");
        }
        return r;
    }
}
