package org.eventspace.comm.transport.jvm;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.eventspace.comm.transport.Hop;
import org.eventspace.comm.transport.HostEnd;
import org.eventspace.comm.transport.Link;
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

    @Override
    public String name() {
        return "jvm";
    }

    @Override
    public void close() {
        hosts.clear();
    }
}
