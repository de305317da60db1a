package org.eventspace.comm.runtime;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.eventspace.comm.element.Element;
import org.eventspace.comm.path.Core;
import org.eventspace.comm.path.Gred;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.transport.Hop;
import org.eventspace.comm.transport.PeerLink;
import org.eventspace.comm.transport.Proxy;

/** The wrapper kinds a host can instantiate, by name. Immutable; {@link #with} returns an extended copy. */
public final class WrapperKinds {
    /** Tuples kept in a tree's result element: results are read as "newest", so a few suffice. */
    public static final int RESULT_CAPACITY = 16;
    /** The most bytes a tree's result element takes: its ring shrinks (to 2 slots at least) for very large payloads. */
    public static final long RESULT_ELEMENT_BYTES = 64L << 20;

    /**
     * Slots of a result element for payloads of {@code words}: {@link #RESULT_CAPACITY}, fewer (a power of two, at
     * least 2) where that many slots would take more than {@link #RESULT_ELEMENT_BYTES}; the core only ever needs the
     * newest result, so 2 slots lose nothing but history.
     */
    public static int resultCapacity(int words) {
        long slot = org.eventspace.comm.element.TupleSlotLayout.slotBytes(words);
        long fit = Math.max(2, RESULT_ELEMENT_BYTES / slot);
        return (int) Math.min(RESULT_CAPACITY, Long.highestOneBit(fit));
    }

    private final Map<String, WrapperKind> kinds;
    private final PointToPointWrappers pointToPoint;
    private final PointToPointRoute route;
    private final HopWrappers hops;

    private WrapperKinds(Map<String, WrapperKind> kinds, PointToPointWrappers pointToPoint, PointToPointRoute route,
                         HopWrappers hops) {
        this.kinds = Map.copyOf(kinds);
        this.pointToPoint = pointToPoint;
        this.route = route;
        this.hops = hops;
    }

    /** gred, proxy, core and exchange. */
    public static WrapperKinds builtIn() {
        Map<String, WrapperKind> map = new LinkedHashMap<>();
        put(map, new GredKind());
        put(map, new ProxyKind());
        put(map, new CoreKind());
        put(map, new ExchangeKind());
        return new WrapperKinds(map, PointToPointWrappers.NONE, PointToPointRoute.DIRECT, HopWrappers.NONE);
    }

    public WrapperKinds with(WrapperKind kind) {
        Map<String, WrapperKind> map = new LinkedHashMap<>(kinds);
        put(map, kind);
        return new WrapperKinds(map, pointToPoint, route, hops);
    }

    /** A copy whose point-to-point paths, built on demand outside the pathmap, go through {@code wrappers}. */
    public WrapperKinds withPointToPoint(PointToPointWrappers wrappers) {
        PointToPointWrappers p = required(wrappers, "point-to-point wrappers", "PointToPointWrappers.NONE");
        return new WrapperKinds(kinds, p, route, hops);
    }

    public PointToPointWrappers pointToPoint() {
        return pointToPoint;
    }

    /** A copy whose point-to-point messages take the hosts {@code next} gives ({@link PointToPointRoute#DIRECT}: none between). */
    public WrapperKinds withPointToPointRoute(PointToPointRoute next) {
        PointToPointRoute r = required(next, "point-to-point route", "PointToPointRoute.DIRECT");
        return new WrapperKinds(kinds, pointToPoint, r, hops);
    }

    public PointToPointRoute pointToPointRoute() {
        return route;
    }

    /** A copy whose hops to nodes outside the pathmap's proxies ({@link HostRuntime#remoteNode}) go through {@code wrappers}. */
    public WrapperKinds withHopWrappers(HopWrappers wrappers) {
        return new WrapperKinds(kinds, pointToPoint, route, required(wrappers, "hop wrappers", "HopWrappers.NONE"));
    }

    public HopWrappers hopWrappers() {
        return hops;
    }

    /** {@code value}, which a {@code with…} copy must be given: its default is {@code none}, never null. */
    private static <T> T required(T value, String what, String none) {
        if (value == null) {
            throw new IllegalArgumentException(what + " must not be null; use " + none);
        }
        return value;
    }

    public WrapperKind get(String name) {
        WrapperKind kind = kinds.get(name);
        if (kind == null) {
            throw new IllegalArgumentException("unknown wrapper kind '" + name + "'; known: " + kinds.keySet());
        }
        return kind;
    }

    private static void put(Map<String, WrapperKind> map, WrapperKind kind) {
        if (map.putIfAbsent(kind.name(), kind) != null) {
            throw new IllegalArgumentException("wrapper kind '" + kind.name() + "' is already registered");
        }
    }

    private static final class GredKind implements WrapperKind {
        @Override
        public String name() {
            return PathmapBuilder.GRED;
        }

        @Override
        public WrapperInstance create(Node node, HostRuntime host) {
            Gred gred = new Gred(node.name(), node.arity(), host.downstream(node), host.waitPolicy(), host.releaseListener());
            host.registerGred(node, gred);
            return gred::port;
        }
    }

    private static final class ProxyKind implements WrapperKind {
        @Override
        public String name() {
            return PathmapBuilder.PROXY;
        }

        @Override
        public WrapperInstance create(Node node, HostRuntime host) {
            Node parent = host.pathmap().node(node.parent());
            Proxy proxy = new Proxy(node.name(), Hop.toNode(node.host(), parent.host(), parent.id(), node.parentPort()));
            host.connectLater(proxy);
            return WrapperInstance.single(proxy);
        }
    }

    private static final class ExchangeKind implements WrapperKind {
        @Override
        public String name() {
            return PathmapBuilder.EXCHANGE;
        }

        @Override
        public WrapperInstance create(Node node, HostRuntime host) {
            Pathmap pathmap = host.pathmap();
            List<Node> exchanges = Butterfly.exchanges(pathmap, node.tree());
            Butterfly.Plan plan = Butterfly.Plan.of(Butterfly.index(node), exchanges.size());
            int[] partners = plan.partners();
            PeerLink[] links = new PeerLink[partners.length];
            for (int i = 0; i < partners.length; i++) {
                Node partner = exchanges.get(partners[i]);
                links[i] = host.peerLink(node.id(), partner.host(), partner.id());
            }
            return WrapperInstance.single(new Butterfly(node.name(), plan, links, host.downstream(node),
                    pathmap.spec().resultWords(), host::failAll, host.idleWork(node.tree())));
        }
    }

    private static final class CoreKind implements WrapperKind {
        @Override
        public String name() {
            return PathmapBuilder.CORE;
        }

        @Override
        public WrapperInstance create(Node node, HostRuntime host) {
            // A tree's core is called by one thread at a time, each call after the last (its gred's last arriver,
            // or its hop's one service thread): the result element needs no write lock.
            int words = Integer.parseInt(node.property(PathmapBuilder.RESULT_WORDS));
            Element element = host.elements().allocate(node.property(PathmapBuilder.ELEMENT), resultCapacity(words),
                    words, true);
            return WrapperInstance.single(new Core(element));
        }
    }
}
