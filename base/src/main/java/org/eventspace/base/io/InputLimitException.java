package org.eventspace.base.io;

import java.io.IOException;

/**
 * An input file over the limit on what is read ({@link BoundedFiles#maxBytes()}), or a limit setting that is not a
 * size. An {@link IOException}, so every reader's signature stays as it was; callers that tell the user turn it into
 * a usage error (exit 2): the message is one line naming the file, its size and the limit, and how to raise it.
 */
public final class InputLimitException extends IOException {
    private static final long serialVersionUID = 1L;

    public InputLimitException(String message) {
        super(message);
    }
}
