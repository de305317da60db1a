package org.eventspace.scope.filter;

import java.util.Objects;

/**
 * One monitoring record produced on a rank: the value of one event in one round (ToM §4: a profile is a list of
 * events with their values; EventSpace §4: a trace tuple turned into a latency). Immutable.
 *
 * @param rank  the rank the record describes; {@code -1} for a record of a host rather than of a rank.
 * @param event the event's name, e.g. {@code MPI_Allreduce()} or {@code t0.gred.h0.0 down}.
 * @param round the producer's round (iteration or profile period) the record belongs to, ≥ 0.
 * @param value the event's value in that round (a time in µs, a count, a size).
 */
public record ScopeRecord(int rank, String event, long round, double value) {
    public ScopeRecord {
        Objects.requireNonNull(event, "event");
        if (rank < -1) {
            throw new IllegalArgumentException("rank must be >= -1, rank=" + rank);
        }
        if (round < 0) {
            throw new IllegalArgumentException("round must be >= 0, round=" + round);
        }
    }
}
