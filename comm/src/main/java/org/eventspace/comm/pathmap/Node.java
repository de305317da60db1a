package org.eventspace.comm.pathmap;

import java.util.Map;

/**
 * One wrapper of a pathmap, placed on a host.
 *
 * @param id         index in {@link Pathmap#nodes()}.
 * @param name       readable, unique name, e.g. {@code t0.gred.h1.0}.
 * @param kind       wrapper kind ({@code gred}, {@code proxy}, {@code core}, …), resolved by {@code WrapperKinds}.
 * @param tree       the application tree it belongs to, -1 for point-to-point wrappers, -2 for the wrappers of
 *                   an event scope (roots of their own, called only by the scope's own wrappers).
 * @param host       host it runs on (a proxy runs on the caller's host and forwards to its parent's host).
 * @param parent     the node it calls going down, or -1 for a root.
 * @param parentPort the port of the parent it calls (a gred has one port per contributor).
 * @param arity      how many ports it has (contributors for a gred, 1 otherwise).
 * @param properties kind-specific settings, e.g. the element a core stores into.
 */
public record Node(int id, String name, String kind, int tree, int host, int parent, int parentPort, int arity,
                   Map<String, String> properties) {
    /** The {@link #tree()} of an event scope's wrappers: roots of their own, not an application tree. */
    public static final int SCOPE_TREE = -2;

    public Node {
        properties = Map.copyOf(properties);
    }

    public String property(String key) {
        String value = properties.get(key);
        if (value == null) {
            throw new IllegalStateException("node " + name + " (" + kind + ") has no property '" + key + "'");
        }
        return value;
    }

    /** Whether this wrapper belongs to an event scope ({@link #SCOPE_TREE}), not to the application. */
    public boolean ofScope() {
        return tree == SCOPE_TREE;
    }

    public boolean isRoot() {
        return parent < 0;
    }
}
