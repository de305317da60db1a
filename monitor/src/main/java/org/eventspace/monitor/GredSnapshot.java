package org.eventspace.monitor;

import org.eventspace.events.analysis.GredCalls;

/**
 * One gred's metrics at one moment, as its host's analysis thread had them.
 *
 * @param gred         the gred's node name.
 * @param host         the host it runs on (a node's host id).
 * @param tree         its tree.
 * @param contributors who feeds each port: {@code rank N} or the wrapper whose path ends there.
 * @param calls        the metrics over the calls joined so far (a copy, not shared).
 * @param dropped      tuples read but not joined: a call some collector lacked (overwritten, cut short by the end).
 * @param failed       tuples of calls that failed.
 * @param missed       tuples the collectors' rings overwrote before they were read (the gather rate's loss).
 * @param read         tuples read from the collectors.
 * @param memoryBytes  what the analysis keeps for this gred.
 */
public record GredSnapshot(String gred, int host, int tree, String[] contributors, GredCalls calls, long dropped,
                           long failed, long missed, long read, long memoryBytes) {
    /** The port that arrived last most often (ties to the lower port). */
    public int heaviestPort() {
        int best = 0;
        for (int p = 1; p < calls.ports(); p++) {
            if (calls.lastArrivals(p) > calls.lastArrivals(best)) {
                best = p;
            }
        }
        return best;
    }
}
