package org.eventspace.wan;

/**
 * One direction of an emulated WAN link between two sites, as configured: its one-way latency (ms) and its bandwidth
 * (Mbit/s), each constant or a time series. Longcut delays every message crossing it by latency + size / bandwidth
 * (dissertation §8.1 §III), "per direction" because "bandwidth differs in two directions, while latency usually does
 * not" (§8.1 §VI).
 *
 * @param from      the site messages leave.
 * @param to        the site they reach.
 * @param latencyMs one-way latency in milliseconds (> 0 or 0 for none).
 * @param bandwidthMbit bandwidth in megabits (10^6 bit) per second (> 0).
 * @param line      the line of the link file that set it, for messages.
 */
public record LinkDirection(String from, String to, LinkSeries latencyMs, LinkSeries bandwidthMbit, int line) {
    public LinkDirection {
        if (from.equals(to)) {
            throw new IllegalArgumentException("a link joins two sites, from=to=" + from);
        }
        if (latencyMs.min() < 0) {
            throw new IllegalArgumentException("latency must be >= 0 ms, link " + from + ">" + to + " has " + latencyMs.min());
        }
        if (!(bandwidthMbit.min() > 0)) {
            throw new IllegalArgumentException("bandwidth must be > 0 Mbit/s, link " + from + ">" + to + " has "
                    + bandwidthMbit.min());
        }
    }

    /** The name a pathmap node uses for it: {@code from>to}. */
    public String name() {
        return from + ">" + to;
    }

    /** A constant link: {@code latencyMs} one way, {@code bandwidthMbit} Mbit/s. */
    public static LinkDirection constant(String from, String to, double latencyMs, double bandwidthMbit) {
        return new LinkDirection(from, to, LinkSeries.constant(latencyMs), LinkSeries.constant(bandwidthMbit), 0);
    }

    /** One-way latency in ns at {@code elapsedNs} after the epoch. */
    public long latencyNs(long elapsedNs) {
        return Math.round(latencyMs.at(elapsedNs) * 1e6);
    }

    /** Time to put {@code bytes} on the link at {@code elapsedNs}: bytes × 8 / (Mbit/s × 10^6) s, in ns. */
    public long transmitNs(long elapsedNs, long bytes) {
        return Math.round(bytes * 8e3 / bandwidthMbit.at(elapsedNs));
    }
}
