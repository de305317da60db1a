package org.eventspace.comm.transport;

import org.eventspace.comm.path.Message;

/**
 * A two-way link between the exchange wrappers of two hosts (a butterfly's partners): each end's calling thread sends
 * its partial result and reads the partner's, one message each way, with no service thread between them (the rank
 * that waits drives the link itself, as an MPI progress engine does).
 *
 * <p>One thread at a time per end (a tree's calls are in order); {@link #close()} from any thread makes a waiting
 * {@link #receive} fail at once. A failed link stays failed. Neither call allocates while messages fit its buffers.
 */
public interface PeerLink extends AutoCloseable {
    /** Sends {@code message}'s op, type, sequence and payload to the partner; returns without waiting for an answer. */
    void send(Message message);

    /**
     * Waits for the partner's next message and fills {@code into} with it (op, type, sequence and payload).
     *
     * @throws org.eventspace.comm.path.CommException naming the link and the partner if the partner closed the link, the
     *                                                connection was lost, or nothing came within the job's timeout.
     */
    void receive(Message into);

    @Override
    void close();

    /** Closes the link because of {@code why}, which a waiting or later call on this end reports. */
    default void close(String why) {
        close();
    }
}
