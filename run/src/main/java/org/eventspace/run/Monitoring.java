package org.eventspace.run;

import java.util.Set;

import org.eventspace.monitor.Analysis;
import org.eventspace.monitor.Coschedule;
import org.eventspace.monitor.MonitorKind;

/**
 * The monitors a run starts on its hosts (`--monitor`, `--coschedule`, `--analysis`), none by default. Immutable.
 *
 * @param kinds      the monitors; empty: none.
 * @param coschedule when the analysis threads may run.
 * @param analysis   where the analysis runs: on the hosts, the scope gathering results, or at the front-end.
 */
public record Monitoring(Set<MonitorKind> kinds, Coschedule coschedule, Analysis analysis) {
    public static final Monitoring NONE = new Monitoring(Set.of(), Coschedule.NONE, Analysis.DISTRIBUTED);

    public Monitoring {
        kinds = Set.copyOf(kinds);
        if (coschedule == null) {
            throw new IllegalArgumentException("coschedule is required (none, i or ii)");
        }
        if (analysis == null) {
            throw new IllegalArgumentException("analysis is required (distributed or central)");
        }
        if (analysis == Analysis.CENTRAL && coschedule != Coschedule.NONE) {
            throw new IllegalArgumentException("coscheduling releases the hosts' analysis threads, and the central "
                    + "analysis runs none: use --coschedule none with --analysis central");
        }
    }

    /** Distributed analysis. */
    public Monitoring(Set<MonitorKind> kinds, Coschedule coschedule) {
        this(kinds, coschedule, Analysis.DISTRIBUTED);
    }

    public boolean enabled() {
        return !kinds.isEmpty();
    }
}
