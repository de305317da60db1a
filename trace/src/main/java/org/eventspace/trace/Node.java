package org.eventspace.trace;

/**
 * An element of a compressed trace: an {@link EventNode} (one communication call, its parameters and delta times)
 * or a {@link LoopNode} (an RSD, or a power-RSD when its body holds loops: Ratn et al. §2, after Havlak and Kennedy and
 * Marathe et al.). Each carries the ranks that execute it. Not thread-safe.
 */
public abstract sealed class Node permits EventNode, LoopNode {
    RankList ranks;

    Node(RankList ranks) {
        this.ranks = ranks;
    }

    public RankList ranks() {
        return ranks;
    }

    /** Hash of what must match for two nodes of one rank to fold: events and parameters, iteration counts. */
    abstract int shapeHash();

    /** Whether {@code other}, of the same rank, is the same call or loop (timings aside). */
    abstract boolean sameShape(Node other);

    /** {@link #shapeHash} without the calls' counts: what must match for iterations that differ only in sizes. */
    abstract int relaxedHash();

    /**
     * Whether {@code other}, of the same rank, is the same call or loop but for the calls' counts (words, bytes): what a
     * loop whose iterations differ only in message sizes folds ({@link RankTrace}, {@link CountRuns}).
     */
    abstract boolean sameShapeRelaxed(Node other);

    /**
     * Adds {@code other}'s delta times and counts (a node of the same shape, or the same but for counts) to this one's;
     * returns how many runs of counts that started ({@link CountRuns}), which the node budget counts.
     */
    abstract int absorb(Node other, TraceConfig config);

    /** This node and every node below it. */
    abstract int nodeCount();

    /** Turns one rank's raw node into a mergeable one: parameters as (value, ranklist) pairs, timings materialised. */
    abstract void seal(TraceConfig config);
}
