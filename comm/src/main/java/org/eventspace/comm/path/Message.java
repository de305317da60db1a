package org.eventspace.comm.path;

import java.util.Arrays;

/** Leading padding of a {@link Message}. */
abstract class MessageLeftPad {
    long p00, p01, p02, p03, p04, p05, p06, p07;
}

/** The fields of a {@link Message}, between its paddings. */
abstract class MessageFields extends MessageLeftPad {
    ReduceOp op = ReduceOp.SUM;
    ValueType type = ValueType.LONG;
    long sequence;
    int length;
    long[] words;
    String element = "";
    long upClock;
    long downClock;
    byte tag;
    byte until;
}

/**
 * The mutable unit of work that travels down a path and comes back up with the result.
 *
 * <p>A message carries an operation ({@link ReduceOp}), the value type, a sequence number and a payload of
 * 64-bit words. Doubles travel as their raw bits ({@link Double#doubleToRawLongBits}), so one payload layout
 * serves long, double and the slot-placement collectives (broadcast, gather, scatter, all-to-all).
 *
 * <p>Each path owns its message and reuses it for every call: nothing on the hot path allocates. A message
 * grows its word array only when a caller asks for more words than it ever asked before.
 *
 * <p>Not thread-safe: a message belongs to one thread at a time; handing it to another thread (a service
 * thread of another host) must go through a happens-before edge, as every transport does.
 */
public final class Message extends MessageFields {
    /** Trailing padding: with {@link MessageLeftPad}, keeps two ranks' messages off each other's cache lines. */
    long p10, p11, p12, p13, p14, p15, p16, p17;

    public Message(int capacityWords) {
        words = paddedWords(Math.max(1, capacityWords));
    }

    /**
     * A word array with a cache line of slack after the words asked for: the messages of different ranks are
     * often allocated one after the other, and are written on every call.
     */
    private static long[] paddedWords(int words) {
        return new long[words + 8];
    }

    public ReduceOp op() {
        return op;
    }

    public ValueType type() {
        return type;
    }

    public long sequence() {
        return sequence;
    }

    public int length() {
        return length;
    }

    /** The payload array; only the first {@link #length()} words are meaningful. */
    public long[] words() {
        return words;
    }

    /** Name of the element a point-to-point write targets; empty for collectives. */
    public String element() {
        return element;
    }

    public Message op(ReduceOp op) {
        this.op = op;
        return this;
    }

    public Message type(ValueType type) {
        this.type = type;
        return this;
    }

    public Message sequence(long sequence) {
        this.sequence = sequence;
        return this;
    }

    /**
     * The traffic tag ({@link org.eventspace.comm.traffic.TrafficTag}): the application operation and phase this
     * message belongs to; 0 for traffic that is not the application's. Set by the rank's {@code Comm}, carried across
     * hosts, read where the message is handed to the network.
     */
    public byte tag() {
        return tag;
    }

    public Message tag(byte tag) {
        this.tag = tag;
        return this;
    }

    /**
     * The {@link Condition#code()} of a conditional allreduce ({@code Comm.allreduceUntil}), 0 for every other call.
     * Set by the rank's {@code Comm}, carried down across hosts (greds pass the last arriver's message on), read by a
     * cluster root that can decide the condition on partial results.
     */
    public byte until() {
        return until;
    }

    public Message until(byte until) {
        this.until = until;
        return this;
    }

    public Message element(String element) {
        this.element = element;
        return this;
    }

    /** Sets the payload length, growing the word array if needed; existing words up to the old length are kept. */
    public Message length(int length) {
        if (length < 0) {
            throw new IllegalArgumentException("length must be >= 0, length=" + length);
        }
        if (length > words.length - 8) {
            words = Arrays.copyOf(words, Math.max(length, 2 * (words.length - 8)) + 8);
        }
        this.length = length;
        return this;
    }

    public long word(int i) {
        return words[i];
    }

    public Message word(int i, long value) {
        words[i] = value;
        return this;
    }

    /**
     * Hands a clock reading back up to the wrapper above that takes one ({@link #takeUpClock}); 0 means none.
     *
     * <p>Why a message carries a clock reading: the event collector below a gred reads t3 just before the gred
     * releases its waiters, and the last arriver, whose message it is, would read its t4 right after; it may take
     * that reading instead of paying for its own (one read shared at a wrapper boundary). Only wrappers
     * that know they are placed so use it; a message crossing hosts never carries it ({@link #copyFrom} clears it).
     */
    public void offerUpClock(long nanos) {
        upClock = nanos;
    }

    /** The reading offered from below and not yet taken, or 0; clears it. */
    public long takeUpClock() {
        long t = upClock;
        upClock = 0;
        return t;
    }

    /**
     * Hands a clock reading down to the wrapper below that takes one ({@link #takeDownClock}); 0 means none. The
     * collector above a gred of one port offers its t1, which is the t2 of the collector below that gred: the rank's
     * thread passes straight through, so both name the same instant (one read shared at a wrapper boundary).
     */
    public void offerDownClock(long nanos) {
        downClock = nanos;
    }

    /** The reading offered from above and not yet taken, or 0; clears it. */
    public long takeDownClock() {
        long t = downClock;
        downClock = 0;
        return t;
    }

    /** Copies header and payload of {@code source} into this message; a clock reading stays on its host. */
    public Message copyFrom(Message source) {
        op = source.op;
        type = source.type;
        sequence = source.sequence;
        element = source.element;
        tag = source.tag;
        until = source.until;
        upClock = 0;
        downClock = 0;
        length(source.length);
        System.arraycopy(source.words, 0, words, 0, source.length);
        return this;
    }

    /** Copies only the payload (the result coming back up) of {@code source}, keeping op and element. */
    public Message copyPayloadFrom(Message source) {
        sequence = source.sequence;
        length(source.length);
        System.arraycopy(source.words, 0, words, 0, source.length);
        return this;
    }

    @Override
    public String toString() {
        return "Message{op=" + op + ", type=" + type + ", seq=" + sequence + ", length=" + length + ", tag=" + tag
                + (element.isEmpty() ? "" : ", element=" + element) + '}';
    }
}
