package org.eventspace.scope;

import static org.eventspace.scope.ScopeFrameLayout.BUDGET_WORD;
import static org.eventspace.scope.ScopeFrameLayout.CONTROL_SHIFT;
import static org.eventspace.scope.ScopeFrameLayout.DROPPED_WORD;
import static org.eventspace.scope.ScopeFrameLayout.GATHERED_WORD;
import static org.eventspace.scope.ScopeFrameLayout.LEVELS_SHIFT;
import static org.eventspace.scope.ScopeFrameLayout.LEVEL_BYTES_WORD;
import static org.eventspace.scope.ScopeFrameLayout.MAGIC;
import static org.eventspace.scope.ScopeFrameLayout.MAGIC_SHIFT;
import static org.eventspace.scope.ScopeFrameLayout.MAGIC_WORD;
import static org.eventspace.scope.ScopeFrameLayout.MAX_LEVELS;
import static org.eventspace.scope.ScopeFrameLayout.PACKET_WORDS_SHIFT;
import static org.eventspace.scope.ScopeFrameLayout.PRODUCED_WORD;
import static org.eventspace.scope.ScopeFrameLayout.RAW_BYTES_WORD;
import static org.eventspace.scope.ScopeFrameLayout.SIZES_WORD;
import static org.eventspace.scope.ScopeFrameLayout.VERSION;
import static org.eventspace.scope.ScopeFrameLayout.VERSION_SHIFT;

import java.util.Arrays;

import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.Message;
import org.eventspace.scope.filter.Packet;
import org.eventspace.scope.filter.PacketCodec;

/** Reads and writes {@link ScopeFrameLayout} frames in comm messages. Stateless; {@link Counts} is not thread-safe. */
final class ScopeFrame {
    private static final long INT_MASK = 0xFFFF_FFFFL;

    private ScopeFrame() {
    }

    /** The measures a frame carries up, summed over the children of a node. */
    static final class Counts {
        long produced;
        long gathered;
        long dropped;
        long rawBytes;
        int levels;
        final long[] levelBytes = new long[MAX_LEVELS];

        void clear() {
            produced = 0;
            gathered = 0;
            dropped = 0;
            rawBytes = 0;
            Arrays.fill(levelBytes, 0, levels, 0);
            levels = 0;
        }

        long[] levelBytes() {
            return Arrays.copyOf(levelBytes, levels);
        }
    }

    /** Writes a command going down: control, the time the receiver has, and {@code packet}. */
    static void writeDown(Message m, int control, long budgetNanos, Packet packet) {
        int packetWords = PacketCodec.encodedLength(packet);
        m.length(ScopeFrameLayout.frameWords(0, packetWords));
        long[] w = m.words();
        w[MAGIC_WORD] = magic(control);
        w[SIZES_WORD] = packetWords & INT_MASK;
        w[BUDGET_WORD] = budgetNanos;
        w[PRODUCED_WORD] = 0;
        w[GATHERED_WORD] = 0;
        w[DROPPED_WORD] = 0;
        w[RAW_BYTES_WORD] = 0;
        PacketCodec.encode(packet, w, ScopeFrameLayout.packetWord(0));
    }

    /**
     * Writes the answer of a node of level {@code level}: {@code counts} (its children's sums, or a leaf's own),
     * and {@code packet}. The bytes of this very frame are added to {@code counts} at {@code level} before the
     * frame is written, so every node reports what it sends up itself.
     */
    static void writeUp(Message m, int control, Counts counts, int level, Packet packet, String node) {
        if (level >= MAX_LEVELS) {
            throw new IllegalStateException("scope node " + node + " is at level " + level + "; a scope has at most "
                    + MAX_LEVELS + " levels");
        }
        int packetWords = PacketCodec.encodedLength(packet);
        int levels = Math.max(counts.levels, level + 1);
        counts.levels = levels;
        int words = ScopeFrameLayout.frameWords(levels, packetWords);
        counts.levelBytes[level] += (long) words * Long.BYTES;
        m.length(words);
        long[] w = m.words();
        w[MAGIC_WORD] = magic(control);
        w[SIZES_WORD] = ((levels & INT_MASK) << LEVELS_SHIFT) | ((packetWords & INT_MASK) << PACKET_WORDS_SHIFT);
        w[BUDGET_WORD] = 0;
        w[PRODUCED_WORD] = counts.produced;
        w[GATHERED_WORD] = counts.gathered;
        w[DROPPED_WORD] = counts.dropped;
        w[RAW_BYTES_WORD] = counts.rawBytes;
        System.arraycopy(counts.levelBytes, 0, w, LEVEL_BYTES_WORD, levels);
        PacketCodec.encode(packet, w, ScopeFrameLayout.packetWord(levels));
    }

    /**
     * The control word of the frame in {@code m}, after checking its magic, version and sizes.
     *
     * @param at what reads it, for the error: {@code "scope node scope.leaf.h1"}.
     */
    static int control(Message m, String at) {
        if (m.length() < ScopeFrameLayout.HEADER_WORDS) {
            throw new CommException(at + ": message of " + m.length() + " words is shorter than a scope frame header of "
                    + ScopeFrameLayout.HEADER_WORDS + " words");
        }
        long first = m.words()[MAGIC_WORD];
        int magic = (int) (first >>> MAGIC_SHIFT);
        if (magic != MAGIC) {
            throw new CommException(at + ": not a scope frame, magic=0x" + Integer.toHexString(magic) + ", expected 0x"
                    + Integer.toHexString(MAGIC));
        }
        int version = (int) ((first >>> VERSION_SHIFT) & 0xFFFF);
        if (version != VERSION) {
            throw new CommException(at + ": scope frame version=" + version + ", this node speaks " + VERSION);
        }
        int levels = levels(m);
        int packetWords = packetWords(m);
        if (levels < 0 || levels > MAX_LEVELS || packetWords < 0
                || (long) ScopeFrameLayout.frameWords(levels, 0) + packetWords != m.length()) {
            throw new CommException(at + ": malformed scope frame: levels=" + levels + ", packetWords=" + packetWords
                    + ", message length=" + m.length() + " words");
        }
        return (int) ((first >>> CONTROL_SHIFT) & 0xFFFF);
    }

    static long budget(Message m) {
        return m.words()[BUDGET_WORD];
    }

    /** The packet of the frame in {@code m} (checked by {@link #control} first). */
    static Packet packet(Message m, String at) {
        try {
            return PacketCodec.decode(m.words(), ScopeFrameLayout.packetWord(levels(m)), packetWords(m));
        } catch (IllegalArgumentException e) {
            throw new CommException(at + ": " + e.getMessage(), e);
        }
    }

    /** Adds the measures of the answer in {@code m} to {@code into}. */
    static void addCounts(Message m, Counts into) {
        long[] w = m.words();
        into.produced += w[PRODUCED_WORD];
        into.gathered += w[GATHERED_WORD];
        into.dropped += w[DROPPED_WORD];
        into.rawBytes += w[RAW_BYTES_WORD];
        int levels = levels(m);
        for (int l = 0; l < levels; l++) {
            into.levelBytes[l] += w[LEVEL_BYTES_WORD + l];
        }
        into.levels = Math.max(into.levels, levels);
    }

    private static int levels(Message m) {
        return (int) (m.words()[SIZES_WORD] >>> LEVELS_SHIFT);
    }

    private static int packetWords(Message m) {
        return (int) ((m.words()[SIZES_WORD] >>> PACKET_WORDS_SHIFT) & INT_MASK);
    }

    private static long magic(int control) {
        return ((MAGIC & INT_MASK) << MAGIC_SHIFT) | ((long) VERSION << VERSION_SHIFT) | ((control & 0xFFFFL) << CONTROL_SHIFT);
    }

    static String controlName(int control) {
        return switch (control) {
            case Packet.INIT -> "INIT";
            case Packet.PULL -> "PULL";
            case Packet.FIN -> "FIN";
            case Packet.FINACK -> "FINACK";
            default -> "control " + control;
        };
    }
}
