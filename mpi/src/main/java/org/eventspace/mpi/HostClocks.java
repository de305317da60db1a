package org.eventspace.mpi;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The clock alignment of one MPI run onto rank 0's clock. Ranks on one host share its clock, so a host's timestamps
 * are moved by one {@link ClockMap}: the identity on rank 0's host, else the offsets to rank 0 measured at MPI_Init and
 * at MPI_Finalize, each the one with the shortest round trip among the host's ranks (Cristian's algorithm, best of 10
 * ping-pongs per rank; within half that round trip), interpolated linearly between the two (drift applied). A host's
 * map is fixed at its first tuple, so every tuple of a host is mapped alike: while the program runs the MPI_Finalize
 * offsets do not exist yet, so the live analysis maps with the MPI_Init offset alone (and counts the tuples it mapped
 * so, for {@link MpiAnalysis#reread}).
 *
 * <p>Not thread-safe: fed by one agent thread.
 */
final class HostClocks {
    private final Map<Integer, HostClock> byHost = new HashMap<>();
    private long tuplesMappedLinear;
    private long tuplesMappedInitOnly;

    /** One host's map, as the report shows it: fixed at the host's first tuple, else as the files stand now. */
    record HostMapping(int host, boolean rank0, boolean measured, ClockMap map) {
    }

    /** {@code rank}'s files were mapped on {@code host}. */
    void add(int host, MpiRankFiles rank) {
        HostClock clock = byHost.computeIfAbsent(host, h -> new HostClock());
        clock.ranks.add(rank);
        clock.rank0 |= rank.rank() == 0;
    }

    /** The clock map of {@code host}, counting the tuple it maps. */
    ClockMap mapTuple(int host) {
        HostClock h = byHost.get(host);
        ClockMap m = h.map();
        if (m.linear()) {
            tuplesMappedLinear++;
        } else if (!h.rank0) {
            tuplesMappedInitOnly++;
        }
        return m;
    }

    int hosts() {
        return byHost.size();
    }

    long tuplesMappedLinear() {
        return tuplesMappedLinear;
    }

    /** Tuples of hosts other than rank 0's mapped without drift: the MPI_Finalize offsets were not there yet. */
    long tuplesMappedInitOnly() {
        return tuplesMappedInitOnly;
    }

    /** Every host's map, in host order. */
    List<HostMapping> mappings() {
        List<HostMapping> out = new ArrayList<>();
        for (var e : new TreeMap<>(byHost).entrySet()) {
            HostClock hc = e.getValue();
            ClockMap m = hc.map != null ? hc.map : hc.build();
            out.add(new HostMapping(e.getKey(), hc.rank0, hc.map != null || hc.initMeasured, m));
        }
        return out;
    }

    /**
     * The ranks of one host share its clock, so one map serves them all: the identity on rank 0's host, else built
     * from the measurements with the tightest error bound among the host's ranks (half the round trip to the tree
     * parent plus the parent's bound), at
     * MPI_Init and, once they exist, at MPI_Finalize.
     */
    private static final class HostClock {
        boolean rank0;
        final List<MpiRankFiles> ranks = new ArrayList<>();
        ClockMap map;
        boolean initMeasured;

        ClockMap map() {
            if (map == null) {
                map = build();
            }
            return map;
        }

        /** The map as the files stand now (for the report of a host that has no tuple). */
        ClockMap build() {
            initMeasured = false;
            if (rank0) {
                initMeasured = true;
                return ClockMap.IDENTITY;
            }
            MpiRankFiles init = null;
            MpiRankFiles fin = null;
            for (MpiRankFiles f : ranks) {
                if (f.initOffsetNs() != MpiRankMetaLayout.NO_OFFSET
                        && (init == null || f.initErrorNs() < init.initErrorNs())) {
                    init = f;
                }
                if (f.finalizeOffsetNs() != MpiRankMetaLayout.NO_OFFSET
                        && (fin == null || f.finalizeErrorNs() < fin.finalizeErrorNs())) {
                    fin = f;
                }
            }
            if (init == null) {
                return ClockMap.IDENTITY;
            }
            initMeasured = true;
            if (fin == null) {
                return ClockMap.constant(init.initNs(), init.initOffsetNs(), init.initErrorNs());
            }
            return ClockMap.linear(init.initNs(), init.initOffsetNs(), init.initErrorNs(), fin.finalizeNs(),
                    fin.finalizeOffsetNs(), fin.finalizeErrorNs());
        }
    }
}
