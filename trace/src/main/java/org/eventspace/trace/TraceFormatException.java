package org.eventspace.trace;

/** A trace file that is not a valid {@code eventspace.trace/3} file: names the file, the place and what was expected. */
public final class TraceFormatException extends Exception {
    private static final long serialVersionUID = 1L;

    public TraceFormatException(String message) {
        super(message);
    }

    public TraceFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
