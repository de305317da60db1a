package org.eventspace.comm.transport;

import org.eventspace.comm.path.Message;

/**
 * The client end of one inter-host connection: sends a message to the serving thread on the other host,
 * which runs the rest of the path, and puts the result back into the same message.
 *
 * <p>Only one thread at a time may call {@link #exchange} (a hop belongs to one path, or to the last arriver
 * of a gred).
 */
public interface Link extends AutoCloseable {
    void exchange(Message message);

    @Override
    void close();
}
