package org.eventspace.comm.element;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The elements hosted by one host, by name: PastSet's per-host server state.
 *
 * <p>Elements are allocated explicitly, with a capacity in tuples and a largest tuple in words; allocating a
 * name twice with the same shape returns the existing element. Thread-safe.
 */
public final class ElementRegistry {
    private final String host;
    private final ConcurrentHashMap<String, Element> elements = new ConcurrentHashMap<>();

    public ElementRegistry(String host) {
        this.host = host;
    }

    /** Allocates (or returns) an element any number of threads may write at once. */
    public Element allocate(String name, int capacity, int maxWords) {
        return allocate(name, capacity, maxWords, false);
    }

    /**
     * Allocates (or returns) an element; {@code exclusiveWriter} promises that its writes never overlap and each
     * happens-before the next, which lets them skip the write lock (see {@link Element#exclusiveWriter()}).
     */
    public Element allocate(String name, int capacity, int maxWords, boolean exclusiveWriter) {
        Element element = elements.computeIfAbsent(name, n -> new Element(n, capacity, maxWords, exclusiveWriter));
        if (element.capacity() != capacity || element.maxWords() != maxWords || element.exclusiveWriter() != exclusiveWriter) {
            throw new IllegalStateException("element " + name + " on host " + host + " already allocated with capacity="
                    + element.capacity() + ", maxWords=" + element.maxWords() + ", exclusiveWriter="
                    + element.exclusiveWriter() + "; asked capacity=" + capacity + ", maxWords=" + maxWords
                    + ", exclusiveWriter=" + exclusiveWriter);
        }
        return element;
    }

    /** The element called {@code name}; fails if it was never allocated on this host. */
    public Element get(String name) {
        Element element = elements.get(name);
        if (element == null) {
            throw new IllegalArgumentException("no element " + name + " on host " + host);
        }
        return element;
    }

    public boolean contains(String name) {
        return elements.containsKey(name);
    }

    public Collection<Element> all() {
        List<Element> list = new ArrayList<>(elements.values());
        list.sort((a, b) -> a.name().compareTo(b.name()));
        return list;
    }
}
