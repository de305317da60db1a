package org.eventspace.comm.path;

import org.eventspace.comm.element.Element;

/**
 * The root of a path: stores the message as a tuple in a PastSet element and returns it unchanged, with the
 * sequence number the element assigned. May be called by any number of threads.
 */
public final class Core implements Wrapper {
    private final Element element;

    public Core(Element element) {
        this.element = element;
    }

    public Element element() {
        return element;
    }

    @Override
    public void call(Message message) {
        element.write(message);
    }
}
