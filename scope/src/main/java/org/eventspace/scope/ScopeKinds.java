package org.eventspace.scope;

import java.util.function.Function;

import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.runtime.HostRuntime;
import org.eventspace.comm.runtime.WrapperKinds;
import org.eventspace.scope.filter.FilterSpec;

/** Registers both event-scope wrapper kinds at once. Stateless. */
public final class ScopeKinds {
    private ScopeKinds() {
    }

    /**
     * {@code kinds} with {@value ScopeBuilder#GATHER} and {@value ScopeBuilder#LEAF} added; every host of a job
     * whose pathmap has scope nodes needs both.
     *
     * @param scopeHostOf what each host runtime offers a scope (one per host).
     */
    public static WrapperKinds with(WrapperKinds kinds, Function<HostRuntime, ScopeHost> scopeHostOf) {
        return kinds.with(new ScopeGatherKind()).with(new ScopeLeafKind(scopeHostOf));
    }

    /** The filter spec in node {@code node}'s {@value ScopeBuilder#FILTER} property; errors name the node. */
    static FilterSpec filter(Node node) {
        String text = node.property(ScopeBuilder.FILTER);
        try {
            return FilterSpec.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("node " + node.name() + " (" + node.kind() + "): property "
                    + ScopeBuilder.FILTER + " is not a filter, " + ScopeBuilder.FILTER + "=" + text + ": " + e.getMessage(), e);
        }
    }
}
