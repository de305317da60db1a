package org.eventspace.scope.filter;

import java.util.List;

/**
 * An up-stream/down-stream filter of an event scope (ToM §3 and §4; EventSpace §4's reduce/filter wrappers).
 * One instance per scope node; a node calls it from one thread at a time, round after round, so an instance may
 * keep state between rounds (a pipelined histogram keeps a round's records at the leaves until its bounds come
 * down). Instances are made on every host from the same {@link FilterSpec}, so they agree without talking.
 *
 * <p>One round, seen from the front-end: {@link #command} makes the packet sent down; every inner node passes
 * {@link #down} of it to its children; every leaf answers {@link #leaf} over the records its host produced for
 * the round; every inner node combines its children's answers with {@link #up}; the front-end's node does the
 * same and the front-end turns the root packet into {@link #result}.
 */
public interface ScopeFilter {
    /** The filter's name as given on the command line, e.g. {@code hist:32}. */
    String name();

    /**
     * Whether the leaves give this filter the hosts' published analysis results ({@link org.eventspace.scope.ResultBoard})
     * instead of their trace tuples and pushed records.
     */
    default boolean readsResults() {
        return false;
    }

    /** Whether the leaves give this filter every trace tuple whole ({@link TuplesFilter}) instead of its latency. */
    default boolean readsRawTuples() {
        return false;
    }

    /**
     * The command for round {@code round}. {@code previousRoot} is what the root returned for the previous
     * round, null before the first: a multi-phase filter puts the next phase of an earlier round in it.
     */
    default Packet command(long round, Packet previousRoot) {
        // A one-phase filter: a plain data request; the leaves answer over this round's records.
        return Packet.of(Packet.PULL, round);
    }

    /** What a node passes to its children for {@code command}; by default the command itself. */
    default Packet down(Packet command) {
        return command;
    }

    /** At a leaf: this round's records on the leaf's host, in production order, to one packet for the parent. */
    Packet leaf(Packet command, List<ScopeRecord> records);

    /** At an inner node: the children's packets for {@code command}, in child order, to one packet for the parent. */
    Packet up(Packet command, List<Packet> fromChildren);

    /**
     * The front-end's reading of a root packet: the filter's own {@link FilterResult} record, naming the round it
     * describes; {@link FilterResult#none()} while a pipelined filter has no complete round yet.
     */
    FilterResult result(Packet root);
}
