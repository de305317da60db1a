package org.eventspace.mpi;

import java.util.ArrayList;
import java.util.List;

/**
 * What the ranks' meta files said once the run ended ({@link RankSnapshot}s, so the report outlives the mappings):
 * the exact call counts and bytes (the library counts every call, even those the rings overwrote), the ranks that did
 * not finish, their clock synchronisations and where each rank ran. Immutable once made.
 */
final class RankSnapshots {
    private final int worldSize;
    private final List<RankSnapshot> all;
    private final RankSnapshot[] byRank;

    /** None yet: the run has not ended. */
    static final RankSnapshots NONE = new RankSnapshots(0, List.of());

    RankSnapshots(int worldSize, List<MpiRankFiles> files) {
        this(files.stream().map(RankSnapshot::of).toList(), worldSize);
    }

    /** Of snapshots already taken (tests make them as a library would leave them). */
    static RankSnapshots of(int worldSize, List<RankSnapshot> snapshots) {
        return new RankSnapshots(snapshots, worldSize);
    }

    private RankSnapshots(List<RankSnapshot> snapshots, int worldSize) {
        this.worldSize = Math.max(0, worldSize);
        this.all = new ArrayList<>();
        this.byRank = new RankSnapshot[this.worldSize];
        for (RankSnapshot snapshot : snapshots) {
            all.add(snapshot);
            if (snapshot.rank() >= 0 && snapshot.rank() < byRank.length) {
                byRank[snapshot.rank()] = snapshot;
            }
        }
    }

    /** Every traced rank, in the order the agents mapped them. */
    List<RankSnapshot> all() {
        return all;
    }

    /** {@code rank}'s snapshot, or null if it left no files. */
    RankSnapshot of(int rank) {
        return rank < byRank.length ? byRank[rank] : null;
    }

    /** Calls of {@code op} by every rank. */
    long calls(int op) {
        long n = 0;
        for (RankSnapshot f : all) {
            n += f.calls(op - MpiOp.FIRST);
        }
        return n;
    }

    /** Bytes of {@code op} by every rank (what each sent or contributed, as the library counts them). */
    long bytes(int op) {
        long b = 0;
        for (RankSnapshot f : all) {
            if (op - MpiOp.FIRST < f.bytes().length) {
                b += f.bytes(op - MpiOp.FIRST);
            }
        }
        return b;
    }

    /** Bytes the ranks' point-to-point sends sent. */
    long bytesSent() {
        long b = 0;
        for (RankSnapshot f : all) {
            for (int i = 0; i < f.bytes().length; i++) {
                if (MpiOp.sends(MpiOp.FIRST + i)) {
                    b += f.bytes(i);
                }
            }
        }
        return b;
    }

    long untracedCalls() {
        return all.stream().mapToLong(RankSnapshot::untracedCalls).sum();
    }

    long communicatorsLost() {
        return all.stream().mapToLong(RankSnapshot::communicatorsLost).sum();
    }

    long untrackedRequests() {
        return all.stream().mapToLong(RankSnapshot::untrackedRequests).sum();
    }

    /** The ranks of {@code 0 .. worldSize-1} that left no files or did not reach MPI_Finalize. */
    List<Integer> unfinished(int worldSize) {
        List<Integer> out = new ArrayList<>();
        for (int r = 0; r < worldSize; r++) {
            RankSnapshot s = of(r);
            if (s == null || !s.finalized()) {
                out.add(r);
            }
        }
        return out;
    }

    /** Per rank, how many clock synchronisations with rank 0 it completed (0, 1 or 2: at MPI_Init, at MPI_Finalize). */
    int[] clockSyncs() {
        int[] syncs = new int[worldSize];
        for (RankSnapshot f : all) {
            if (f.rank() > 0 && f.rank() < syncs.length) {
                syncs[f.rank()] = (f.initOffsetNs() != MpiRankMetaLayout.NO_OFFSET ? 1 : 0)
                        + (f.finalizeOffsetNs() != MpiRankMetaLayout.NO_OFFSET ? 1 : 0);
            }
        }
        return syncs;
    }

    /**
     * Each rank's host (its node agent's index, 0 .. hosts-1; a rank that left no files is put on host 0) and the
     * hosts' names by index (a machine that holds several simulated hosts gives each its index after a {@code #}).
     */
    MpiHostLayout hostLayout() {
        int hosts = 1;
        for (RankSnapshot f : all) {
            hosts = Math.max(hosts, f.host() + 1);
        }
        int[] rankHosts = new int[worldSize];
        String[] names = new String[hosts];
        for (RankSnapshot f : all) {
            if (f.rank() >= 0 && f.rank() < rankHosts.length && f.host() >= 0) {
                rankHosts[f.rank()] = f.host();
                names[f.host()] = f.hostName();
            }
        }
        List<String> hostNames = new ArrayList<>();
        for (int h = 0; h < hosts; h++) {
            String n = names[h] == null ? "host-" + h : names[h];
            boolean shared = false;
            for (int g = 0; g < hosts; g++) {
                shared |= g != h && n.equals(names[g]);
            }
            hostNames.add(shared ? n + "#" + h : n);
        }
        return new MpiHostLayout(rankHosts, hostNames);
    }
}
