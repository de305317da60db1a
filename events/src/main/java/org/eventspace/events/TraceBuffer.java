package org.eventspace.events;

import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.agrona.BitUtil;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

/** Leading padding of a {@link TraceBuffer}'s writer position. */
abstract class TraceBufferLeftPad {
    long p00, p01, p02, p03, p04, p05, p06, p07;
}

/**
 * The writer's own copy of the write position: the writer never reads the shared header to write. It is
 * padded: every write stores it, and two collectors' buffers are often allocated one after the other, so
 * unpadded their positions would share a cache line that two cores write on every call.
 */
abstract class TraceBufferWriterPosition extends TraceBufferLeftPad {
    long position;
}

/**
 * A temporal trace buffer: one wait-free writer, any number of readers, each with its own cursor.
 *
 * <p>A bounded ring of trace tuples (EventSpace paper §4.1–4.2) in which a write overwrites the
 * oldest tuple, so the newest {@code capacity} tuples are always there and a trace of an unbounded run costs
 * a fixed few kilobytes per collector.
 *
 * <p><b>Only one writer is allowed per buffer</b>: {@link #write} may be called by one thread at a time, and
 * each call must happen-before the next (a collector belongs to one path position; when the thread running
 * it changes, as below a gred where the last arriver runs it, the gred's release orders the calls). The
 * write is wait-free: a handful of plain stores and three release stores (plain moves on x86), no lock, no
 * CAS, no allocation, no system call. Any number of {@link TraceBufferReader}s may read at the same time, in
 * this process or, through a memory-mapped file, in another; each has its own cursor and learns exactly how
 * many tuples it missed.
 *
 * <p>Layout: {@link TraceBufferLayout} (header, then one 48-byte slot per tuple), over a heap array, a direct
 * buffer or a memory-mapped file ({@link #heap}, {@link #direct}, {@link #mapped}).
 *
 * <p><b>Why not Agrona's {@code BroadcastTransmitter}/{@code CopyBroadcastReceiver}</b> (what we first meant
 * to prefer): its one-writer/many-readers protocol would fit, and its 8-byte record header plus our 40-byte
 * tuple is 48 bytes, the size of our slot. But a receiver that is lapped jumps to the <em>latest</em> record
 * and counts <em>laps</em> ({@code lappedCount()}), not records, and exposes no cursor from which to compute
 * the records it skipped; and because its capacity is a power of two in bytes, 48-byte records wrap with
 * padding records, so positions do not map linearly to tuple counts. The missed count is what makes the
 * gather rate honest (EventSpace paper §4.1), so we keep the slot-per-tuple seqlock ring of comm's {@code Element} on
 * Agrona's {@code AtomicBuffer}: positions are tuple counts, a lagging reader resumes at the oldest tuple
 * still held, and what it skipped is {@code oldest − cursor} exactly.
 */
public final class TraceBuffer extends TraceBufferWriterPosition implements AutoCloseable {
    /** Collector id in the header of a buffer not bound to one collector. */
    public static final int NO_COLLECTOR = -1;
    public static final int MIN_CAPACITY = 2;
    /** Keeps the whole buffer within an int-indexed {@code AtomicBuffer}. */
    public static final int MAX_CAPACITY = 1 << 24;

    private final UnsafeBuffer buffer;
    private final int capacity;
    private final int mask;
    private final int collectorId;
    private final Path file;
    private final MappedByteBuffer mapped;
    /** Trailing padding: with {@link TraceBufferLeftPad}, keeps the writer's position off other objects' lines. */
    long p10, p11, p12, p13, p14, p15, p16, p17;

    private TraceBuffer(UnsafeBuffer buffer, int capacity, int collectorId, Path file, MappedByteBuffer mapped) {
        this.buffer = buffer;
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.collectorId = collectorId;
        this.file = file;
        this.mapped = mapped;
        initialise();
    }

    /** A buffer of {@code capacity} tuples on the Java heap (tests, and buffers nobody outside the JVM reads). */
    public static TraceBuffer heap(int capacity) {
        return heap(capacity, NO_COLLECTOR);
    }

    public static TraceBuffer heap(int capacity, int collectorId) {
        int length = checkedLength(capacity, collectorId);
        return new TraceBuffer(new UnsafeBuffer(new byte[length]), capacity, collectorId, null, null);
    }

    /** A buffer of {@code capacity} tuples off-heap, in a direct buffer. */
    public static TraceBuffer direct(int capacity) {
        return direct(capacity, NO_COLLECTOR);
    }

    public static TraceBuffer direct(int capacity, int collectorId) {
        int length = checkedLength(capacity, collectorId);
        return new TraceBuffer(new UnsafeBuffer(ByteBuffer.allocateDirect(length)), capacity, collectorId, null, null);
    }

    /**
     * A buffer of {@code capacity} tuples in a memory-mapped file, created or replaced, that other processes on
     * the host can read with {@link TraceBufferReader#open}. The file outlives the buffer (it is the post-mortem
     * trace); {@link #close()} only unmaps it.
     */
    public static TraceBuffer mapped(Path file, int capacity) throws IOException {
        return mapped(file, capacity, NO_COLLECTOR);
    }

    /**
     * As {@link #mapped(Path, int)}, for collector {@code collectorId}. The file's every byte is written before it is
     * mapped, so its blocks exist on disk from the start: a full disk (or a file size limit) fails here, with an
     * {@code IOException} naming the file and the bytes it needed, and never later, inside a collector's write, where
     * a store into a page the file system cannot back would kill the process (SIGBUS). On file systems that allocate
     * on every write (copy-on-write: btrfs, ZFS) that guarantee is weaker; see docs/RELIABILITY.md.
     */
    public static TraceBuffer mapped(Path file, int capacity, int collectorId) throws IOException {
        int length = checkedLength(capacity, collectorId);
        MappedByteBuffer mapped;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            preallocate(channel, length, file);
            mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, length);
        }
        return new TraceBuffer(new UnsafeBuffer(mapped), capacity, collectorId, file, mapped);
    }

    private static final int ZEROS_LENGTH = 1 << 16;

    /** Writes {@code length} zero bytes at the start of {@code channel}, so that no page of the mapping is a hole. */
    private static void preallocate(FileChannel channel, int length, Path file) throws IOException {
        ByteBuffer zeros = ByteBuffer.allocate(Math.min(ZEROS_LENGTH, length));
        long written = 0;
        try {
            while (written < length) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), length - written));
                written += channel.write(zeros, written);
            }
        } catch (IOException e) {
            throw new IOException("cannot give trace file " + file + " its " + length + " bytes (" + written
                    + " written): " + e.getMessage() + "; is the disk full?", e);
        }
    }

    private static int checkedLength(int capacity, int collectorId) {
        if (capacity < MIN_CAPACITY || capacity > MAX_CAPACITY || !BitUtil.isPowerOfTwo(capacity)) {
            throw new IllegalArgumentException("trace buffer capacity must be a power of two in [" + MIN_CAPACITY
                    + ", " + MAX_CAPACITY + "], capacity=" + capacity);
        }
        if (collectorId < NO_COLLECTOR) {
            throw new IllegalArgumentException("collector id must be >= 0 (or NO_COLLECTOR), collectorId=" + collectorId);
        }
        return (int) TraceBufferLayout.bufferLength(capacity);
    }

    private void initialise() {
        ByteOrder le = ByteOrder.LITTLE_ENDIAN;
        for (int i = 0; i < capacity; i++) {
            buffer.putLong(slotOffset(i) + TraceBufferLayout.SLOT_SEQUENCE_OFFSET, -1L);
        }
        buffer.putLong(TraceBufferLayout.WRITE_POSITION_OFFSET, 0L);
        buffer.putShort(TraceBufferLayout.VERSION_OFFSET, TraceBufferLayout.VERSION, le);
        buffer.putByte(TraceBufferLayout.BYTE_ORDER_OFFSET, ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN
                ? TraceBufferLayout.BIG_ENDIAN : TraceBufferLayout.LITTLE_ENDIAN);
        buffer.putInt(TraceBufferLayout.TUPLE_LENGTH_OFFSET, TraceTupleLayout.LENGTH, le);
        buffer.putInt(TraceBufferLayout.SLOT_LENGTH_OFFSET, TraceBufferLayout.SLOT_LENGTH, le);
        buffer.putInt(TraceBufferLayout.CAPACITY_OFFSET, capacity, le);
        buffer.putInt(TraceBufferLayout.COLLECTOR_ID_OFFSET, collectorId, le);
        // The magic goes last, with a release: a reader in another process that sees it sees a whole header.
        buffer.putIntOrdered(TraceBufferLayout.MAGIC_OFFSET,
                le == ByteOrder.nativeOrder() ? TraceBufferLayout.MAGIC : Integer.reverseBytes(TraceBufferLayout.MAGIC));
    }

    static int slotOffset(int index) {
        return TraceBufferLayout.HEADER_LENGTH + index * TraceBufferLayout.SLOT_LENGTH;
    }

    /** Writes one tuple with no flags. See {@link #write(int, int, int, long, long, long, long)}. */
    public void write(int collectorId, int opType, long sequence, long value, long startNs, long endNs) {
        write(collectorId, opType, 0, sequence, value, startNs, endNs);
    }

    /**
     * Appends one tuple, overwriting the oldest when the buffer is full. Wait-free; allocates nothing; only
     * the buffer's one writer may call it. {@code opType} and {@code flags} are stored as 16-bit fields
     * ({@link TraceOp}).
     */
    public void write(int collectorId, int opType, int flags, long sequence, long value, long startNs, long endNs) {
        long p = position;
        int slot = slotOffset((int) p & mask);
        // Seqlock, as in comm's Element: mark the slot as being written, and only then touch the tuple.
        buffer.putLongOrdered(slot, -(p + 1));
        VarHandle.storeStoreFence();
        int tuple = slot + TraceBufferLayout.SLOT_TUPLE_OFFSET;
        buffer.putInt(tuple + TraceTupleLayout.COLLECTOR_ID_OFFSET, collectorId);
        buffer.putShort(tuple + TraceTupleLayout.OP_TYPE_OFFSET, (short) opType);
        buffer.putShort(tuple + TraceTupleLayout.FLAGS_OFFSET, (short) flags);
        buffer.putLong(tuple + TraceTupleLayout.SEQUENCE_OFFSET, sequence);
        buffer.putLong(tuple + TraceTupleLayout.VALUE_OFFSET, value);
        buffer.putLong(tuple + TraceTupleLayout.START_NS_OFFSET, startNs);
        buffer.putLong(tuple + TraceTupleLayout.END_NS_OFFSET, endNs);
        buffer.putLongOrdered(slot, p);
        buffer.putLongOrdered(TraceBufferLayout.WRITE_POSITION_OFFSET, p + 1);
        position = p + 1;
    }

    /** Tuples ever written; the position the next write gets. May be called from any thread. */
    public long writePosition() {
        return buffer.getLongVolatile(TraceBufferLayout.WRITE_POSITION_OFFSET);
    }

    public int capacity() {
        return capacity;
    }

    /** The collector id in the header, or {@link #NO_COLLECTOR}. */
    public int collectorId() {
        return collectorId;
    }

    /** Bytes the buffer takes, header included. */
    public long lengthBytes() {
        return TraceBufferLayout.bufferLength(capacity);
    }

    /** The mapped file, or null for a heap or direct buffer. */
    public Path file() {
        return file;
    }

    /**
     * A reader of this buffer positioned at the oldest tuple held, with its own cursor. The reader is for one
     * thread; make one per reading thread.
     */
    public TraceBufferReader newReader() {
        return new TraceBufferReader(new UnsafeBuffer(buffer, 0, buffer.capacity()), "trace buffer " + this, null);
    }

    /**
     * Unmaps a mapped buffer. Call it only once the writer and every in-process reader stopped: a write into an
     * unmapped buffer crashes the JVM. The file stays.
     */
    @Override
    public void close() {
        if (mapped != null) {
            IoUtil.unmap(mapped);
        }
    }

    @Override
    public String toString() {
        return "TraceBuffer{collector=" + collectorId + ", capacity=" + capacity
                + (file != null ? ", file=" + file : "") + '}';
    }
}
