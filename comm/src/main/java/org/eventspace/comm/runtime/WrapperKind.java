package org.eventspace.comm.runtime;

import org.eventspace.comm.pathmap.Node;

/**
 * Makes the wrapper for a pathmap node of one kind on the host it is mapped to. A new kind (event collector,
 * gather, WAN delay) is a new implementation registered in {@link WrapperKinds}; no other kind changes.
 */
public interface WrapperKind {
    /** The kind's name as it appears in pathmaps ({@code gred}, {@code proxy}, {@code core}, …). */
    String name();

    /**
     * Creates the wrapper for {@code node}. Use {@link HostRuntime#downstream(Node)} for the wrapper it calls
     * going down, when that is on the same host.
     */
    WrapperInstance create(Node node, HostRuntime host);
}
