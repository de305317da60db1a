package org.eventspace.monitor;

import org.eventspace.job.Labelled;
import org.eventspace.job.ScopeSettings;

/**
 * Where the monitors' analysis runs (EventSpace paper §4.3 and §6, Tables 1 and 2 compare the two).
 */
public enum Analysis implements Labelled {
    /**
     * On the compute hosts: one analysis thread per host reads that host's trace buffers and publishes small results;
     * the event scope gathers only those ({@code newest}), only the newest state.
     */
    DISTRIBUTED,
    /**
     * At the front-end: the event scope gathers the raw trace tuples of the monitored collectors ({@code tuples}) and
     * the front-end's process analyses them; nothing runs on the compute hosts but the scope's leaves.
     */
    CENTRAL;

    /** The filter the job's event scope runs for this analysis. */
    public String scopeFilter() {
        return this == DISTRIBUTED ? "newest" : "tuples";
    }

    /**
     * How often the job's scope pulls by default: as often as the hosts publish their results (distributed), or
     * {@link ScopeSettings#ADAPTIVE}, as fast as the raw tuples come (central).
     */
    public int scopeIntervalMs() {
        return this == DISTRIBUTED ? HostAnalysis.PUBLISH_PERIOD_MS : ScopeSettings.ADAPTIVE;
    }
}
