package org.eventspace.mpi;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.eventspace.events.TraceBufferReader;

/**
 * One rank's files ({@code rank-<R>.meta}, {@code rank-<R>.trace}, under MPI_THREAD_MULTIPLE one ring per other
 * thread {@code rank-<R>.t<N>.trace}, and past {@link MpiRankMetaLayout#COMMS_MAX} communicators
 * {@code rank-<R>.comms}), mapped read-only while the rank may still write them, or after it ended or died. Thread
 * rings are opened as the meta file's count of them grows ({@link #rings()}). Not thread-safe: one reader (a
 * {@link NodeAgent}) per instance.
 */
final class MpiRankFiles implements AutoCloseable {
    private final Path meta;
    private final MappedByteBuffer mapped;
    private final UnsafeBuffer buffer;
    private final ByteOrder order;
    private final TraceBufferReader trace;
    private final List<TraceBufferReader> rings = new ArrayList<>();
    private final int host;
    private final Path commsPath;
    private final List<int[]> moreComms = new ArrayList<>();

    private MpiRankFiles(Path meta, MappedByteBuffer mapped, TraceBufferReader trace, int host) {
        this.meta = meta;
        this.mapped = mapped;
        this.buffer = new UnsafeBuffer(mapped);
        this.order = buffer.getByte(MpiRankMetaLayout.BYTE_ORDER_OFFSET) == 1 ? ByteOrder.BIG_ENDIAN
                : ByteOrder.LITTLE_ENDIAN;
        this.trace = trace;
        this.rings.add(trace);
        this.host = host;
        String name = meta.getFileName().toString();
        this.commsPath = meta.resolveSibling(name.substring(0, name.length() - ".meta".length()) + ".comms");
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

    /** The ring of the thread that initialised MPI. */
    TraceBufferReader trace() {
        return trace;
    }

    /**
     * Every ring of the rank: {@link #trace()}, then the thread rings the meta file counts so far (opened here the
     * first time they are counted).
     *
     * @throws UncheckedIOException naming the file if a counted thread ring is not a trace buffer.
     */
    List<TraceBufferReader> rings() {
        int counted = Math.max(0, buffer.getIntVolatile(MpiRankMetaLayout.THREAD_RINGS_OFFSET));
        while (rings.size() <= counted) {
            String name = meta.getFileName().toString();
            Path ring = meta.resolveSibling(name.substring(0, name.length() - ".meta".length()) + ".t" + rings.size()
                    + ".trace");
            try {
                rings.add(TraceBufferReader.open(ring));
            } catch (IOException e) {
                throw new UncheckedIOException("MPI rank " + rank() + "'s thread ring " + ring
                        + " is counted in its meta file but cannot be read: " + e.getMessage(), e);
            }
        }
        return rings;
    }

    /** Tuples written over every ring of the rank. */
    long written() {
        long w = 0;
        for (TraceBufferReader r : rings()) {
            w += r.writePosition();
        }
        return w;
    }

    /** Tuples the rank's rings overwrote before they were read. */
    long missed() {
        long m = 0;
        for (TraceBufferReader r : rings()) {
            m += r.missed();
        }
        return m;
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

    /** How far the MPI_Init offset may be off: half round trips summed along the sync tree to rank 0. */
    long initErrorNs() {
        return buffer.getLong(MpiRankMetaLayout.INIT_ERROR_NS_OFFSET, order);
    }

    long finalizeErrorNs() {
        return buffer.getLong(MpiRankMetaLayout.FINALIZE_ERROR_NS_OFFSET, order);
    }

    /** Communicators the rank joined but could not list (its side file could not be written). */
    int communicatorsLost() {
        return buffer.getIntVolatile(MpiRankMetaLayout.COMMS_LOST_OFFSET);
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

    /**
     * Communicators listed so far: the meta file's count, whose entries past {@link MpiRankMetaLayout#COMMS_MAX} are
     * in {@code rank-<R>.comms} (read here as far as the count reaches; the library raises the count only after the
     * entry is written).
     *
     * @throws UncheckedIOException naming the file if the count says entries are there that the side file lacks.
     */
    int communicators() {
        int count = Math.max(0, buffer.getIntVolatile(MpiRankMetaLayout.COMMS_COUNT_OFFSET));
        int beyond = count - MpiRankMetaLayout.COMMS_MAX;
        if (beyond > moreComms.size()) {
            readMoreComms(beyond);
        }
        return Math.min(count, MpiRankMetaLayout.COMMS_MAX + moreComms.size());
    }

    private void readMoreComms(int upTo) {
        try (FileChannel channel = FileChannel.open(commsPath, StandardOpenOption.READ)) {
            long have = channel.size() / MpiRankMetaLayout.COMM_LENGTH;
            if (have < upTo) {
                throw new IOException("it holds " + have + " entries, the meta file counts " + upTo);
            }
            ByteBuffer b = ByteBuffer.allocate((upTo - moreComms.size()) * MpiRankMetaLayout.COMM_LENGTH).order(order);
            channel.read(b, (long) moreComms.size() * MpiRankMetaLayout.COMM_LENGTH);
            b.flip();
            while (b.remaining() >= MpiRankMetaLayout.COMM_LENGTH) {
                moreComms.add(new int[] {b.getInt(), b.getInt()});
            }
        } catch (IOException e) {
            throw new UncheckedIOException("MPI rank " + rank() + "'s communicator list " + commsPath
                    + " cannot be read: " + e.getMessage(), e);
        }
    }

    int communicatorId(int i) {
        if (i >= MpiRankMetaLayout.COMMS_MAX) {
            return moreComms.get(i - MpiRankMetaLayout.COMMS_MAX)[0];
        }
        return buffer.getInt(MpiRankMetaLayout.COMMS_OFFSET + i * MpiRankMetaLayout.COMM_LENGTH, order);
    }

    int communicatorSize(int i) {
        if (i >= MpiRankMetaLayout.COMMS_MAX) {
            return moreComms.get(i - MpiRankMetaLayout.COMMS_MAX)[1];
        }
        return buffer.getInt(MpiRankMetaLayout.COMMS_OFFSET + i * MpiRankMetaLayout.COMM_LENGTH + 4, order);
    }

    /** Copies the meta file's bytes as they are now into {@code into} ({@link MpiRankMetaLayout#LENGTH} bytes). */
    void copyMeta(byte[] into) {
        buffer.getBytes(0, into, 0, MpiRankMetaLayout.LENGTH);
    }

    @Override
    public void close() {
        rings.forEach(TraceBufferReader::close);
        IoUtil.unmap(mapped);
    }

    @Override
    public String toString() {
        return "MPI rank files " + meta;
    }
}
