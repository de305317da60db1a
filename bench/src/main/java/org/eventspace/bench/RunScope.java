package org.eventspace.bench;

import java.time.Duration;
import java.util.Objects;

import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.scope.GatherMode;
import org.eventspace.scope.ScopeSpec;
import org.eventspace.scope.filter.FilterSpec;

/**
 * The event scope a run lays over its hosts (issue 4: {@code run … --scope S --gather G --filter F}): its shape,
 * how gathers read their children and the filter it runs. Validated on construction into the texts the scope
 * itself accepts; the front-end is host 0, the leaves every host. Immutable.
 *
 * @param shape  {@code flat}, {@code kary:K} or {@code hier:K} over the hosts.
 * @param gather {@code seq} or {@code par:N}.
 * @param filter a filter spec: {@code concat}, {@code stats}, {@code hist:BINS}, {@code class:SCHEME}, …
 * @param intervalMs the front-end's pause between two pulls; 0 pulls back to back (the EventSpace paper's
 *               continuous gathering, the hardest test of the gather rate).
 */
public record RunScope(String shape, String gather, String filter, int intervalMs) {
    public RunScope(String shape, String gather, String filter) {
        this(shape, gather, filter, 0);
    }

    public RunScope {
        if (intervalMs < 0) {
            throw new IllegalArgumentException("scope interval must be >= 0 ms, intervalMs=" + intervalMs);
        }
        Objects.requireNonNull(shape, "shape");
        Objects.requireNonNull(gather, "gather");
        Objects.requireNonNull(filter, "filter");
        TreeShape.parse(shape);
        GatherMode.parse(gather);
        FilterSpec.parse(filter);
    }

    /** The scope's spec, with the run's timeout as its own. */
    public ScopeSpec toSpec(Duration timeout) {
        return ScopeSpec.builder().shape(shape).gather(gather).filter(filter).frontEnd(0).timeout(timeout).build();
    }
}
