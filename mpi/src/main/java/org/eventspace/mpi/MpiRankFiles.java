package org.eventspace.mpi;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.eventspace.events.TraceBufferReader;

/**
 * One rank's two files ({@code rank-<R>.meta}, {@code rank-<R>.trace}), mapped read-only while the rank may still
 * write them, or after it ended or died. Not thread-safe: one reader (a {@link NodeAgent}) per instance.
 */
final class MpiRankFiles implements AutoCloseable {
    private final Path meta;
    private final MappedByteBuffer mapped;
    private final UnsafeBuffer buffer;
    private final ByteOrder order;
    private final TraceBufferReader trace;
    private final int host;

    private MpiRankFiles(Path meta, MappedByteBuffer mapped, TraceBufferReader trace, int host) {
        this.meta = meta;
        this.mapped = mapped;
        this.buffer = new UnsafeBuffer(mapped);
        this.order = buffer.getByte(MpiRankMetaLayout.BYTE_ORDER_OFFSET) == 1 ? ByteOrder.BIG_ENDIAN
                : ByteOrder.LITTLE_ENDIAN;
        this.trace = trace;
        this.host = host;
    }

    /**
     * Opens the rank whose meta file is {@code meta}, or returns null while the rank has not finished writing its
     * headers (a rank between MPI_Init and its first call). {@code host} is the agent's host index.
     *
     * @throws IOException naming the file if it is not a meta file of this version or its trace buffer is not one.
     */
    static MpiRankFiles open(Path meta, int host) throws IOException {
        String name = meta.getFileName().toString();
        Path tracePath = meta.resolveSibling(name.substring(0, name.length() - ".meta".length()) + ".trace");
        MappedByteBuffer mapped;
        try (FileChannel channel = FileChannel.open(meta, StandardOpenOption.READ)) {
            if (channel.size() < MpiRankMetaLayout.LENGTH) {
                return null;
            }
            mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, MpiRankMetaLayout.LENGTH);
        }
        UnsafeBuffer b = new UnsafeBuffer(mapped);
        int magic = b.getIntVolatile(MpiRankMetaLayout.MAGIC_OFFSET);
        if (magic == 0) {
            IoUtil.unmap(mapped);
            return null;
        }
        short version = b.getShort(MpiRankMetaLayout.VERSION_OFFSET, ByteOrder.LITTLE_ENDIAN);
        if (Integer.reverseBytes(magic) != MpiRankMetaLayout.MAGIC && magic != MpiRankMetaLayout.MAGIC
                || version != MpiRankMetaLayout.VERSION) {
            IoUtil.unmap(mapped);
            throw new IOException("MPI rank meta file " + meta + " has magic=0x" + Integer.toHexString(magic)
                    + ", version=" + version + "; this reader reads magic 0x" + Integer.toHexString(MpiRankMetaLayout.MAGIC)
                    + " version " + MpiRankMetaLayout.VERSION);
        }
        try {
            return new MpiRankFiles(meta, mapped, TraceBufferReader.open(tracePath), host);
        } catch (IOException e) {
            IoUtil.unmap(mapped);
            throw e;
        }
    }

    TraceBufferReader trace() {
        return trace;
    }

    int host() {
        return host;
    }

    int rank() {
        return buffer.getInt(MpiRankMetaLayout.RANK_OFFSET, order);
    }

    int size() {
        return buffer.getInt(MpiRankMetaLayout.SIZE_OFFSET, order);
    }

    int simulatedHost() {
        return buffer.getInt(MpiRankMetaLayout.HOST_INDEX_OFFSET, order);
    }

    int pid() {
        return buffer.getInt(MpiRankMetaLayout.PID_OFFSET, order);
    }

    boolean finalized() {
        return buffer.getIntVolatile(MpiRankMetaLayout.STATE_OFFSET) == MpiRankMetaLayout.STATE_FINALIZED;
    }

    long initNs() {
        return buffer.getLong(MpiRankMetaLayout.INIT_NS_OFFSET, order);
    }

    long finalizeNs() {
        return buffer.getLong(MpiRankMetaLayout.FINALIZE_NS_OFFSET, order);
    }

    long initOffsetNs() {
        return buffer.getLong(MpiRankMetaLayout.INIT_OFFSET_NS_OFFSET, order);
    }

    long initRttNs() {
        return buffer.getLong(MpiRankMetaLayout.INIT_RTT_NS_OFFSET, order);
    }

    long finalizeOffsetNs() {
        return buffer.getLongVolatile(MpiRankMetaLayout.FINALIZE_OFFSET_NS_OFFSET);
    }

    long finalizeRttNs() {
        return buffer.getLong(MpiRankMetaLayout.FINALIZE_RTT_NS_OFFSET, order);
    }

    long untracedCalls() {
        return buffer.getLongVolatile(MpiRankMetaLayout.UNTRACED_CALLS_OFFSET);
    }

    long untrackedRequests() {
        return buffer.getLongVolatile(MpiRankMetaLayout.UNTRACKED_REQUESTS_OFFSET);
    }

    long skewNs() {
        return buffer.getLong(MpiRankMetaLayout.CLOCK_SKEW_NS_OFFSET, order);
    }

    String hostName() {
        byte[] bytes = new byte[MpiRankMetaLayout.HOSTNAME_LENGTH];
        buffer.getBytes(MpiRankMetaLayout.HOSTNAME_OFFSET, bytes);
        int n = 0;
        while (n < bytes.length && bytes[n] != 0) {
            n++;
        }
        return new String(bytes, 0, n, StandardCharsets.UTF_8);
    }

    int opCount() {
        return Math.min(buffer.getInt(MpiRankMetaLayout.OP_COUNT_OFFSET, order), MpiRankMetaLayout.COUNTERS_MAX);
    }

    /** {@link MpiRankMetaLayout}'s END_* bits: how the rank ended, 0 while nothing was recorded. */
    int endFlags() {
        return buffer.getIntVolatile(MpiRankMetaLayout.END_FLAGS_OFFSET);
    }

    int endSignal() {
        return buffer.getInt(MpiRankMetaLayout.END_SIGNAL_OFFSET, order);
    }

    int endSignalOp() {
        return buffer.getInt(MpiRankMetaLayout.END_SIGNAL_OP_OFFSET, order);
    }

    int abortCode() {
        return buffer.getInt(MpiRankMetaLayout.END_ABORT_CODE_OFFSET, order);
    }

    int exitStatus() {
        return buffer.getInt(MpiRankMetaLayout.END_EXIT_STATUS_OFFSET, order);
    }

    long failedNs() {
        return buffer.getLong(MpiRankMetaLayout.END_FAILED_NS_OFFSET, order);
    }

    /** The watchdog's beats so far (0: no watchdog runs); a stopped process stops beating. */
    long heartbeat() {
        return buffer.getLongVolatile(MpiRankMetaLayout.HEARTBEAT_OFFSET);
    }

    /** The op the rank's recording thread is in (&gt; 0) or returned from last (&lt; 0), as the watchdog last saw it. */
    int currentOp() {
        return buffer.getIntVolatile(MpiRankMetaLayout.CURRENT_OP_OFFSET);
    }

    /** Calls of op {@code MpiOp.FIRST + i} so far: exact, whatever the ring overwrote. */
    long calls(int i) {
        return buffer.getLong(MpiRankMetaLayout.COUNTERS_OFFSET + i * MpiRankMetaLayout.COUNTER_LENGTH, order);
    }

    long bytes(int i) {
        return buffer.getLong(MpiRankMetaLayout.COUNTERS_OFFSET + i * MpiRankMetaLayout.COUNTER_LENGTH + 8, order);
    }

    int communicators() {
        return Math.min(MpiRankMetaLayout.COMMS_MAX, Math.max(0, buffer.getIntVolatile(MpiRankMetaLayout.COMMS_COUNT_OFFSET)));
    }

    int communicatorId(int i) {
        return buffer.getInt(MpiRankMetaLayout.COMMS_OFFSET + i * MpiRankMetaLayout.COMM_LENGTH, order);
    }

    int communicatorSize(int i) {
        return buffer.getInt(MpiRankMetaLayout.COMMS_OFFSET + i * MpiRankMetaLayout.COMM_LENGTH + 4, order);
    }

    /** Copies the meta file's bytes as they are now into {@code into} ({@link MpiRankMetaLayout#LENGTH} bytes). */
    void copyMeta(byte[] into) {
        buffer.getBytes(0, into, 0, MpiRankMetaLayout.LENGTH);
    }

    @Override
    public void close() {
        trace.close();
        IoUtil.unmap(mapped);
    }

    @Override
    public String toString() {
        return "MPI rank files " + meta;
    }
}
