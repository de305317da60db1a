package org.eventspace.mpi;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * The {@code clock} block of the {@code mpi} block: the time base, whether the drift was applied, each rank's
 * measured offsets to rank 0 (Cristian's algorithm at MPI_Init and MPI_Finalize) and each host's map
 * ({@link HostClocks}), with the largest error bound and drift across hosts other than rank 0's. Offsets that were
 * not measured are written as null.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
record ClockBlock(String timeBase, boolean driftApplied, @JsonInclude(JsonInclude.Include.NON_EMPTY) String driftNote,
                  long tuplesMappedWithDrift, long tuplesMappedInitOffsetOnly, List<RankClock> ranks,
                  List<HostClock> hosts, long crossHostAccuracyNs, long crossHostDriftNs) {

    static final String TIME_BASE = "rank 0's CLOCK_MONOTONIC; per host the offsets at MPI_Init and MPI_Finalize "
            + "(Cristian along a binomial tree to rank 0, best of 10 round trips per edge), interpolated linearly "
            + "between the two";

    /**
     * One rank's measurements: round trips to its parent in the synchronisation tree ({@code sync_parent}), error
     * bounds of its offsets to rank 0 (half round trips summed along the tree); drift and the map's error bound only
     * when both offsets were measured.
     */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    record RankClock(int rank, int host, String hostName, int syncParent, Long offsetInitNs, long rttInitNs,
                     long errorInitNs, Long offsetFinalizeNs, Long rttFinalizeNs,
                     @JsonInclude(JsonInclude.Include.NON_NULL) Long errorFinalizeNs,
                     @JsonInclude(JsonInclude.Include.NON_NULL) Long driftNs,
                     @JsonInclude(JsonInclude.Include.NON_NULL) Double driftPpm,
                     @JsonInclude(JsonInclude.Include.NON_NULL) Long errorBoundNs,
                     @JsonInclude(JsonInclude.Include.NON_NULL) Long simulatedSkewNs) {
    }

    /** One host's map onto rank 0's clock; accuracy and error bound null when no offset was measured. */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    record HostClock(int host, String mapping, long offsetNs, long offsetInitNs, Long offsetFinalizeNs, long driftNs,
                     double driftPpm, long spanNs, Long accuracyNs, Long errorBoundNs) {
    }

    static ClockBlock of(MpiAnalysis analysis) {
        List<RankClock> ranks = new ArrayList<>();
        for (RankSnapshot f : analysis.snapshots().all()) {
            ranks.add(rankClock(f));
        }
        long bound = 0;
        long drift = 0;
        List<HostClock> hosts = new ArrayList<>();
        for (HostClocks.HostMapping h : analysis.clocks().mappings()) {
            ClockMap m = h.map();
            String mapping = h.rank0() ? "identity (rank 0's host)" : !h.measured() ? "none (no offset measured)"
                    : m.linear() ? "linear (drift applied)" : "MPI_Init offset only";
            hosts.add(new HostClock(h.host(), mapping, m.offsetInitNs(), m.offsetInitNs(),
                    m.linear() ? m.offsetFinalizeNs() : null, m.driftNs(), MpiBlock.round(m.driftPpm()),
                    m.finalizeAtNs() - m.initAtNs(), h.measured() ? m.errorInitNs() : null,
                    h.measured() ? m.errorBoundNs() : null));
            if (h.measured() && !h.rank0()) {
                bound = Math.max(bound, m.errorBoundNs());
                drift = Math.max(drift, Math.abs(m.driftNs()));
            }
        }
        HostClocks clocks = analysis.clocks();
        return new ClockBlock(TIME_BASE, clocks.tuplesMappedInitOnly() == 0, analysis.driftNote(),
                clocks.tuplesMappedLinear(), clocks.tuplesMappedInitOnly(), ranks, hosts, bound, drift);
    }

    private static RankClock rankClock(RankSnapshot f) {
        long oi = f.initOffsetNs();
        long of = f.finalizeOffsetNs();
        boolean init = oi != MpiRankMetaLayout.NO_OFFSET;
        boolean fin = of != MpiRankMetaLayout.NO_OFFSET;
        ClockMap m = init && fin
                ? ClockMap.linear(f.initNs(), oi, f.initErrorNs(), f.finalizeNs(), of, f.finalizeErrorNs()) : null;
        int parent = f.rank() == 0 ? -1 : MpiRankMetaLayout.syncParent(f.rank());
        return new RankClock(f.rank(), f.host(), f.hostName(), parent, init ? oi : null, f.initRttNs(), f.initErrorNs(),
                fin ? of : null, fin ? f.finalizeRttNs() : null, fin ? f.finalizeErrorNs() : null,
                m == null ? null : m.driftNs(),
                m == null ? null : MpiBlock.round(m.driftPpm()), m == null ? null : m.errorBoundNs(),
                f.skewNs() != 0 ? f.skewNs() : null);
    }
}
