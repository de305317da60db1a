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

    /** Adds {@code other}'s delta times (a node of the same shape) to this one's. */
    abstract void absorb(Node other, TraceConfig config);

    /** This node and every node below it. */
    abstract int nodeCount();

    /** Turns one rank's raw node into a mergeable one: parameters as (value, ranklist) pairs, timings materialised. */
    abstract void seal(TraceConfig config);
}
