package org.eventspace.comm.transport.tcp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.eventspace.comm.path.CommException;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.transport.Hop;
import org.eventspace.comm.transport.HostEnd;
import org.eventspace.comm.transport.Link;
import org.eventspace.comm.transport.PeerLink;
import org.eventspace.comm.transport.Transport;

/**
 * Hops between host processes over TCP: every {@link #connect} opens one connection (TCP_NODELAY) to the
 * {@link TcpServer} of the target host, which serves it with one thread of its own.
 *
 * <p>Thread-safe: any thread may connect; each returned link has one caller at a time. {@link #close()} closes
 * every link this transport opened.
 */
public final class TcpTransport implements Transport {
    private final List<InetSocketAddress> addresses;
    private final JobSecret secret;
    private final TcpOptions options;
    private final List<TcpLink> links = new CopyOnWriteArrayList<>();
    private final List<TcpPeerLink> peers = new CopyOnWriteArrayList<>();

    /**
     * @param addresses the {@link TcpServer} address of every host of the job, by host id.
     */
    public TcpTransport(List<InetSocketAddress> addresses, JobSecret secret, TcpOptions options) {
        this.addresses = List.copyOf(addresses);
        this.secret = secret;
        this.options = options;
    }

    @Override
    public Link connect(HostEnd from, Hop hop) {
        if (hop.fromHost() != from.host()) {
            throw new IllegalArgumentException("hop from host " + hop.fromHost() + " opened by host " + from.host());
        }
        if (hop.toHost() < 0 || hop.toHost() >= addresses.size() || hop.toHost() == from.host()) {
            throw new IllegalArgumentException("hop to host " + hop.toHost() + " from host " + from.host()
                    + ": the job has hosts 0.." + (addresses.size() - 1) + " and a hop crosses hosts");
        }
        Pathmap pathmap = from.pathmap();
        TcpLink link = TcpLink.connect(hopName(pathmap, hop), pathmap.spec().topology().host(hop.toHost()).name(), hop,
                addresses.get(hop.toHost()), secret, options, from.waitPolicy().timeoutNanos(), from.trafficChannel(hop, true));
        links.add(link);
        return link;
    }

    /** Opens the exchange link of {@code hop} to the partner host: the lower host of a pair opens it. */
    @Override
    public PeerLink pair(HostEnd from, Hop hop) {
        if (hop.fromHost() != from.host() || hop.toHost() <= hop.fromHost() || hop.toHost() >= addresses.size()) {
            throw new IllegalArgumentException("exchange " + hop + " opened by host " + from.host()
                    + ": the lower host of a pair opens it, to one of hosts " + (from.host() + 1) + ".." + (addresses.size() - 1));
        }
        Pathmap pathmap = from.pathmap();
        String name = hopName(pathmap, hop);
        FrameChannel channel = TcpLink.handshake(name, pathmap.spec().topology().host(hop.toHost()).name(), hop,
                addresses.get(hop.toHost()), secret, options);
        try {
            TcpPeerLink link = new TcpPeerLink(name, channel.detach(), options, from.waitPolicy().timeoutNanos(),
                    from.trafficChannel(hop, true));
            peers.add(link);
            return link;
        } catch (IOException e) {
            channel.close();
            throw new CommException("exchange " + name + ": could not set up its end: " + TcpLink.describe(e), e);
        }
    }

    /** How messages and thread names call a hop: {@code h1->h0:t0.gred.h0.0[1]}, or {@code h1->h0:p2p.3.0}. */
    public static String hopName(Pathmap pathmap, Hop hop) {
        String from = pathmap.spec().topology().host(hop.fromHost()).name();
        String to = pathmap.spec().topology().host(hop.toHost()).name();
        String target = hop.isPointToPoint() ? hop.element()
                : pathmap.node(hop.targetNode()).name() + "[" + hop.targetPort() + "]";
        return from + "->" + to + ":" + target;
    }

    public List<InetSocketAddress> addresses() {
        return addresses;
    }

    @Override
    public String name() {
        return "tcp";
    }

    @Override
    public void close() {
        for (TcpLink link : links) {
            link.close();
        }
        links.clear();
        for (TcpPeerLink peer : peers) {
            peer.close();
        }
        peers.clear();
    }
}
