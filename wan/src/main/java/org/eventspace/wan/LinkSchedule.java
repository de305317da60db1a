package org.eventspace.wan;

/**
 * When messages leave one direction of an emulated link: the arithmetic of Longcut's delay (dissertation §8.1 §III),
 * kept apart from any clock so that it is a pure function of the times it is given.
 *
 * <p>A message of {@code bytes} that reaches the gateway at {@code arrival} starts onto the wire when the wire is free
 * ({@code start = max(arrival, wireFree)}: a message cannot start before the previous one on the link has left), takes
 * {@code bytes / bandwidth} to leave ({@code wireFree = start + bytes/bandwidth}) and reaches the other site one latency
 * later: {@code due = wireFree + latency}, latency and bandwidth read at {@code start}. With time series a latency that
 * drops could let a later message overtake an earlier one, which a TCP connection never does, so {@code due} is never
 * earlier than the previous message's due: due times on one link never decrease.
 *
 * <p>Not thread-safe: the gateway's scheduler thread is its only user ({@link GatewayScheduler}).
 */
public final class LinkSchedule {
    private final LinkDirection link;
    private final long epochNs;
    private long wireFreeNs = Long.MIN_VALUE;
    private long lastDueNs = Long.MIN_VALUE;
    private long messages;
    private long bytes;
    private long queuedNs;

    /** @param epochNs the clock reading series times count from. */
    public LinkSchedule(LinkDirection link, long epochNs) {
        this.link = link;
        this.epochNs = epochNs;
    }

    public LinkDirection link() {
        return link;
    }

    /**
     * Schedules one message and returns the time it is due at the other site (same clock as {@code arrivalNs}).
     *
     * @param arrivalNs when the message reached the gateway.
     * @param size      its size in bytes (≥ 0).
     */
    public long schedule(long arrivalNs, long size) {
        long start = Math.max(arrivalNs, wireFreeNs);
        long elapsed = start - epochNs;
        long left = start + link.transmitNs(elapsed, size);
        long due = Math.max(left + link.latencyNs(elapsed), lastDueNs);
        wireFreeNs = left;
        lastDueNs = due;
        messages++;
        bytes += size;
        queuedNs += start - arrivalNs;
        return due;
    }

    /** Messages scheduled so far. */
    public long messages() {
        return messages;
    }

    /** Bytes scheduled so far. */
    public long bytes() {
        return bytes;
    }

    /** Time messages waited for the wire, summed: what the link's serialisation added to the delays. */
    public long queuedNs() {
        return queuedNs;
    }
}
