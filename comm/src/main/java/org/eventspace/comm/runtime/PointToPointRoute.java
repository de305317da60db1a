package org.eventspace.comm.runtime;

import org.eventspace.comm.pathmap.Pathmap;

/**
 * Which host a point-to-point message goes to next on its way to the host of its destination rank. Point-to-point paths
 * are built on demand, outside the pathmap, so a layer that reroutes traffic (WAN emulation sends everything that leaves
 * a site through the site's gateway, dissertation §8.1 §III) reroutes them here: the sender's host sends to
 * {@code next(pathmap, itself, destination)}, and a host that receives a message for a rank it does not run relays it to
 * {@code next(pathmap, itself, destination)} in turn. Registered with {@link WrapperKinds#withPointToPointRoute}.
 *
 * <p>Must be a pure function of the job's pathmap and its two arguments, the same in every process of the job, and must
 * reach {@code toHost} in at most one hop per host of the job; it is asked once per path, when the path is built.
 */
@FunctionalInterface
public interface PointToPointRoute {
    /** Every message goes straight to its destination's host. */
    PointToPointRoute DIRECT = (pathmap, atHost, toHost) -> toHost;

    /**
     * The host that {@code atHost} hands a message for a rank on {@code toHost} to: {@code toHost} itself, or a relay.
     * Never {@code atHost} unless {@code toHost} is {@code atHost}.
     */
    int next(Pathmap pathmap, int atHost, int toHost);
}
