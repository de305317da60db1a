package org.eventspace.comm.path;

/**
 * One stage of a path: code that runs going down (before it calls the next wrapper) and coming back up
 * (after the next wrapper returned). The result of the operation is left in the message on return.
 *
 * <p>A wrapper is called from the thread that owns the path, or from the service thread of a connection when
 * an earlier hop crossed hosts. Implementations say in their Javadoc which threads may call them at once.
 *
 * <p>This is the only contract between wrapper kinds: a collector, a join, a delay or a forward all fit it,
 * and each is testable alone with a fake next wrapper.
 */
@FunctionalInterface
public interface Wrapper {
    /**
     * Runs this wrapper on {@code message}, going down and coming back up.
     *
     * @throws CommException if the operation failed below this wrapper or timed out.
     */
    void call(Message message);
}
