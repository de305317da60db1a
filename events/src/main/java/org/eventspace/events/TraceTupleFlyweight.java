package org.eventspace.events;

import java.nio.ByteOrder;

import org.agrona.DirectBuffer;

/**
 * Decodes one trace tuple in place ({@link TraceTupleLayout}), in the byte order it was written in, so that a
 * reader on any host reads any writer's tuples (paper §4.1: native order on write, parsed on read). Wrapping
 * allocates nothing; one flyweight serves a whole stream of tuples.
 *
 * <p>Not thread-safe. The decoded values are those in the wrapped bytes at the time of each call: wrap only
 * bytes that do not change underneath (a {@link TraceBufferReader} wraps it around its private copy).
 */
public final class TraceTupleFlyweight {
    private DirectBuffer buffer;
    private int offset;
    private ByteOrder order = ByteOrder.nativeOrder();

    public TraceTupleFlyweight wrap(DirectBuffer buffer, int offset, ByteOrder order) {
        if (offset < 0 || offset > buffer.capacity() - TraceTupleLayout.LENGTH) {
            throw new IndexOutOfBoundsException("tuple of " + TraceTupleLayout.LENGTH + " bytes at offset=" + offset
                    + " does not fit in a buffer of capacity=" + buffer.capacity());
        }
        this.buffer = buffer;
        this.offset = offset;
        this.order = order;
        return this;
    }

    public int collectorId() {
        return buffer.getInt(offset + TraceTupleLayout.COLLECTOR_ID_OFFSET, order);
    }

    /** A {@link TraceOp} code. */
    public int opType() {
        return buffer.getShort(offset + TraceTupleLayout.OP_TYPE_OFFSET, order) & 0xFFFF;
    }

    /** {@link TraceOp} flag bits. */
    public int flags() {
        return buffer.getShort(offset + TraceTupleLayout.FLAGS_OFFSET, order) & 0xFFFF;
    }

    public long sequence() {
        return buffer.getLong(offset + TraceTupleLayout.SEQUENCE_OFFSET, order);
    }

    public long value() {
        return buffer.getLong(offset + TraceTupleLayout.VALUE_OFFSET, order);
    }

    /** t_down: {@code System.nanoTime()} before the collector called the next wrapper. */
    public long startNs() {
        return buffer.getLong(offset + TraceTupleLayout.START_NS_OFFSET, order);
    }

    /** t_up: {@code System.nanoTime()} after the next wrapper returned. */
    public long endNs() {
        return buffer.getLong(offset + TraceTupleLayout.END_NS_OFFSET, order);
    }

    /** Time spent below the collector, in ns. */
    public long durationNs() {
        return endNs() - startNs();
    }

    public boolean failed() {
        return (flags() & TraceOp.FLAG_FAILED) != 0;
    }

    @Override
    public String toString() {
        return buffer == null ? "TraceTuple{}" : "TraceTuple{collector=" + collectorId() + ", op=" + TraceOp.name(opType())
                + ", flags=0x" + Integer.toHexString(flags()) + ", seq=" + sequence() + ", value=" + value()
                + ", startNs=" + startNs() + ", endNs=" + endNs() + ", durationNs=" + durationNs() + '}';
    }
}
