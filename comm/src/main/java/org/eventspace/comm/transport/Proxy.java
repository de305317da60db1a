package org.eventspace.comm.transport;

import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.Wrapper;

/**
 * The client-side stub of a remote hop: forwards the message over its link; the rest of the path runs in the
 * thread that serves the link on the other host. One caller at a time (see {@link Link}).
 *
 * <p>The link is attached after every wrapper of the host exists ({@link #attach}), so that two hosts that
 * connect to each other never wait on each other while building.
 */
public final class Proxy implements Wrapper {
    private final String name;
    private final Hop hop;
    private Link link;

    public Proxy(String name, Hop hop) {
        this.name = name;
        this.hop = hop;
    }

    public Hop hop() {
        return hop;
    }

    public void attach(Link link) {
        this.link = link;
    }

    @Override
    public void call(Message message) {
        Link l = link;
        if (l == null) {
            throw new CommException("proxy " + name + " was called before its hop to host " + hop.toHost() + " was connected");
        }
        l.exchange(message);
    }
}
