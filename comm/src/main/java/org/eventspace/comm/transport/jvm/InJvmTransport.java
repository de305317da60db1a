package org.eventspace.comm.transport.jvm;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.eventspace.comm.transport.Hop;
import org.eventspace.comm.transport.HostEnd;
import org.eventspace.comm.transport.Link;
import org.eventspace.comm.transport.PeerLink;
import org.eventspace.comm.transport.Transport;

/** Hops between simulated hosts in one JVM; each hop gets a service thread of the target host. Thread-safe. */
public final class InJvmTransport implements Transport {
    private final Map<Integer, HostEnd> hosts = new ConcurrentHashMap<>();

    public void register(HostEnd host) {
        hosts.put(host.host(), host);
    }

    @Override
    public Link connect(HostEnd from, Hop hop) {
        HostEnd to = hosts.get(hop.toHost());
        if (to == null) {
            throw new IllegalArgumentException("no simulated host " + hop.toHost() + " in this JVM");
        }
        String name = from.hostName() + "->" + to.hostName() + ":"
                + (hop.isPointToPoint() ? hop.element() : to.pathmap().node(hop.targetNode()).name() + "[" + hop.targetPort() + "]");
        return InJvmLink.open(name, to.serve(hop), from.waitPolicy(), from.trafficChannel(hop, true), to.trafficChannel(hop, false));
    }

    /** Makes both ends of the exchange link of {@code hop}: returns the opener's, gives the partner host its own. */
    @Override
    public PeerLink pair(HostEnd from, Hop hop) {
        HostEnd to = hosts.get(hop.toHost());
        if (to == null) {
            throw new IllegalArgumentException("no simulated host " + hop.toHost() + " in this JVM");
        }
        String name = from.hostName() + "<->" + to.hostName() + ":" + to.pathmap().node(hop.targetNode()).name();
        InJvmPeerLink[] ends = InJvmPeerLink.open(name, from.waitPolicy(), to.waitPolicy(), from.trafficChannel(hop, true),
                to.trafficChannel(hop, false));
        to.adoptPeer(hop, ends[1]);
        return ends[0];
    }

    @Override
    public String name() {
        return "jvm";
    }

    @Override
    public void close() {
        hosts.clear();
    }
}
