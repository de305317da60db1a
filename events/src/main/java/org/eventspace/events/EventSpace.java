package org.eventspace.events;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The event space of one host. Thread-safe: allocation and look-ups may come from any thread.
 *
 * <p>It holds (EventSpace paper §4.2) the temporal trace buffers of the collectors on the host, one per
 * collector, allocated under a memory budget so that tracing every operation of every path costs "only a few
 * megabytes of memory" (§4.1) however long the run.
 *
 * <p>Buffers are off-heap: direct buffers, or, when the space has a directory, memory-mapped files in it
 * ({@code <collectorId>.<collector name>.trace}) that other processes can read while the run goes on and
 * that remain after it as the post-mortem trace.
 *
 * <p>Allocation happens while a host builds its wrappers; writing and reading go through the
 * {@link TraceBuffer}s themselves, with their own contracts.
 */
public final class EventSpace implements AutoCloseable {
    /** Default budget per host: a few megabytes, as in the paper (§6.1 used 1 MB of trace tuples per host). */
    public static final long DEFAULT_BUDGET_BYTES = 4L << 20;
    /**
     * The most bytes a host's buffers may take when a run fixes every buffer's capacity itself (and so bypasses the
     * budget): 1 GiB, a quarter of what the JVM gives direct buffers by default on these 24 GiB machines.
     */
    public static final long MAX_EXPLICIT_BYTES = 1L << 30;
    /**
     * Default tuples per buffer: 4096 × 48 bytes ≈ 192 KiB, so 21 collectors fit the default budget (the
     * paper's busiest host had 9 and kept 3750 tuples each, §6.1).
     */
    public static final int DEFAULT_CAPACITY = 4096;

    private final String hostName;
    private final long budgetBytes;
    private final int defaultCapacity;
    private final Path directory;
    private final Map<Integer, Entry> byCollector = new LinkedHashMap<>();
    /** Collector id by name: a host of 2^17 ranks allocates some 2^19 buffers, and a scan per buffer took minutes. */
    private final Map<String, Integer> idByName = new HashMap<>();
    private long bytesAllocated;
    private boolean closed;

    /** A buffer of the space and the collector it belongs to. */
    public record Entry(int collectorId, String collectorName, TraceBuffer buffer) {
    }

    private EventSpace(String hostName, long budgetBytes, int defaultCapacity, Path directory) {
        if (budgetBytes < TraceBufferLayout.bufferLength(TraceBuffer.MIN_CAPACITY)) {
            throw new IllegalArgumentException("event space of host " + hostName + ": budget must hold at least one "
                    + "buffer of " + TraceBufferLayout.bufferLength(TraceBuffer.MIN_CAPACITY) + " bytes, budgetBytes=" + budgetBytes);
        }
        checkCapacity(hostName, "default capacity", defaultCapacity);
        this.hostName = hostName;
        this.budgetBytes = budgetBytes;
        this.defaultCapacity = defaultCapacity;
        this.directory = directory;
    }

    /** An event space of direct (off-heap, in-process) buffers with the default budget and capacity. */
    public static EventSpace direct(String hostName) {
        return direct(hostName, DEFAULT_BUDGET_BYTES, DEFAULT_CAPACITY);
    }

    public static EventSpace direct(String hostName, long budgetBytes, int defaultCapacity) {
        return new EventSpace(hostName, budgetBytes, defaultCapacity, null);
    }

    /** An event space whose buffers are memory-mapped files in {@code directory} (created if missing). */
    public static EventSpace mapped(String hostName, Path directory, long budgetBytes, int defaultCapacity) throws IOException {
        Files.createDirectories(directory);
        return new EventSpace(hostName, budgetBytes, defaultCapacity, directory);
    }

    private static void checkCapacity(String hostName, String what, int capacity) {
        if (capacity < TraceBuffer.MIN_CAPACITY || capacity > TraceBuffer.MAX_CAPACITY || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("event space of host " + hostName + ": " + what + " must be a power of two in ["
                    + TraceBuffer.MIN_CAPACITY + ", " + TraceBuffer.MAX_CAPACITY + "], capacity=" + capacity);
        }
    }

    /** Allocates the buffer of collector {@code collectorId} with the default capacity. */
    public TraceBuffer allocate(int collectorId, String collectorName) {
        return allocate(collectorId, collectorName, defaultCapacity);
    }

    /**
     * Allocates the trace buffer of collector {@code collectorId}, named {@code collectorName} (its pathmap
     * node), holding {@code capacity} tuples.
     *
     * @throws IllegalStateException    if the buffer would take the space past its budget, naming what is used.
     * @throws IllegalArgumentException if the id or name is taken, or the capacity is not a power of two.
     */
    public synchronized TraceBuffer allocate(int collectorId, String collectorName, int capacity) {
        if (closed) {
            throw new IllegalStateException("event space of host " + hostName + " is closed; cannot allocate collector "
                    + collectorName);
        }
        if (collectorId < 0) {
            throw new IllegalArgumentException("event space of host " + hostName + ": collector id must be >= 0, collectorId="
                    + collectorId + " (" + collectorName + ")");
        }
        checkCapacity(hostName, "capacity of collector " + collectorName, capacity);
        Entry taken = byCollector.get(collectorId);
        if (taken != null) {
            throw new IllegalArgumentException("event space of host " + hostName + ": collector id " + collectorId
                    + " (" + collectorName + ") already has a buffer, allocated for " + taken.collectorName());
        }
        Integer named = idByName.get(collectorName);
        if (named != null) {
            throw new IllegalArgumentException("event space of host " + hostName + ": collector name '" + collectorName
                    + "' already has a buffer, under collector id " + named);
        }
        long bytes = TraceBufferLayout.bufferLength(capacity);
        if (bytesAllocated + bytes > budgetBytes) {
            throw new IllegalStateException("event space of host " + hostName + " is out of budget: collector "
                    + collectorName + " (id " + collectorId + ") needs " + bytes + " bytes for capacity=" + capacity
                    + " tuples, but " + bytesAllocated + " of budgetBytes=" + budgetBytes + " are allocated to "
                    + byCollector.size() + " buffers (" + (budgetBytes - bytesAllocated) + " left)");
        }
        TraceBuffer buffer;
        if (directory == null) {
            buffer = TraceBuffer.direct(capacity, collectorId);
        } else {
            Path file = directory.resolve(fileName(collectorId, collectorName));
            try {
                buffer = TraceBuffer.mapped(file, capacity, collectorId);
            } catch (IOException e) {
                throw new UncheckedIOException("event space of host " + hostName + ", collector " + collectorName + ": "
                        + e.getMessage(), e);
            }
        }
        byCollector.put(collectorId, new Entry(collectorId, collectorName, buffer));
        idByName.put(collectorName, collectorId);
        bytesAllocated += bytes;
        return buffer;
    }

    /** The file a mapped space keeps collector {@code collectorId}'s buffer in: its id and name, file-safe. */
    public static String fileName(int collectorId, String collectorName) {
        return collectorId + "." + collectorName.replaceAll("[^A-Za-z0-9._-]", "_") + ".trace";
    }

    /** The buffer of collector {@code collectorId}. */
    public synchronized TraceBuffer buffer(int collectorId) {
        Entry entry = byCollector.get(collectorId);
        if (entry == null) {
            throw new IllegalArgumentException("event space of host " + hostName + " has no buffer for collectorId="
                    + collectorId + "; collectors: " + byCollector.keySet());
        }
        return entry.buffer();
    }

    /** Every buffer with its collector, in allocation order. */
    public synchronized List<Entry> entries() {
        return List.copyOf(byCollector.values());
    }

    /** Tuples written into all buffers so far. */
    public synchronized long tuplesWritten() {
        long total = 0;
        for (Entry entry : byCollector.values()) {
            total += entry.buffer().writePosition();
        }
        return total;
    }

    public String hostName() {
        return hostName;
    }

    public long budgetBytes() {
        return budgetBytes;
    }

    public int defaultCapacity() {
        return defaultCapacity;
    }

    public synchronized long bytesAllocated() {
        return bytesAllocated;
    }

    /** The directory of a mapped space, or null. */
    public Path directory() {
        return directory;
    }

    /** Unmaps every mapped buffer (files stay). Only once every collector and in-process reader stopped. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            for (Entry entry : byCollector.values()) {
                entry.buffer().close();
            }
        }
    }

    @Override
    public synchronized String toString() {
        return "EventSpace{host=" + hostName + ", buffers=" + byCollector.size() + ", bytes=" + bytesAllocated + "/"
                + budgetBytes + (directory != null ? ", dir=" + directory : "") + '}';
    }
}
