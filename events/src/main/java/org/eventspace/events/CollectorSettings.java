package org.eventspace.events;

import java.util.Set;

import org.eventspace.comm.pathmap.PathmapBuilder;

/**
 * Where {@link CollectorPlacement} puts event collectors, validated once: around which wrapper kinds, in which
 * trees, and with what buffer capacity. Immutable.
 *
 * <p>A pathmap edge (a rank entering a wrapper, or a wrapper calling the next one) gets a collector when either
 * of its ends is of an enabled kind; so enabling {@code gred} alone still yields t1,i/t4,i above every gred and
 * t2/t3 below it (dissertation §7.1), and enabling {@code proxy} alone yields both ends of every remote hop.
 *
 * @param kinds    wrapper kinds to put collectors around; empty means every kind.
 * @param trees    trees to instrument; empty means every tree.
 * @param capacity tuples per collector buffer, a power of two, written into each collector node's
 *                 {@value CollectorKind#CAPACITY} property; 0 leaves it to the host's event space.
 */
public record CollectorSettings(Set<String> kinds, Set<Integer> trees, int capacity) {
    /** Every kind, every tree, the event space's default capacity: "all paths are instrumented all the time" (EventSpace paper §4.1). */
    public static final CollectorSettings ALL = new CollectorSettings(Set.of(), Set.of(), 0);

    public CollectorSettings {
        kinds = Set.copyOf(kinds);
        trees = Set.copyOf(trees);
        if (kinds.contains(CollectorKind.NAME)) {
            throw new IllegalArgumentException("collectors are not put around collectors; kinds=" + kinds);
        }
        for (int tree : trees) {
            if (tree < 0) {
                throw new IllegalArgumentException("trees must be >= 0, trees=" + trees);
            }
        }
        if (capacity != 0 && (capacity < TraceBuffer.MIN_CAPACITY || capacity > TraceBuffer.MAX_CAPACITY
                || Integer.bitCount(capacity) != 1)) {
            throw new IllegalArgumentException("collector capacity must be 0 (the event space's default) or a power of two in ["
                    + TraceBuffer.MIN_CAPACITY + ", " + TraceBuffer.MAX_CAPACITY + "], capacity=" + capacity);
        }
    }

    /** Only around these kinds (e.g. {@link PathmapBuilder#GRED}). */
    public CollectorSettings withKinds(Set<String> newKinds) {
        return new CollectorSettings(newKinds, trees, capacity);
    }

    /** Only in these trees. */
    public CollectorSettings withTrees(Set<Integer> newTrees) {
        return new CollectorSettings(kinds, newTrees, capacity);
    }

    public CollectorSettings withCapacity(int newCapacity) {
        return new CollectorSettings(kinds, trees, newCapacity);
    }

    /** Whether collectors go around wrappers of {@code kind}. */
    public boolean around(String kind) {
        return !kind.equals(CollectorKind.NAME) && (kinds.isEmpty() || kinds.contains(kind));
    }

    /** Whether {@code tree} is instrumented (point-to-point wrappers, tree -1, only when every tree is). */
    public boolean instruments(int tree) {
        return trees.isEmpty() || trees.contains(tree);
    }
}
