package org.eventspace.events;

import java.io.IOException;
import java.nio.file.Path;

import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;

/**
 * Sizes a host's trace buffers to fit its budget, and opens the host's {@link EventSpace} for a pathmap with
 * collectors. Stateless.
 *
 * <p>The event space's default capacity (4096 tuples, ≈ 192 KiB a buffer) fits 21 collectors in the default
 * 4 MiB; a host of a big tree has more (64 ranks on one host and 2 trees: 130). Rather than fail, the
 * capacity shrinks with the count: with N collectors that take the default, each gets
 * {@code min(DEFAULT_CAPACITY, floorPow2((budget / N − header) / slot))} tuples, but never fewer than
 * {@link #MIN_RUN_CAPACITY}; only when N buffers of that minimum exceed the budget does the budget grow to
 * hold them (and the run reports the bytes it allocated). Why a floor of {@value #MIN_RUN_CAPACITY}: a
 * collector sees every other call when two trees alternate, so 64 tuples keep the last ~128 calls — enough
 * for a post-mortem dump to compute every dissertation §7.1 latency over several calls and for a reader polling every
 * few hundred microseconds to miss nothing at gsum rates — while 1310 such buffers still fit 4 MiB.
 */
public final class TraceBudget {
    /** Fewest tuples a buffer is shrunk to when a host has many collectors. */
    public static final int MIN_RUN_CAPACITY = 64;

    private TraceBudget() {
    }

    /**
     * Tuples per buffer when {@code collectors} buffers share {@code budgetBytes}: a power of two, at most
     * {@code defaultCapacity}, at least {@link #MIN_RUN_CAPACITY} (or {@code defaultCapacity} if smaller).
     */
    public static int capacityFor(int collectors, long budgetBytes, int defaultCapacity) {
        if (collectors < 0) {
            throw new IllegalArgumentException("collectors must be >= 0, collectors=" + collectors);
        }
        int floor = Math.min(MIN_RUN_CAPACITY, defaultCapacity);
        if (collectors == 0) {
            return defaultCapacity;
        }
        long slots = (budgetBytes / collectors - TraceBufferLayout.HEADER_LENGTH) / TraceBufferLayout.SLOT_LENGTH;
        if (slots < floor) {
            return floor;
        }
        return (int) Math.min(defaultCapacity, Long.highestOneBit(slots));
    }

    /**
     * The event space of {@code host} for a pathmap with collectors: direct buffers, or mapped files in
     * {@code directory} when it is not null; budget {@code budgetBytes} (grown only if the collectors' minimum
     * buffers exceed it), default capacity sized by {@link #capacityFor}. Collectors with an explicit
     * {@value CollectorKind#CAPACITY} keep it and count against the budget first.
     */
    public static EventSpace open(Pathmap pathmap, int host, Path directory, long budgetBytes) throws IOException {
        Sizing sizing = Sizing.of(pathmap, host, budgetBytes);
        String name = pathmap.spec().topology().host(host).name();
        return directory == null ? EventSpace.direct(name, sizing.budgetBytes(), sizing.capacity())
                : EventSpace.mapped(name, directory, sizing.budgetBytes(), sizing.capacity());
    }

    /**
     * The bytes the trace buffers of {@code host}'s collectors take when {@link #open} sizes them under
     * {@code budgetBytes}: what a job's memory estimate counts before any buffer exists.
     */
    public static long bytesOn(Pathmap pathmap, int host, long budgetBytes) {
        return Sizing.of(pathmap, host, budgetBytes).neededBytes();
    }

    /**
     * How a host's buffers are sized: the default capacity of those without an explicit one, the bytes all of them
     * take, and the space's budget (grown to those bytes where the minimum buffers exceed it).
     */
    private record Sizing(int capacity, long neededBytes, long budgetBytes) {
        static Sizing of(Pathmap pathmap, int host, long budgetBytes) {
            int sized = 0;
            long fixedBytes = 0;
            for (Node n : pathmap.nodesOn(host)) {
                if (!n.kind().equals(CollectorKind.NAME)) {
                    continue;
                }
                int capacity = CollectorKind.capacity(n);
                if (capacity == 0) {
                    sized++;
                } else {
                    fixedBytes += TraceBufferLayout.bufferLength(capacity);
                }
            }
            int capacity = capacityFor(sized, Math.max(0, budgetBytes - fixedBytes), EventSpace.DEFAULT_CAPACITY);
            long needed = fixedBytes + sized * TraceBufferLayout.bufferLength(capacity);
            return new Sizing(capacity, needed, Math.max(budgetBytes, needed));
        }
    }
}
