package org.eventspace.scope;

import org.eventspace.events.EventSpace;

/**
 * What one host offers an event scope: its event space, whose trace buffers the scope's leaf turns into records
 * (EventSpace paper §4.2), its push buffer, which producers fill with records of their own (ToM §2.2's push-pull
 * offload), and its result board, where its analysis threads publish their newest results (EventSpace paper §4.3).
 * A scope whose filter gathers results ({@link org.eventspace.scope.filter.ScopeFilter#readsResults()}) reads only
 * the board; any other reads the trace buffers and the push buffer. Any part may be absent. Immutable;
 * thread-safety is that of the parts.
 *
 * <p>A host's push buffer is drained by the leaf of whichever scope pulls first: give each scope that reads
 * pushed records its own hosts, or one scope per job.
 *
 * @param eventSpace the host's event space, or null for a host without collectors.
 * @param pushBuffer the host's push buffer, or null if nothing is pushed on the host.
 * @param results    the host's result board, or null if no analysis runs there.
 */
public record ScopeHost(EventSpace eventSpace, PushBuffer pushBuffer, ResultBoard results) {
    public ScopeHost(EventSpace eventSpace, PushBuffer pushBuffer) {
        this(eventSpace, pushBuffer, null);
    }

    /** A host with only trace buffers. */
    public static ScopeHost of(EventSpace eventSpace) {
        return new ScopeHost(eventSpace, null, null);
    }

    /** A host with only a push buffer. */
    public static ScopeHost pushing(PushBuffer pushBuffer) {
        return new ScopeHost(null, pushBuffer, null);
    }
}
