package org.eventspace.comm.path;

/** A collective or a hop failed: a peer died, a contributor never arrived, a connection broke. */
public class CommException extends RuntimeException {
    public CommException(String message) {
        super(message);
    }

    public CommException(String message, Throwable cause) {
        super(message, cause);
    }
}
