package org.eventspace.scope;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.runtime.HostRuntime;
import org.eventspace.comm.runtime.WrapperInstance;
import org.eventspace.comm.runtime.WrapperKind;
import org.eventspace.events.CollectorKind;
import org.eventspace.events.CollectorPlacement;
import org.eventspace.scope.filter.FilterSpec;

/**
 * The wrapper kind {@value ScopeBuilder#LEAF}: the leaf of an event scope on one host, reading that host's
 * {@link ScopeHost} (see {@link ScopeLeaf}). Registered with
 * {@code WrapperKinds.builtIn().with(new ScopeLeafKind(scopeHostOf))}, or both scope kinds at once with
 * {@link ScopeKinds#with}. Node properties (made by {@link ScopeBuilder}): {@value ScopeBuilder#FILTER}.
 * Thread-safe as long as {@code scopeHostOf} is.
 */
public final class ScopeLeafKind implements WrapperKind {
    private final Function<HostRuntime, ScopeHost> scopeHostOf;

    /** @param scopeHostOf what each host runtime offers a scope (one per host). */
    public ScopeLeafKind(Function<HostRuntime, ScopeHost> scopeHostOf) {
        this.scopeHostOf = Objects.requireNonNull(scopeHostOf, "scopeHostOf");
    }

    @Override
    public String name() {
        return ScopeBuilder.LEAF;
    }

    @Override
    public WrapperInstance create(Node node, HostRuntime host) {
        FilterSpec filter = ScopeKinds.filter(node);
        ScopeHost source = scopeHostOf.apply(host);
        if (source == null) {
            throw new IllegalStateException("scope leaf " + node.name() + ": host " + host.hostName()
                    + " offers no scope host (event space or push buffer)");
        }
        Map<String, Integer> ranks = new HashMap<>();
        Map<String, String> roles = new HashMap<>();
        for (Node n : host.pathmap().nodesOn(host.host())) {
            if (n.kind().equals(CollectorKind.NAME)) {
                roles.put(n.name(), role(host.pathmap(), n));
            }
            int rank = n.kind().equals(CollectorKind.NAME) ? CollectorPlacement.rankBelow(n) : -1;
            if (rank >= 0) {
                ranks.put(n.name(), rank);
            }
        }
        return WrapperInstance.single(new ScopeLeaf(node.name(), filter, source, ranks, roles));
    }

    /**
     * Where a collector sits, as the wrapper kinds around it: what calls it ({@code rank}, or a wrapper kind) and
     * every wrapper from the one it calls down to the root, collectors left out — {@code rank>gred>proxy>gred>core}.
     * Collectors of different ranks whose paths have the same shape get the same role.
     */
    static String role(Pathmap pathmap, Node collector) {
        StringBuilder role = new StringBuilder();
        String below = collector.properties().getOrDefault(CollectorPlacement.BELOW, "");
        if (below.startsWith("rank ")) {
            role.append("rank");
        } else {
            List<Node> callers = pathmap.children(collector.id());
            role.append(callers.isEmpty() ? "?" : callers.get(0).kind());
        }
        for (int id = collector.parent(); id >= 0; id = pathmap.node(id).parent()) {
            Node n = pathmap.node(id);
            if (!n.kind().equals(CollectorKind.NAME)) {
                role.append('>').append(n.kind());
            }
        }
        return role.toString();
    }
}
