package org.eventspace.scope.filter;

/**
 * Records that carry only an event's name. ToM's reductions keep each event's name with its aggregate (§4.1:
 * "a single set of statistical measures for each event"), and a record is the one part of a {@link Packet} that
 * holds text; so a reduced packet lists its events as name records, sorted, and keeps their numbers in its
 * arrays at the record's index. A name record has rank −1 (it describes no rank), the packet's round and value 0.
 */
final class NameRecords {
    private NameRecords() {
    }

    static ScopeRecord of(String event, long round) {
        return new ScopeRecord(-1, event, round, 0.0);
    }
}
