package org.eventspace.comm.runtime;

import org.eventspace.comm.path.Wrapper;

/**
 * Wraps the point-to-point paths a host builds on demand — they are not in the pathmap, so no placement reaches
 * them: the sender's path into a mailbox ({@link Side#SEND}: a hop's stub, or the store itself on the same host)
 * and what a hop's service thread runs for a mailbox on the receiving host ({@link Side#SERVE}). It is the door
 * through which a higher layer instruments sends (an event collector on each side gives the hop's two-way
 * latency, dissertation §7.1) without {@code comm} knowing it. Registered with {@link WrapperKinds#withPointToPoint}.
 *
 * <p>Called once per path, when the path is built (the first send to a destination, the first hop of a pair);
 * may be called from any thread of the host; must not fail the send: an implementation that cannot wrap returns
 * {@code wrapper} itself.
 */
@FunctionalInterface
public interface PointToPointWrappers {
    /** Leaves every path as it is. */
    PointToPointWrappers NONE = (host, mailbox, side, wrapper) -> wrapper;

    /** Which end of a point-to-point path is being built. */
    enum Side {
        /** The sender's path, run by the sending rank's thread. */
        SEND,
        /** The receiving host's end of a hop, run by the hop's service thread. */
        SERVE,
        /**
         * A host between the two that passes the message on ({@link PointToPointRoute}: a WAN site's gateway), run by
         * the service thread of the hop that brought it: {@code wrapper} is the stub of the next hop.
         */
        RELAY
    }

    /** The wrapper to use instead of {@code wrapper} for mailbox {@code mailbox} ({@code p2p.<source>.<dest>}). */
    Wrapper wrap(HostRuntime host, String mailbox, Side side, Wrapper wrapper);
}
