package org.eventspace.base.os;

/**
 * One of our environment variables ({@code ES_PROGRESS_S}, {@code ES_HOST_JAVA_OPTS}, …) is set to a value that cannot
 * be used. The message names the variable, its value and what was expected; the command exits with its usage code (2),
 * as for a malformed flag, and before any process of the job has started.
 */
public final class SettingException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public SettingException(String message) {
        super(message);
    }
}
