package org.eventspace.scope.filter;

import java.util.List;
import java.util.Objects;

/**
 * What crosses one edge of an event scope in one round: a command going down (a data request, histogram
 * bounds, INIT, FIN) or a batch coming up (raw records, partial statistics, a partial histogram). Modelled on
 * an MRNet packet (ToM §3): a tag saying what it is, the round, and typed payload arrays. Immutable; the arrays
 * are the caller's and must not be changed after construction.
 *
 * @param tag     what the packet is; the control tags below are the scope's, filters define their own ≥ 100.
 * @param round   the round the packet belongs to (a pipelined filter may carry a second round in its longs).
 * @param longs   integer payload (counts, bin counts, rounds of a pipeline).
 * @param doubles floating payload (sums, minima, maxima, bounds).
 * @param records records carried whole (a concatenating gather, a classification's per-class table).
 */
public record Packet(int tag, long round, long[] longs, double[] doubles, List<ScopeRecord> records) {
    /** Control stream: the front-end opens a stream; every node sets up its filter (ToM §3). */
    public static final int INIT = 1;
    /** Control stream: a data request for one round, the filter's own command in the payload. */
    public static final int PULL = 2;
    /** Control stream: the front-end closes the stream. */
    public static final int FIN = 3;
    /** Data stream: every node below acknowledged FIN and released its state. */
    public static final int FINACK = 4;
    /** First tag free for filters. */
    public static final int FIRST_FILTER_TAG = 100;

    private static final long[] NO_LONGS = {};
    private static final double[] NO_DOUBLES = {};

    public Packet {
        Objects.requireNonNull(longs, "longs");
        Objects.requireNonNull(doubles, "doubles");
        records = List.copyOf(records);
    }

    public static Packet of(int tag, long round) {
        return new Packet(tag, round, NO_LONGS, NO_DOUBLES, List.of());
    }

    public static Packet ofRecords(int tag, long round, List<ScopeRecord> records) {
        return new Packet(tag, round, NO_LONGS, NO_DOUBLES, records);
    }

    public static Packet ofNumbers(int tag, long round, long[] longs, double[] doubles) {
        return new Packet(tag, round, longs, doubles, List.of());
    }
}
