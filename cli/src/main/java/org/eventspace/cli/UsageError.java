package org.eventspace.cli;

/** Bad arguments or configuration: exit code 2, message names the flag or the file and line. */
final class UsageError extends RuntimeException {
    UsageError(String message) {
        super(message);
    }

    UsageError(String message, Throwable cause) {
        super(message, cause);
    }
}
