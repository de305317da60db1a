package org.eventspace.comm.runtime;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.eventspace.comm.element.Element;
import org.eventspace.comm.element.ElementRegistry;
import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.Core;
import org.eventspace.comm.path.Gred;
import org.eventspace.comm.path.IdleWork;
import org.eventspace.comm.path.SpinYieldPark;
import org.eventspace.comm.path.WaitPolicy;
import org.eventspace.comm.path.Wrapper;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.traffic.TrafficCounters;
import org.eventspace.comm.transport.Hop;
import org.eventspace.comm.transport.HostEnd;
import org.eventspace.comm.transport.Link;
import org.eventspace.comm.transport.PeerLink;
import org.eventspace.comm.transport.Proxy;
import org.eventspace.comm.transport.Transport;

/**
 * Everything one host runs: its elements (the PastSet server), the wrappers the pathmap maps to it, and the
 * client ends of its hops to other hosts.
 *
 * <p>Built in two phases so that hosts connecting to each other never wait on each other: {@link #build()}
 * creates every local wrapper (no network), {@link #connect()} then opens the hops of its proxies. Service
 * threads of other hosts' hops look up wrappers with {@link #serve(Hop)}, which only reads what
 * {@code build()} made. After {@code connect()} the runtime is safe to use from any thread.
 */
public final class HostRuntime implements HostEnd, AutoCloseable {
    /** Tuples a point-to-point element holds before the oldest is lost; a receiver that falls that far behind fails. */
    public static final int P2P_CAPACITY = 64;
    /** Largest point-to-point message, in 64-bit words. */
    public static final int P2P_WORDS = 1024;

    private final Pathmap pathmap;
    private final int host;
    private final CommOptions options;
    private final ElementRegistry elements;
    private final Map<Integer, WrapperInstance> instances = new HashMap<>();
    private final Map<Integer, Gred> greds = new HashMap<>();
    private final List<Proxy> pendingProxies = new ArrayList<>();
    private final List<Link> links = new CopyOnWriteArrayList<>();
    /** Exchange links this host opens when it connects (to higher partners), and their ends as they come. */
    private final List<PendingPair> pendingPairs = new ArrayList<>();
    /** Exchange links by (partner host, own exchange node): opened here or adopted from the partner. */
    private final Map<Long, CompletableFuture<PeerLink>> peerLinks = new ConcurrentHashMap<>();
    private final SpinYieldPark waiting;
    /** Per tree: what its wrappers put off until one of this host's threads waits in one of its calls. */
    private final IdleWork[] idleWork;
    private final TrafficCounters traffic;
    private Transport transport;
    private volatile boolean built;

    public HostRuntime(Pathmap pathmap, int host, CommOptions options) {
        this.pathmap = pathmap;
        this.host = host;
        this.options = options;
        this.waiting = new SpinYieldPark(options.waitPolicy());
        this.idleWork = new IdleWork[pathmap.spec().trees()];
        for (int t = 0; t < idleWork.length; t++) {
            idleWork[t] = new IdleWork();
        }
        this.elements = new ElementRegistry(pathmap.spec().topology().host(host).name());
        this.traffic = options.traffic() == null ? TrafficCounters.OFF
                : new TrafficCounters(host, pathmap.spec().ranks(), pathmap.spec().topology().size(), options.traffic());
    }

    /** This host's traffic counters ({@link TrafficCounters#OFF} unless the options name a traffic scope). */
    @Override
    public TrafficCounters traffic() {
        return traffic;
    }

    @Override
    public int host() {
        return host;
    }

    @Override
    public String hostName() {
        return pathmap.spec().topology().host(host).name();
    }

    @Override
    public Pathmap pathmap() {
        return pathmap;
    }

    public ElementRegistry elements() {
        return elements;
    }

    @Override
    public WaitPolicy waitPolicy() {
        return options.waitPolicy();
    }

    /** The wait strategy of this host's threads, built once from {@link #waitPolicy()}. */
    public SpinYieldPark waiting() {
        return waiting;
    }

    /**
     * What this host's wrappers of tree {@code tree} put off until one of its threads waits anyway in a call of that
     * tree (a butterfly's exchange runs it after it sent).
     */
    public IdleWork idleWork(int tree) {
        return idleWork[tree];
    }

    /** Runs the work put off ({@link #idleWork}) once this host's ranks returned, so nothing stays put off. */
    public void ranksReturned() {
        for (IdleWork work : idleWork) {
            work.run();
        }
    }

    public Gred.ReleaseListener releaseListener() {
        return options.releaseListener();
    }

    public CommOptions options() {
        return options;
    }

    /** Phase 1: creates every wrapper mapped to this host. */
    public synchronized void build() {
        for (Node node : pathmap.nodesOn(host)) {
            instance(node.id());
        }
        built = true;
    }

    /** Phase 2: opens the hop of every proxy on this host through {@code transport}. */
    public void connect(Transport transport) {
        this.transport = transport;
        List<Proxy> proxies;
        synchronized (this) {
            proxies = new ArrayList<>(pendingProxies);
            pendingProxies.clear();
        }
        for (Proxy proxy : proxies) {
            open(proxy);
        }
        openPairs();
    }

    /** Phase 2 for exchanges: opens the exchange links this host opens (after its proxies, so no host waits on another). */
    private void openPairs() {
        List<PendingPair> pairs;
        synchronized (this) {
            pairs = new ArrayList<>(pendingPairs);
            pendingPairs.clear();
        }
        for (PendingPair pair : pairs) {
            try {
                pair.link.complete(transport.pair(this, pair.hop));
            } catch (RuntimeException e) {
                pair.link.completeExceptionally(e);
                throw e;
            }
        }
    }

    private record PendingPair(Hop hop, CompletableFuture<PeerLink> link) {
    }

    private static long peerKey(int partnerHost, int ownNode) {
        return ((long) partnerHost << 32) | (ownNode & 0xFFFF_FFFFL);
    }

    /**
     * The exchange link between exchange node {@code ownNode} here and {@code partnerNode} on {@code partnerHost}. The
     * lower host of the pair opens it when it connects ({@link Transport#pair}), the higher one is given it
     * ({@link #adoptPeer}); either way the returned link waits for it on first use, up to the job's timeout. Call while
     * this host builds (phase 1).
     */
    public synchronized PeerLink peerLink(int ownNode, int partnerHost, int partnerNode) {
        if (partnerHost == host) {
            throw new IllegalArgumentException("an exchange pairs two hosts; node " + ownNode + " paired with its own host");
        }
        CompletableFuture<PeerLink> future = peerLinks.computeIfAbsent(peerKey(partnerHost, ownNode), k -> new CompletableFuture<>());
        if (partnerHost > host) {
            pendingPairs.add(new PendingPair(Hop.toNode(host, partnerHost, partnerNode, 0), future));
        }
        String what = pathmap.node(ownNode).name() + " <-> " + pathmap.node(partnerNode).name();
        return new AwaitedPeerLink(what, future, options.waitPolicy().timeoutNanos());
    }

    /** Whether {@code hop} opens an exchange link to an exchange wrapper of this host. */
    @Override
    public boolean isPeerHop(Hop hop) {
        if (hop.isPointToPoint() || hop.targetNode() >= pathmap.nodes().size()) {
            return false;
        }
        Node node = pathmap.node(hop.targetNode());
        return node.host() == host && node.kind().equals(PathmapBuilder.EXCHANGE);
    }

    @Override
    public void adoptPeer(Hop hop, PeerLink link) {
        if (!isPeerHop(hop) || hop.fromHost() >= host || !pairs(hop.targetNode(), hop.fromHost())) {
            link.close();
            throw new IllegalArgumentException("host " + hostName() + " has no exchange that host " + hop.fromHost()
                    + " opens to node " + hop.targetNode());
        }
        if (!peerLinks.computeIfAbsent(peerKey(hop.fromHost(), hop.targetNode()), k -> new CompletableFuture<>()).complete(link)) {
            link.close();
            throw new IllegalArgumentException("host " + hop.fromHost() + " opened the exchange to "
                    + pathmap.node(hop.targetNode()).name() + " a second time");
        }
    }

    /** Whether exchange {@code node} of this host exchanges with host {@code otherHost} (from the pathmap alone). */
    private boolean pairs(int node, int otherHost) {
        Node own = pathmap.node(node);
        List<Node> exchanges = Butterfly.exchanges(pathmap, own.tree());
        for (int partner : Butterfly.Plan.of(Butterfly.index(own), exchanges.size()).partners()) {
            if (exchanges.get(partner).host() == otherHost) {
                return true;
            }
        }
        return false;
    }

    /** An exchange link that waits for its end on first use: opened by this host's connect, or adopted from a partner. */
    private static final class AwaitedPeerLink implements PeerLink {
        private final String what;
        private final CompletableFuture<PeerLink> future;
        private final long timeoutNanos;
        private PeerLink link;

        AwaitedPeerLink(String what, CompletableFuture<PeerLink> future, long timeoutNanos) {
            this.what = what;
            this.future = future;
            this.timeoutNanos = timeoutNanos;
        }

        private PeerLink link() {
            PeerLink l = link;
            if (l == null) {
                try {
                    l = future.get(timeoutNanos, TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    throw new CommException("exchange " + what + ": the partner did not connect within "
                            + timeoutNanos / 1_000_000 + " ms", e);
                } catch (ExecutionException e) {
                    throw new CommException("exchange " + what + ": could not be opened: " + e.getCause().getMessage(), e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new CommException("exchange " + what + ": interrupted while waiting for the partner", e);
                }
                link = l;
            }
            return l;
        }

        @Override
        public void send(Message message) {
            link().send(message);
        }

        @Override
        public void receive(Message into) {
            link().receive(into);
        }

        /** Closes the link if it came; the host closes the rest ({@link HostRuntime#close}). */
        @Override
        public void close() {
            if (future.isDone() && !future.isCompletedExceptionally()) {
                future.join().close();
            }
        }
    }

    /** Opens {@code proxy}'s hop through this host's transport and attaches it; the link is closed with the host. */
    private void open(Proxy proxy) {
        Link link = transport.connect(this, proxy.hop());
        links.add(link);
        proxy.attach(link);
    }

    /**
     * The host {@link PointToPointRoute} sends {@code what} to next on its way to {@code toHost}, another host.
     *
     * @throws IllegalStateException if the route names this host itself (a route that would never arrive).
     */
    private int nextHost(String what, int toHost) {
        int next = options.kinds().pointToPointRoute().next(pathmap, host, toHost);
        if (next == host) {
            throw new IllegalStateException("the route sends " + what + " from host " + hostName() + " to itself");
        }
        return next;
    }

    /** The wrapper a rank's path starts at: port {@code port} of node {@code node} on this host. */
    public Wrapper entry(int node, int port) {
        WrapperInstance instance = instances.get(node);
        if (instance == null) {
            throw new IllegalArgumentException("node " + node + " is not on host " + hostName());
        }
        return instance.port(port);
    }

    /** What the service thread of {@code hop} calls for every message it receives. */
    @Override
    public Wrapper serve(Hop hop) {
        if (hop.toHost() != host) {
            throw new IllegalArgumentException("hop to host " + hop.toHost() + " arrived at host " + host);
        }
        if (hop.isPointToPoint()) {
            int toHost = checkMailbox(hop);
            if (toHost != host) {
                return options.kinds().pointToPoint().wrap(this, hop.element(), PointToPointWrappers.Side.RELAY,
                        new RelayStub(hop.element(), Hop.toElement(host, nextHost(hop.element(), toHost), hop.element())));
            }
            return options.kinds().pointToPoint().wrap(this, hop.element(), PointToPointWrappers.Side.SERVE,
                    new Core(pointToPointElement(hop.element())));
        }
        if (!built) {
            throw new IllegalStateException("host " + hostName() + " was asked to serve " + hop + " before it was built");
        }
        Node target = pathmap.node(hop.targetNode());
        boolean routed = target.tree() < 0;
        if (target.host() != host) {
            // Only a node outside the trees (remoteNode: a scope's) is reached through relays; the trees' own hops are
            // laid in the pathmap, host to host.
            if (!routed || options.kinds().pointToPointRoute().next(pathmap, hop.fromHost(), target.host()) != host) {
                throw new IllegalArgumentException("hop targets " + target.name() + ", which is not on host " + hostName()
                        + (routed ? " nor routed through it from host " + hop.fromHost() : ""));
            }
            return options.kinds().hopWrappers().wrap(this, hop.fromHost(), target.host(), PointToPointWrappers.Side.RELAY,
                    new RelayStub(target.name(), Hop.toNode(host, nextHost(target.name(), target.host()),
                            hop.targetNode(), hop.targetPort())));
        }
        Wrapper entry = entry(hop.targetNode(), hop.targetPort());
        return routed ? options.kinds().hopWrappers().wrap(this, hop.fromHost(), host, PointToPointWrappers.Side.SERVE, entry)
                : entry;
    }

    /**
     * A point-to-point hop writes one mailbox ({@link PathComm#mailbox}) of a rank from a rank, on the route the
     * {@link PointToPointRoute} gives from the sender's host to the receiver's: it arrives from the host before this one
     * on that route, and this host is the receiver's or the next relay. Every other element name is refused, since
     * serving it would allocate an element of {@value #P2P_CAPACITY} × {@value #P2P_WORDS} words for any name a peer makes
     * up. Returns the receiver's host.
     */
    private int checkMailbox(Hop hop) {
        int[] ranks = PathComm.mailboxRanks(hop.element());
        int size = pathmap.spec().ranks();
        if (ranks != null && ranks[0] < size && ranks[1] < size) {
            int toHost = pathmap.spec().hostOf(ranks[1]);
            PointToPointRoute route = options.kinds().pointToPointRoute();
            int at = pathmap.spec().hostOf(ranks[0]);
            for (int step = 0; step < pathmap.spec().topology().size() && at != toHost; step++) {
                int next = route.next(pathmap, at, toHost);
                if (at == hop.fromHost() && next == host) {
                    return toHost;
                }
                at = next;
            }
        }
        String name = hop.element().length() <= 80 ? hop.element() : hop.element().substring(0, 80) + "…";
        throw new IllegalArgumentException("element '" + name + "' is not the mailbox p2p.<source>.<dest> of a send "
                + "that reaches host " + hostName() + " from host " + hop.fromHost() + " on its route");
    }

    /**
     * The stub of a relay's hop to the next host of a route, connected when the first message passes (a relay is built
     * by a hop's service thread, which must not wait on other hosts while it answers its handshake). One caller: the
     * service thread of the hop it relays.
     */
    private final class RelayStub implements Wrapper {
        private final Proxy proxy;
        private boolean connected;

        RelayStub(String what, Hop next) {
            this.proxy = new Proxy(what + ".via." + hostName(), next);
        }

        @Override
        public void call(Message message) {
            if (!connected) {
                open(proxy);
                connected = true;
            }
            proxy.call(message);
        }
    }

    /** The wrapper a rank on this host calls to write into {@code element} on {@code toHost}. */
    public Wrapper pointToPoint(int toHost, String element) {
        PointToPointWrappers wrappers = options.kinds().pointToPoint();
        if (toHost == host) {
            return wrappers.wrap(this, element, PointToPointWrappers.Side.SEND, new Core(pointToPointElement(element)));
        }
        if (transport == null) {
            throw new IllegalStateException("host " + hostName() + " is not connected");
        }
        Proxy proxy = new Proxy("p2p." + element, Hop.toElement(host, nextHost(element, toHost), element));
        open(proxy);
        return wrappers.wrap(this, element, PointToPointWrappers.Side.SEND, proxy);
    }

    public Element pointToPointElement(String name) {
        return elements.allocate(name, P2P_CAPACITY, P2P_WORDS);
    }

    /** The wrapper {@code node} calls going down; must be on this host (else the pathmap would have a proxy). */
    public Wrapper downstream(Node node) {
        if (node.isRoot()) {
            throw new IllegalArgumentException(node.name() + " is a root and calls nothing");
        }
        Node parent = pathmap.node(node.parent());
        if (parent.host() != host) {
            throw new IllegalArgumentException(node.name() + " calls " + parent.name() + " on another host");
        }
        return instance(parent.id()).port(node.parentPort());
    }

    /**
     * The wrapper a wrapper kind calls to reach port {@code port} of node {@code node} on another host when no proxy node
     * of the pathmap lies between them (an event scope's gather calling its children; {@code node} must be outside the
     * trees). The call takes the {@link PointToPointRoute}, as point-to-point sends do, so a layer that reroutes traffic
     * (the WAN emulation, through its gateways) reroutes it too, and {@link HopWrappers} wrap it at each host on the way.
     * Call while this host builds (phase 1): the hop opens with the host's other hops ({@link #connect}).
     */
    public Wrapper remoteNode(String name, int toHost, int node, int port) {
        if (toHost == host) {
            throw new IllegalArgumentException(name + ": node " + node + " is on this host, " + hostName());
        }
        if (pathmap.node(node).tree() >= 0) {
            throw new IllegalArgumentException(name + ": node " + pathmap.node(node).name()
                    + " is in a tree; its callers reach it through the pathmap's proxies");
        }
        Proxy proxy = new Proxy(name, Hop.toNode(host, nextHost(name, toHost), node, port));
        connectLater(proxy);
        return options.kinds().hopWrappers().wrap(this, host, toHost, PointToPointWrappers.Side.SEND, proxy);
    }

    /**
     * Registers a proxy that a wrapper kind made while this host builds (phase 1); {@link #connect} opens its hop
     * and attaches the link (phase 2). For kinds whose wrappers call nodes on other hosts without a proxy node of
     * the pathmap between them, e.g. an event scope's gather calling its children.
     */
    public synchronized void connectLater(Proxy proxy) {
        pendingProxies.add(proxy);
    }

    synchronized void registerGred(Node node, Gred gred) {
        greds.put(node.id(), gred);
    }

    /** Fails every gred on this host, so that its waiters stop waiting for a host that is gone. */
    @Override
    public void failAll(CommException cause) {
        List<Gred> all;
        synchronized (this) {
            all = new ArrayList<>(greds.values());
        }
        for (Gred gred : all) {
            gred.fail(cause);
        }
        // The butterfly's partners learn of it from their closed links, and fail theirs in turn (Butterfly).
        closePeerLinks(cause);
    }

    private void closePeerLinks(CommException cause) {
        for (CompletableFuture<PeerLink> future : peerLinks.values()) {
            // A link still to come is refused from now on; one that came is closed, which fails a waiting receive.
            if (!future.completeExceptionally(cause) && !future.isCompletedExceptionally()) {
                future.join().close(cause.getMessage());
            }
        }
    }

    private synchronized WrapperInstance instance(int id) {
        WrapperInstance instance = instances.get(id);
        if (instance == null) {
            Node node = pathmap.node(id);
            if (node.host() != host) {
                throw new IllegalArgumentException(node.name() + " is not on host " + hostName());
            }
            instance = options.kinds().get(node.kind()).create(node, this);
            instances.put(id, instance);
        }
        return instance;
    }

    @Override
    public void close() {
        for (Link link : links) {
            link.close();
        }
        links.clear();
        closePeerLinks(new CommException("host " + hostName() + " closed"));
    }
}
