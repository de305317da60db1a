package org.eventspace.bench;

import java.util.Set;

import org.eventspace.monitor.Coschedule;
import org.eventspace.monitor.MonitorKind;

/**
 * The monitors a run starts on its hosts (`--monitor`, `--coschedule`), none by default. Immutable.
 *
 * @param kinds      the monitors; empty: none.
 * @param coschedule when the analysis threads may run.
 */
public record Monitoring(Set<MonitorKind> kinds, Coschedule coschedule) {
    public static final Monitoring NONE = new Monitoring(Set.of(), Coschedule.NONE);

    public Monitoring {
        kinds = Set.copyOf(kinds);
        if (coschedule == null) {
            throw new IllegalArgumentException("coschedule is required (none, i or ii)");
        }
    }

    public boolean enabled() {
        return !kinds.isEmpty();
    }
}
