package org.eventspace.events;

import java.util.function.Function;

import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.runtime.HostRuntime;
import org.eventspace.comm.runtime.WrapperInstance;
import org.eventspace.comm.runtime.WrapperKind;

/**
 * The wrapper kind {@value #NAME}: makes an {@link EventCollector} for a pathmap node, with its trace buffer
 * allocated in the event space of the node's host. Registered with
 * {@code WrapperKinds.builtIn().with(new CollectorKind(eventSpaceOfHost))}; no other kind changes.
 *
 * <p>Node properties: {@value #COLLECTOR_ID} (required, an int ≥ 0, unique per host) and {@value #CAPACITY}
 * (optional, tuples, a power of two; the event space's default otherwise). Thread-safe as long as
 * {@code eventSpaceOfHost} is.
 */
public final class CollectorKind implements WrapperKind {
    public static final String NAME = "collector";
    public static final String COLLECTOR_ID = "collectorId";
    public static final String CAPACITY = "capacity";

    private final Function<HostRuntime, EventSpace> eventSpaceOfHost;

    /** @param eventSpaceOfHost the event space of each host runtime (one per host). */
    public CollectorKind(Function<HostRuntime, EventSpace> eventSpaceOfHost) {
        this.eventSpaceOfHost = eventSpaceOfHost;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public WrapperInstance create(Node node, HostRuntime host) {
        int collectorId = collectorId(node);
        EventSpace space = eventSpaceOfHost.apply(host);
        if (space == null) {
            throw new IllegalStateException("collector " + node.name() + ": host " + host.hostName() + " has no event space");
        }
        int capacity = capacity(node);
        TraceBuffer buffer = capacity == 0
                ? space.allocate(collectorId, node.name())
                : space.allocate(collectorId, node.name(), capacity);
        Pathmap pathmap = host.pathmap();
        return WrapperInstance.single(new EventCollector(collectorId, buffer, host.downstream(node),
                clockSharing(pathmap, node), offersDownClock(pathmap, node), takesDownClock(pathmap, node),
                onButterfly(pathmap, node) ? host.idleWork(node.tree()) : null));
    }

    /**
     * Whether {@code collector} is on a butterfly tree's path on its host: its tuples can wait for the exchange's idle
     * moment ({@link EventCollector}'s put-off tuples), which every call of that tree reaches on this host.
     */
    public static boolean onButterfly(Pathmap pathmap, Node collector) {
        if (collector.tree() < 0) {
            return false;
        }
        for (Node n : pathmap.nodesOn(collector.host())) {
            if (n.tree() == collector.tree() && n.kind().equals(PathmapBuilder.EXCHANGE)) {
                return true;
            }
        }
        return false;
    }

    /** Calls a gred of one port that shares readings with the collector below it: that collector's t2 is this one's t1. */
    public static boolean offersDownClock(Pathmap pathmap, Node collector) {
        if (collector.isRoot()) {
            return false;
        }
        Node gred = pathmap.node(collector.parent());
        return gred.kind().equals(PathmapBuilder.GRED) && gred.arity() == 1 && sharesAround(pathmap, gred);
    }

    /** Is called by a gred of one port that shares readings: takes its t2 from the collector above that gred. */
    public static boolean takesDownClock(Pathmap pathmap, Node collector) {
        for (Node caller : pathmap.children(collector.id())) {
            if (caller.host() == collector.host() && caller.kind().equals(PathmapBuilder.GRED) && caller.arity() == 1
                    && sharesAround(pathmap, caller)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Which readings {@code collector} may share across a gred: only where every feeder of that gred is a
     * collector on the same host, so the reading offered from above is always this call's (a stale reading from
     * a waiter's earlier call can never be taken).
     */
    public static EventCollector.ClockSharing clockSharing(Pathmap pathmap, Node collector) {
        boolean above = !collector.isRoot() && sharesAround(pathmap, pathmap.node(collector.parent()));
        boolean below = false;
        for (Node caller : pathmap.children(collector.id())) {
            below = caller.host() == collector.host() && sharesAround(pathmap, caller);
        }
        if (above && below) {
            return EventCollector.ClockSharing.BETWEEN_GREDS;
        }
        return above ? EventCollector.ClockSharing.ABOVE_GRED
                : below ? EventCollector.ClockSharing.BELOW_GRED : EventCollector.ClockSharing.NONE;
    }

    /**
     * A gred all of whose ports are fed by collectors on its host, and whose downstream is one; or a butterfly's
     * exchange so placed (it returns as soon as the wrapper below it returned, so the reading below is its caller's t4).
     */
    private static boolean sharesAround(Pathmap pathmap, Node gred) {
        boolean joins = gred.kind().equals(PathmapBuilder.GRED) || gred.kind().equals(PathmapBuilder.EXCHANGE);
        if (!joins || gred.isRoot() || !pathmap.entriesAt(gred.id()).isEmpty()) {
            return false;
        }
        Node downstream = pathmap.node(gred.parent());
        if (!downstream.kind().equals(NAME) || downstream.host() != gred.host()) {
            return false;
        }
        for (Node feeder : pathmap.children(gred.id())) {
            if (!feeder.kind().equals(NAME) || feeder.host() != gred.host()) {
                return false;
            }
        }
        return true;
    }

    /**
     * The {@value #COLLECTOR_ID} of a collector node: the one place it is read from its text, for every reader (the
     * kind, the event-space budget, the placement, the post-mortem dump).
     *
     * @throws IllegalArgumentException naming the node and the value.
     */
    public static int collectorId(Node node) {
        return collectorId(node.name(), node.property(COLLECTOR_ID));
    }

    /** {@link #collectorId(Node)} of a node known by name and property text (a dump's layout file). */
    public static int collectorId(String nodeName, String value) {
        return intProperty(nodeName, COLLECTOR_ID, value);
    }

    /** The {@value #CAPACITY} of a collector node, tuples per buffer, or 0 where it takes the event space's default. */
    public static int capacity(Node node) {
        String value = node.properties().get(CAPACITY);
        return value == null ? 0 : intProperty(node.name(), CAPACITY, value);
    }

    private static int intProperty(String nodeName, String key, String value) {
        if (value == null) {
            throw new IllegalArgumentException("node " + nodeName + " (" + NAME + "): property " + key + " is missing");
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("node " + nodeName + " (" + NAME + "): property " + key
                    + " must be an int, " + key + "=" + value, e);
        }
    }
}
