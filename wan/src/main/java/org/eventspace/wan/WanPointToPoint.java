package org.eventspace.wan;

import org.eventspace.comm.path.Wrapper;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.runtime.HopWrappers;
import org.eventspace.comm.runtime.HostRuntime;
import org.eventspace.comm.runtime.PointToPointRoute;
import org.eventspace.comm.runtime.PointToPointWrappers;
import org.eventspace.comm.transport.Hop;

/**
 * Point-to-point sends across the emulated WAN, which hosts build on demand outside the pathmap and so outside
 * {@link WanPlacement}: routed as a tree hop is (dissertation §8.1 §III, "all communication to the sub-cluster is routed
 * through its gateway"), and delayed by the same gateways' schedules, so a halo exchange between two sites shares each
 * link's serialisation with the trees' messages. A send from rank r on host {@code a} (site S) to rank d on host
 * {@code b} (site T) goes
 *
 * <pre>
 *   a ─► gS: longcut(down S&gt;T) ─► gT: longcut(up T&gt;S) ─► b
 * </pre>
 *
 * (each arrow a hop where the hosts differ): S's gateway delays the message on its way out of S, T's gateway the reply
 * (the send's completion, as for every send on this communication system, which writes into the receiver's element) on
 * its way back. Within a site nothing changes.
 *
 * <p>The event scope's gathers, whose hops to their children are not the trees' proxies either
 * ({@code HostRuntime.remoteNode}), take the same route and the same delays ({@link HopWrappers}): the monitors' results
 * cross the emulated links as the dissertation's did (ch. 4).
 *
 * <p>Where a Longcut sits among the other point-to-point wrappers (the event collectors): on the sender's path below the
 * send's collector, so the collector's two-way latency includes the WAN; on the receiver's path above the serving
 * collector, so the store it times is the store alone. Relays carry no collector.
 */
final class WanPointToPoint implements PointToPointWrappers, PointToPointRoute, HopWrappers {
    private final WanLayout layout;
    private final PointToPointWrappers inner;
    private final LongcutKind gateways;
    /** The site map of the last pathmap asked about: every host of a job has the same one. */
    private volatile Placed placed;

    private record Placed(Pathmap pathmap, WanPlacement.Sites sites) {
    }

    WanPointToPoint(WanLayout layout, PointToPointWrappers inner, LongcutKind gateways) {
        this.layout = layout;
        this.inner = inner;
        this.gateways = gateways;
    }

    private WanPlacement.Sites sites(Pathmap pathmap) {
        Placed p = placed;
        if (p == null || p.pathmap() != pathmap) {
            p = new Placed(pathmap, WanPlacement.sites(layout, pathmap.spec().topology()));
            placed = p;
        }
        return p.sites();
    }

    @Override
    public int next(Pathmap pathmap, int atHost, int toHost) {
        WanPlacement.Sites sites = sites(pathmap);
        String s = sites.siteOf(atHost);
        String t = sites.siteOf(toHost);
        if (s.equals(t)) {
            return toHost;
        }
        int gs = sites.gateway(s);
        return atHost != gs ? gs : sites.gateway(t);
    }

    @Override
    public Wrapper wrap(HostRuntime host, String mailbox, Side side, Wrapper wrapper) {
        int[] ranks = Hop.mailboxRanks(mailbox);
        if (ranks == null) {
            return inner.wrap(host, mailbox, side, wrapper);
        }
        Pathmap pathmap = host.pathmap();
        int from = pathmap.spec().hostOf(ranks[0]);
        int to = pathmap.spec().hostOf(ranks[1]);
        String what = "rank " + ranks[0] + " sends to rank " + ranks[1];
        return switch (side) {
            case SEND -> inner.wrap(host, mailbox, side, delayed(host, from, to, what, wrapper));
            case SERVE, RELAY -> delayed(host, from, to, what, inner.wrap(host, mailbox, side, wrapper));
        };
    }

    @Override
    public Wrapper wrap(HostRuntime host, int cameFrom, int toHost, Side side, Wrapper wrapper) {
        // The route is caller → gS → gT → target, so the host a call comes from is always on the caller's site.
        return delayed(host, cameFrom, toHost, "a gather's call from host " + cameFrom + " to host " + toHost, wrapper);
    }

    /**
     * {@code wrapper} behind a Longcut when {@code host} is a gateway of a call from a host on {@code fromHost}'s site to
     * {@code toHost} on another site: S's gateway delays it going down (S&gt;T), T's the reply coming up (T&gt;S);
     * {@code wrapper} itself elsewhere.
     */
    private Wrapper delayed(HostRuntime host, int fromHost, int toHost, String what, Wrapper wrapper) {
        WanPlacement.Sites sites = sites(host.pathmap());
        String s = sites.siteOf(fromHost);
        String t = sites.siteOf(toHost);
        boolean leaves = !s.equals(t) && host.host() == sites.gateway(s);
        boolean returns = !s.equals(t) && host.host() == sites.gateway(t);
        if (!leaves && !returns) {
            return wrapper;
        }
        GatewayScheduler scheduler = gateways.scheduler(host);
        int down = leaves ? scheduler.link(linkName(s, t, what)) : -1;
        int up = returns ? scheduler.link(linkName(t, s, what)) : -1;
        return new Longcut(wrapper, scheduler.register(), down, up);
    }

    private String linkName(String from, String to, String what) {
        LinkDirection link = layout.link(from, to);
        if (link == null) {
            throw new IllegalArgumentException(layout.source() + ": no 'link " + from + " " + to + "' line, but " + what
                    + " between sites " + from + " and " + to + " (each direction needs a line)");
        }
        return link.name();
    }
}
