package org.eventspace.events;

import java.util.function.Function;

import org.eventspace.comm.pathmap.Node;
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
        int collectorId = intProperty(node, COLLECTOR_ID, node.property(COLLECTOR_ID));
        EventSpace space = eventSpaceOfHost.apply(host);
        if (space == null) {
            throw new IllegalStateException("collector " + node.name() + ": host " + host.hostName() + " has no event space");
        }
        String capacity = node.properties().get(CAPACITY);
        TraceBuffer buffer = capacity == null
                ? space.allocate(collectorId, node.name())
                : space.allocate(collectorId, node.name(), intProperty(node, CAPACITY, capacity));
        return WrapperInstance.single(new EventCollector(collectorId, buffer, host.downstream(node)));
    }

    private static int intProperty(Node node, String key, String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("node " + node.name() + " (" + NAME + "): property " + key
                    + " must be an int, " + key + "=" + value, e);
        }
    }
}
