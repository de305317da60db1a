package org.eventspace.monitor;

import java.util.EnumSet;
import java.util.Set;

import org.eventspace.job.Labelled;

/** The monitors a job can run (EventSpace paper §4.3): which contributors arrive last, and the latency statistics. */
public enum MonitorKind implements Labelled {
    /** Per gred, how often each contributor arrived last; the heaviest path and the slowest rank. */
    LOADBALANCE,
    /** Per wrapper, latency statistics (statsm): up, down, total, arrival and departure waits and orders. */
    STATS;

    /** A comma-separated list of labels ({@code loadbalance,stats}), each at most once. */
    public static Set<MonitorKind> parseList(String text) {
        Set<MonitorKind> kinds = EnumSet.noneOf(MonitorKind.class);
        for (String part : text.split(",", -1)) {
            MonitorKind kind = Labelled.parse(MonitorKind.class, part.trim(), "monitor");
            if (!kinds.add(kind)) {
                throw new IllegalArgumentException("monitor '" + kind.label() + "' is listed twice in '" + text + "'");
            }
        }
        return kinds;
    }
}
