package org.eventspace.scope.filter;

/**
 * A stateful {@link EdgeDecoder} could not rebuild a packet exactly and asks its encoder to start over: the message
 * says which check failed, with the values that were wrong. The decoder returned nothing of the message.
 */
public final class ResyncNeeded extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public ResyncNeeded(String message) {
        super(message);
    }
}
