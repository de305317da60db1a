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

    /**
     * The one rank whose sendrecv at the same call site sends to {@code rank} (a ring shift's or a pairwise exchange's
     * partner), among {@code sendrecvs}, that site's sendrecv events; −1 if none or several do. A compressed trace keeps
     * only the send half's peer, so the receive half's source is found this way.
     */
    static int sendrecvSource(List<EventNode> sendrecvs, int rank, int ranks) {
        int found = -1;
        for (EventNode other : sendrecvs) {
            if (other.peerParams == null) {
                continue;
            }
            for (Params.Entry p : other.peerParams.entries()) {
                long source = rank - p.value();
                if (p.value() != 0 && source >= 0 && source < ranks && p.ranks().contains((int) source)
                        && other.ranks().contains((int) source)) {
                    if (found >= 0 && found != source) {
                        return -1;
                    }
                    found = (int) source;
                }
            }
        }
        return found;
    }
}
