package org.eventspace.comm.runtime;

import org.eventspace.comm.path.Wrapper;

/**
 * Wraps the hops a host makes to nodes on other hosts outside the pathmap's own proxies ({@link HostRuntime#remoteNode}:
 * an event scope's gather calling its children), which take the {@link PointToPointRoute} as point-to-point sends do,
 * at each host of that route: the caller's stub ({@link PointToPointWrappers.Side#SEND}), a relay's stub of its next hop
 * ({@link PointToPointWrappers.Side#RELAY}) and the target's end ({@link PointToPointWrappers.Side#SERVE}). The door
 * through which a layer that reroutes traffic (the WAN emulation) also delays it. Registered with
 * {@link WrapperKinds#withHopWrappers}; called once per hop, when it is built; returns {@code wrapper} itself to leave it
 * as it is.
 */
@FunctionalInterface
public interface HopWrappers {
    /** Leaves every hop as it is. */
    HopWrappers NONE = (host, cameFrom, toHost, side, wrapper) -> wrapper;

    /**
     * The wrapper to use instead of {@code wrapper} on {@code host} for a call to a node on {@code toHost}.
     *
     * @param cameFrom the host the call arrives from ({@code host} itself on the caller's side).
     */
    Wrapper wrap(HostRuntime host, int cameFrom, int toHost, PointToPointWrappers.Side side, Wrapper wrapper);
}
