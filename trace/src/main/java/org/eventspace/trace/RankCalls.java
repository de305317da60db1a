package org.eventspace.trace;

import java.util.List;

/**
 * One rank's calls in the order it made them, visited through the loops without building the expanded list (a
 * compressed trace may stand for billions of calls): the walk both timeline exports (Perfetto, OTF2) share.
 */
final class RankCalls {
    /** What is done with each call; false stops the walk. */
    @FunctionalInterface
    interface Visitor<X extends Exception> {
        boolean call(EventNode event) throws X;
    }

    private RankCalls() {
    }

    /** Visits {@code rank}'s calls among {@code nodes} in order; false if the visitor stopped the walk. */
    static <X extends Exception> boolean forEach(List<Node> nodes, int rank, Visitor<X> visitor) throws X {
        for (Node n : nodes) {
            if (!n.ranks().contains(rank)) {
                continue;
            }
            if (n instanceof LoopNode l) {
                for (long i = 0; i < l.iters; i++) {
                    if (!forEach(l.body, rank, visitor)) {
                        return false;
                    }
                }
            } else if (!visitor.call((EventNode) n)) {
                return false;
            }
        }
        return true;
    }
}
