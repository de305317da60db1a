package org.eventspace.comm.transport;

/**
 * Moves work between hosts. A transport opens the client end of a hop on the calling host and arranges for
 * one service thread on the other host to run that hop's target wrapper for every message.
 *
 * <p>Implementations: in one JVM ({@code jvm}: simulated hosts, real hand-off between threads) and over TCP
 * ({@code tcp}: one connection and one service thread per hop).
 */
public interface Transport extends AutoCloseable {
    /** Opens hop {@code hop} from host {@code from}; the link is ready to use when this returns. */
    Link connect(HostEnd from, Hop hop);

    /**
     * Opens the exchange link of {@code hop} from host {@code from} to the partner host, whose exchange wrapper is
     * {@code hop.targetNode()}: the lower-numbered host of a pair opens, the higher one is given its end through
     * {@link HostEnd#adoptPeer}. The link is ready to send when this returns.
     *
     * @throws UnsupportedOperationException for a transport without exchange links.
     */
    default PeerLink pair(HostEnd from, Hop hop) {
        throw new UnsupportedOperationException("transport " + name() + " has no exchange links (a butterfly tree)");
    }

    /** Transport name as given on the command line. */
    String name();

    @Override
    void close();
}
