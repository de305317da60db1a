package org.eventspace.events.dump;

import java.nio.file.Path;

import org.agrona.collections.Long2LongHashMap;
import org.eventspace.events.TraceOp;

/**
 * The tuples one collector left in a dump, in the order it wrote them, decoded once into primitive arrays (one
 * array per field, index i is the i-th tuple read). Immutable after {@link TraceDump#open}; thread-safe for
 * reading, except that {@link #indexOf} builds its index on first use and must not race with itself.
 */
public final class CollectorTrace {
    private final TraceDump.DumpNode node;
    private final int collectorId;
    private final Path file;
    private final long overwritten;
    private final int size;
    private final long[] sequence;
    private final long[] value;
    private final long[] startNs;
    private final long[] endNs;
    private final int[] opType;
    private final int[] flags;
    private Long2LongHashMap bySequence;

    CollectorTrace(TraceDump.DumpNode node, int collectorId, Path file, long overwritten, int size, long[] sequence,
                   long[] value, long[] startNs, long[] endNs, int[] opType, int[] flags) {
        this.node = node;
        this.collectorId = collectorId;
        this.file = file;
        this.overwritten = overwritten;
        this.size = size;
        this.sequence = sequence;
        this.value = value;
        this.startNs = startNs;
        this.endNs = endNs;
        this.opType = opType;
        this.flags = flags;
    }

    /** The collector's pathmap node. */
    public TraceDump.DumpNode node() {
        return node;
    }

    public String name() {
        return node.name();
    }

    /** Name of the host the collector ran on (from pathmap.json). */
    public String host() {
        return node.host();
    }

    public int collectorId() {
        return collectorId;
    }

    public Path file() {
        return file;
    }

    /** Tuples the collector wrote that the ring had overwritten before the dump (never in the arrays). */
    public long overwritten() {
        return overwritten;
    }

    /** Tuples held. */
    public int size() {
        return size;
    }

    public long sequence(int i) {
        return sequence[i];
    }

    public long value(int i) {
        return value[i];
    }

    /** t_down, ns (this host's monotonic clock). */
    public long startNs(int i) {
        return startNs[i];
    }

    /** t_up, ns (this host's monotonic clock). */
    public long endNs(int i) {
        return endNs[i];
    }

    public int opType(int i) {
        return opType[i];
    }

    public int flags(int i) {
        return flags[i];
    }

    public boolean failed(int i) {
        return (flags[i] & TraceOp.FLAG_FAILED) != 0;
    }

    /**
     * Index of the successful tuple with {@code seq}, or -1. A failed call's timestamps are those of a failure
     * and are left out of joins; if a sequence appears twice (it should not) the later tuple wins.
     */
    public synchronized int indexOf(long seq) {
        if (bySequence == null) {
            Long2LongHashMap map = new Long2LongHashMap(Math.max(8, size), 0.65f, -1);
            for (int i = 0; i < size; i++) {
                if (!failed(i)) {
                    map.put(sequence[i], i);
                }
            }
            bySequence = map;
        }
        return (int) bySequence.get(seq);
    }

    @Override
    public String toString() {
        return "CollectorTrace{" + node.name() + " @" + node.host() + ", id=" + collectorId + ", tuples=" + size
                + ", overwritten=" + overwritten + '}';
    }
}
