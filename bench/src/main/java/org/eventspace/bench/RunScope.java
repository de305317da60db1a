package org.eventspace.bench;

import java.time.Duration;
import java.util.Objects;

import java.util.ArrayList;
import java.util.List;

import org.eventspace.comm.pathmap.PathmapSpec;
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

    /**
     * The scope's spec over the job {@code job}, with the run's timeout as its own: a leaf on every host that runs
     * ranks, and the hosts that run none given to the scope as its additional resources (ToM §3; EventSpace §6.2:
     * gathers moved to unused hosts), which take the inner gathers of their cluster.
     */
    public ScopeSpec toSpec(Duration timeout, PathmapSpec job) {
        java.util.TreeSet<Integer> rankHosts = new java.util.TreeSet<>();
        for (int r = 0; r < job.ranks(); r++) {
            rankHosts.add(job.hostOf(r));
        }
        List<Integer> idle = new ArrayList<>();
        for (int h = 0; h < job.topology().size(); h++) {
            if (!rankHosts.contains(h)) {
                idle.add(h);
            }
        }
        return ScopeSpec.builder().shape(shape).gather(gather).filter(filter).frontEnd(0).timeout(timeout)
                .leafHosts(List.copyOf(rankHosts)).extraHosts(idle).build();
    }
}
