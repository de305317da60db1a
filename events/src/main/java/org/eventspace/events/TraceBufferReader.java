package org.eventspace.events;

import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.agrona.BitUtil;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One reader's cursor over a {@link TraceBuffer}. Not thread-safe: one reader per reading thread.
 *
 * <p>It holds a position and an exact count of the tuples it missed because the writer overwrote them first
 * (that count is how the gather rate is measured honestly: EventSpace paper §4.1, "Temporal trace storage").
 *
 * <p>Any number of readers may read one buffer at once, in this process ({@link TraceBuffer#newReader()}) or in another ({@link #open(Path)}), while its writer
 * writes; readers never write to the buffer, so they never slow the writer down beyond sharing cache lines.
 *
 * <p>A read copies the tuple's 40 bytes into the reader's own scratch buffer between two checks of the slot's
 * seqlock ({@link TraceBufferLayout}), so a tuple handed out is never torn, and then points the caller's
 * {@link TraceTupleFlyweight} at the copy: nothing is allocated per tuple. The flyweight is valid until this
 * reader's next read.
 */
public final class TraceBufferReader implements AutoCloseable {
    private final UnsafeBuffer buffer;
    private final String source;
    private final MappedByteBuffer mapped;
    private final int capacity;
    private final int collectorId;
    private final ByteOrder order;
    /** Whether the buffer's hot words are in the other byte order than this JVM's. */
    private final boolean swapped;
    private final UnsafeBuffer scratch = new UnsafeBuffer(new byte[TraceTupleLayout.LENGTH]);
    private long cursor;
    private long missed;

    TraceBufferReader(UnsafeBuffer buffer, String source, MappedByteBuffer mapped) {
        this.buffer = buffer;
        this.source = source;
        this.mapped = mapped;
        ByteOrder le = ByteOrder.LITTLE_ENDIAN;
        this.capacity = buffer.getInt(TraceBufferLayout.CAPACITY_OFFSET, le);
        this.collectorId = buffer.getInt(TraceBufferLayout.COLLECTOR_ID_OFFSET, le);
        this.order = buffer.getByte(TraceBufferLayout.BYTE_ORDER_OFFSET) == TraceBufferLayout.BIG_ENDIAN
                ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
        this.swapped = order != ByteOrder.nativeOrder();
        this.cursor = Math.max(0, writePosition() - capacity);
    }

    /**
     * Opens the trace buffer in {@code file} read-only, positioned at the oldest tuple it holds. The writer may
     * be another process and may still be writing.
     *
     * @throws IOException naming the file and what is wrong with it if it cannot be read or is not a trace
     *                     buffer this version understands.
     */
    public static TraceBufferReader open(Path file) throws IOException {
        MappedByteBuffer mapped;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size < TraceBufferLayout.HEADER_LENGTH) {
                throw new IOException("trace buffer file " + file + " is too short for a header: size=" + size
                        + " bytes, header=" + TraceBufferLayout.HEADER_LENGTH + " bytes");
            }
            if (size > Integer.MAX_VALUE) {
                throw new IOException("trace buffer file " + file + " is too large: size=" + size + " bytes");
            }
            mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, size);
        }
        UnsafeBuffer buffer = new UnsafeBuffer(mapped);
        try {
            checkHeader(file, buffer);
        } catch (IOException e) {
            IoUtil.unmap(mapped);
            throw e;
        }
        return new TraceBufferReader(buffer, "trace buffer file " + file, mapped);
    }

    private static void checkHeader(Path file, UnsafeBuffer buffer) throws IOException {
        ByteOrder le = ByteOrder.LITTLE_ENDIAN;
        int magic = buffer.getInt(TraceBufferLayout.MAGIC_OFFSET, le);
        if (magic != TraceBufferLayout.MAGIC) {
            throw new IOException("trace buffer file " + file + " is not a trace buffer: magic=0x"
                    + Integer.toHexString(magic) + ", expected 0x" + Integer.toHexString(TraceBufferLayout.MAGIC));
        }
        short version = buffer.getShort(TraceBufferLayout.VERSION_OFFSET, le);
        if (version != TraceBufferLayout.VERSION) {
            throw new IOException("trace buffer file " + file + " has version=" + version
                    + ", this reader reads version " + TraceBufferLayout.VERSION);
        }
        byte order = buffer.getByte(TraceBufferLayout.BYTE_ORDER_OFFSET);
        if (order != TraceBufferLayout.LITTLE_ENDIAN && order != TraceBufferLayout.BIG_ENDIAN) {
            throw new IOException("trace buffer file " + file + " has an unknown byte order code=" + order);
        }
        int tupleLength = buffer.getInt(TraceBufferLayout.TUPLE_LENGTH_OFFSET, le);
        int slotLength = buffer.getInt(TraceBufferLayout.SLOT_LENGTH_OFFSET, le);
        if (tupleLength != TraceTupleLayout.LENGTH || slotLength != TraceBufferLayout.SLOT_LENGTH) {
            throw new IOException("trace buffer file " + file + " has tupleLength=" + tupleLength + ", slotLength="
                    + slotLength + "; version " + TraceBufferLayout.VERSION + " has " + TraceTupleLayout.LENGTH
                    + " and " + TraceBufferLayout.SLOT_LENGTH);
        }
        int capacity = buffer.getInt(TraceBufferLayout.CAPACITY_OFFSET, le);
        if (capacity < TraceBuffer.MIN_CAPACITY || capacity > TraceBuffer.MAX_CAPACITY || !BitUtil.isPowerOfTwo(capacity)) {
            throw new IOException("trace buffer file " + file + " has an invalid capacity=" + capacity);
        }
        long needed = TraceBufferLayout.bufferLength(capacity);
        if (buffer.capacity() < needed) {
            throw new IOException("trace buffer file " + file + " is truncated: size=" + buffer.capacity()
                    + " bytes, capacity=" + capacity + " needs " + needed + " bytes");
        }
    }

    /**
     * Reads the tuple at the cursor into {@code tuple} and advances, if the writer wrote it. If the writer
     * overwrote tuples this reader had not read, the cursor first jumps to the oldest tuple still held and
     * {@link #missed()} grows by exactly the number skipped.
     *
     * @return true if a tuple was read; false if the reader is at the write position.
     */
    public boolean readNext(TraceTupleFlyweight tuple) {
        while (true) {
            long head = writePosition();
            if (cursor >= head) {
                return false;
            }
            long oldest = head - capacity;
            if (cursor < oldest) {
                missed += oldest - cursor;
                cursor = oldest;
            }
            int slot = TraceBuffer.slotOffset((int) (cursor & (capacity - 1)));
            if (slotSequence(slot) == cursor) {
                scratch.putBytes(0, buffer, slot + TraceBufferLayout.SLOT_TUPLE_OFFSET, TraceTupleLayout.LENGTH);
                VarHandle.loadLoadFence();
                if (slotSequence(slot) == cursor) {
                    cursor++;
                    tuple.wrap(scratch, 0, order);
                    return true;
                }
            }
            // A slot below the write position holds the tuple at the cursor or a later one: the writer lapped us
            // during this read, so the tuple at the cursor is gone. Count it and move on.
            long to = Math.max(cursor + 1, writePosition() - capacity);
            missed += to - cursor;
            cursor = to;
        }
    }

    /** Moves the cursor to the write position, so that only tuples written from now on are read; counts nothing. */
    public TraceBufferReader seekToEnd() {
        cursor = writePosition();
        return this;
    }

    /** Tuples the writer has ever written. */
    public long writePosition() {
        long position = buffer.getLongVolatile(TraceBufferLayout.WRITE_POSITION_OFFSET);
        return swapped ? Long.reverseBytes(position) : position;
    }

    private long slotSequence(int slot) {
        long sequence = buffer.getLongVolatile(slot + TraceBufferLayout.SLOT_SEQUENCE_OFFSET);
        return swapped ? Long.reverseBytes(sequence) : sequence;
    }

    /**
     * The seqlock word of slot {@code index} (0 ≤ index &lt; capacity): the position of the tuple it holds, -1 if
     * never written, {@code -(p + 1)} while tuple p is being written. For checking a file against its header.
     */
    public long sequenceOfSlot(int index) {
        if (index < 0 || index >= capacity) {
            throw new IllegalArgumentException("slot index=" + index + " is outside 0.." + (capacity - 1));
        }
        return slotSequence(TraceBuffer.slotOffset(index));
    }

    /** Position of the next tuple this reader reads (tuples read + missed since position 0 or its start). */
    public long position() {
        return cursor;
    }

    /** Tuples this reader skipped because they were overwritten before it read them. */
    public long missed() {
        return missed;
    }

    public int capacity() {
        return capacity;
    }

    /** The collector id in the buffer's header, or {@link TraceBuffer#NO_COLLECTOR}. */
    public int collectorId() {
        return collectorId;
    }

    /** The byte order the tuples are written in (the writer's native order). */
    public ByteOrder byteOrder() {
        return order;
    }

    /** Unmaps a file opened with {@link #open}; the reader must not be used afterwards. */
    @Override
    public void close() {
        if (mapped != null) {
            IoUtil.unmap(mapped);
        }
    }

    @Override
    public String toString() {
        return "TraceBufferReader{" + source + ", cursor=" + cursor + ", missed=" + missed + '}';
    }
}
