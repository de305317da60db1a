package org.eventspace.comm.transport;

import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.WaitPolicy;
import org.eventspace.comm.path.Wrapper;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.traffic.TrafficCounters;

/**
 * A host as the end of its hops: what a {@link Transport} needs of the host that opens a hop (who it is, its
 * pathmap, how long its callers wait) and of the host that serves one (the wrapper a hop's service thread runs,
 * and failing its greds when a peer is lost). The runtime's host implements it; transports see nothing else of
 * the runtime, so {@code transport} does not depend on {@code runtime}.
 *
 * <p>Implementations may be called from any thread once they are built.
 */
public interface HostEnd {
    /** This host's id in the pathmap's topology. */
    int host();

    /** This host's name, for thread names and messages. */
    String hostName();

    Pathmap pathmap();

    /** How this host's threads wait, and the job's timeout. */
    WaitPolicy waitPolicy();

    /** What the service thread of {@code hop} calls for every message it receives; {@code hop} must end here. */
    Wrapper serve(Hop hop);

    /** Whether {@code hop} opens an exchange link to one of this host's exchange wrappers (a butterfly's partner). */
    default boolean isPeerHop(Hop hop) {
        return false;
    }

    /**
     * Takes this host's end of the exchange link a partner opened ({@link Transport#pair}); the exchange wrapper that
     * {@code hop} targets uses it from its first call on.
     *
     * @throws IllegalArgumentException if no exchange wrapper here pairs with {@code hop}'s host, or the link is a second one.
     */
    default void adoptPeer(Hop hop, PeerLink link) {
        link.close();
        throw new IllegalArgumentException("host " + hostName() + " has no exchange wrapper for " + hop);
    }

    /** Fails every gred on this host, so that its waiters stop waiting for a host that is gone. */
    void failAll(CommException cause);

    /** Where this host's hops count the messages they hand to the network; {@link TrafficCounters#OFF} by default. */
    default TrafficCounters traffic() {
        return TrafficCounters.OFF;
    }

    /**
     * The channel a hop's end counts through: the calling end ({@code calling}) on the hop's source host, or the serving
     * end on its target host. A point-to-point hop counts under its two ranks (mailbox {@code p2p.<source>.<dest>}), a
     * tree hop under the two hosts.
     */
    default TrafficCounters.Channel trafficChannel(Hop hop, boolean calling) {
        TrafficCounters counters = traffic();
        if (!counters.enabled()) {
            return TrafficCounters.Channel.NONE;
        }
        int source = -1;
        int dest = -1;
        if (hop.isPointToPoint()) {
            int[] ranks = Hop.mailboxRanks(hop.element());
            if (ranks == null) {
                return TrafficCounters.Channel.NONE;
            }
            source = ranks[0];
            dest = ranks[1];
            int end = pathmap().spec().hostOf(calling ? source : dest);
            if (end != host()) {
                // A relay's end of a rerouted send (PointToPointRoute: a WAN gateway): counted as this host's traffic
                // with its peer, as a tree hop through the gateway is; the ranks' matrix counts the send once, at the
                // sender's and at the receiver's host.
                return calling ? counters.client(false, -1, -1, hop.toHost()) : counters.server(false, -1, -1, hop.fromHost());
            }
        }
        return calling ? counters.client(hop.isPointToPoint(), source, dest, hop.toHost())
                : counters.server(hop.isPointToPoint(), source, dest, hop.fromHost());
    }
}
