package org.eventspace.wan;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.runtime.HostRuntime;
import org.eventspace.comm.runtime.WrapperInstance;
import org.eventspace.comm.runtime.WrapperKind;

/**
 * Wrapper kind {@value WanPlacement#LONGCUT}: makes a {@link Longcut} for a node {@link WanPlacement} placed, on the
 * gateway's one {@link GatewayScheduler} (made by {@code schedulerFor} the first time a host needs it). Node properties:
 * {@code site} (whose gateway runs it), {@code down} and/or {@code up} (the outgoing link names). Thread-safe.
 */
public final class LongcutKind implements WrapperKind {
    private final Function<HostRuntime, GatewayScheduler> schedulerFor;
    private final Map<Integer, GatewayScheduler> schedulers = new ConcurrentHashMap<>();

    public LongcutKind(Function<HostRuntime, GatewayScheduler> schedulerFor) {
        this.schedulerFor = schedulerFor;
    }

    @Override
    public String name() {
        return WanPlacement.LONGCUT;
    }

    @Override
    public WrapperInstance create(Node node, HostRuntime host) {
        GatewayScheduler scheduler = scheduler(host);
        String down = node.properties().get(WanPlacement.DOWN);
        String up = node.properties().get(WanPlacement.UP);
        if (down == null && up == null) {
            throw new IllegalArgumentException("longcut node " + node.name() + " names neither a 'down' nor an 'up' link");
        }
        return WrapperInstance.single(new Longcut(host.downstream(node), scheduler.register(),
                down == null ? -1 : scheduler.link(down), up == null ? -1 : scheduler.link(up)));
    }

    /** The scheduler of gateway {@code host}, made the first time it is asked for. */
    GatewayScheduler scheduler(HostRuntime host) {
        return schedulers.computeIfAbsent(host.host(), h -> schedulerFor.apply(host));
    }

    /** The gateways made so far. */
    public List<GatewayScheduler> schedulers() {
        return new ArrayList<>(schedulers.values());
    }
}
