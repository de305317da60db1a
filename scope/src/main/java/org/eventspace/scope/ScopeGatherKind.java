package org.eventspace.scope;

import org.eventspace.comm.path.Wrapper;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.runtime.HostRuntime;
import org.eventspace.comm.runtime.WrapperInstance;
import org.eventspace.comm.runtime.WrapperKind;
import org.eventspace.scope.filter.FilterSpec;

/**
 * The wrapper kind {@value ScopeBuilder#GATHER}: a gather wrapper of an event scope ({@link ScopeGather}). For
 * every child on another host it asks the host for a hop to that child ({@link HostRuntime#remoteNode}), which opens
 * with the host's other hops, over the job's transport, along the job's route (through the gateways of an emulated
 * WAN); a child on the same host is called directly. Node properties (made by {@link ScopeBuilder}):
 * {@value ScopeBuilder#CHILDREN}, {@value ScopeBuilder#LEVEL}, {@value ScopeBuilder#FILTER},
 * {@value ScopeBuilder#GATHER_MODE} and optionally {@value ScopeBuilder#TIMEOUT_MS}. Stateless and thread-safe.
 */
public final class ScopeGatherKind implements WrapperKind {
    @Override
    public String name() {
        return ScopeBuilder.GATHER;
    }

    @Override
    public WrapperInstance create(Node node, HostRuntime host) {
        Pathmap pathmap = host.pathmap();
        FilterSpec filter = ScopeKinds.filter(node);
        int level = ScopeBuilder.level(node);
        GatherMode mode;
        try {
            mode = GatherMode.parse(node.property(ScopeBuilder.GATHER_MODE));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("node " + node.name() + " (" + node.kind() + "): " + e.getMessage(), e);
        }
        long timeoutNanos = ScopeBuilder.timeoutNanos(node, host.waitPolicy().timeoutNanos());
        int[] ids = ScopeBuilder.children(node);
        if (ids.length == 0) {
            throw new IllegalArgumentException("node " + node.name() + " (" + node.kind() + ") has no children");
        }
        ScopeChild[] children = new ScopeChild[ids.length];
        for (int i = 0; i < ids.length; i++) {
            int id = ids[i];
            if (id < 0 || id >= pathmap.nodes().size() || id == node.id()) {
                throw new IllegalArgumentException("node " + node.name() + " (" + node.kind() + "): child " + id
                        + " is not another node of the pathmap (nodes 0.." + (pathmap.nodes().size() - 1) + ")");
            }
            Node child = pathmap.node(id);
            if (child.tree() != ScopeBuilder.TREE
                    || !(child.kind().equals(ScopeBuilder.GATHER) || child.kind().equals(ScopeBuilder.LEAF))) {
                throw new IllegalArgumentException("node " + node.name() + " (" + node.kind() + "): child " + child.name()
                        + " is a " + child.kind() + ", not a scope node");
            }
            String childHost = pathmap.spec().topology().host(child.host()).name();
            Wrapper remote = null;
            if (child.host() != host.host()) {
                remote = host.remoteNode(node.name() + "->" + child.name(), child.host(), child.id(), 0);
            }
            children[i] = new ScopeChild(child.id(), child.name(), childHost, remote);
        }
        return WrapperInstance.single(new ScopeGather(node.name(), host, level, filter, mode, timeoutNanos, children));
    }
}
