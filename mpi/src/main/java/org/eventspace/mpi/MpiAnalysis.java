package org.eventspace.mpi;

import java.util.ArrayList;
import java.util.List;

import org.eventspace.events.TraceTupleFlyweight;

/**
 * The PMPI analysis of one MPI run, fed by the node agents: it takes each rank's files and tuples, maps every
 * timestamp onto rank 0's clock ({@link HostClocks}) and hands each call to what judges it — per collective instance
 * the last arriver and every rank's wait ({@link CollectiveWaits}), late senders and receivers
 * ({@link PointToPointWaits}), each rank's profile ({@link CallProfile}) and ToM's filter ({@link MpiScope}). The
 * report's blocks are made of it by {@link MpiBlock}, {@link MonitorsBlock} and {@link MpiSummary}.
 *
 * <p>A host's clock map is fixed at its first tuple: while the program runs the MPI_Finalize offsets do not exist
 * yet, so the live analysis maps with the MPI_Init offset alone, and {@link #reread} reads the rings again afterwards,
 * as Scalasca interpolates post-mortem, for the report.
 *
 * <p>Not thread-safe: fed by one agent thread, which also makes the live blocks of it; read for the report after the
 * agents stopped.
 */
final class MpiAnalysis implements MpiTupleSink {
    private int worldSize = -1;
    private final List<MpiRankFiles> rankFiles = new ArrayList<>();
    private final List<int[]> pendingComms = new ArrayList<>();
    private int[] hostOf = new int[0];
    /** Per rank: the latest entry (rank 0's clock) of the calls read, Long.MIN_VALUE before its first. */
    private long[] lastEntryNs = new long[0];
    private final HostClocks clocks = new HostClocks();
    private CallProfile profile;
    private CollectiveWaits collectives;
    private PointToPointWaits pointToPoint;
    private long tuplesRead;
    private long receiveRecords;
    private MpiScope scope;
    /** A reread's: the live analysis' scope, reported but not fed again. */
    private MpiScope reportScope;
    private RankSnapshots snapshots = RankSnapshots.NONE;
    private String driftNote = "";

    @Override
    public void onRank(int host, MpiRankFiles rank) {
        if (worldSize < 0) {
            worldSize = Math.max(1, rank.size());
            hostOf = new int[worldSize];
            lastEntryNs = new long[worldSize];
            java.util.Arrays.fill(lastEntryNs, Long.MIN_VALUE);
            profile = new CallProfile(worldSize);
            collectives = new CollectiveWaits(worldSize);
            pointToPoint = new PointToPointWaits(worldSize);
            for (int[] c : pendingComms) {
                collectives.communicator(c[0], c[1]);
            }
        }
        rankFiles.add(rank);
        int r = rank.rank();
        if (r >= 0 && r < worldSize) {
            hostOf[r] = host;
            clocks.add(host, rank);
        }
    }

    /** Runs ToM's filter of {@code scope} over every call from now on. */
    void scope(MpiScope scope) {
        this.scope = scope;
    }

    MpiScope scope() {
        return scope != null ? scope : reportScope;
    }

    /**
     * The analysis for the report, after the program ended and {@link #finish} ran: this one if every tuple was
     * mapped with its host's drift (read after MPI_Finalize, as with {@code --agent after}, or all on rank 0's host);
     * else a new analysis that reads the rings of {@code agents}' hosts again, from the start, now that the
     * MPI_Finalize offsets are in the meta files — if the rings still hold every tuple this one read (else this one,
     * with the MPI_Init offsets alone, and a note saying so). The scope of ToM's filter is this one's, not fed twice.
     */
    MpiAnalysis reread(List<NodeAgent> agents) {
        if (clocks.tuplesMappedInitOnly() == 0) {
            return this;
        }
        MpiAnalysis again = new MpiAnalysis();
        again.reportScope = scope;
        List<NodeAgent> readers = new ArrayList<>();
        try {
            for (NodeAgent a : agents) {
                readers.add(a.rereading(again));
            }
            NodeAgent.drain(readers);
            again.finish(readers);
        } finally {
            readers.forEach(NodeAgent::onClose);
        }
        if (again.tuplesRead != tuplesRead) {
            driftNote = "not applied: the rings no longer hold every tuple the live analysis read (" + again.tuplesRead
                    + " of " + tuplesRead + "); MPI_Init offsets only";
            return this;
        }
        if (again.clocks.tuplesMappedInitOnly() != 0) {
            again.driftNote = "not applied on hosts none of whose ranks measured an MPI_Finalize offset (they did not "
                    + "reach it): MPI_Init offset only there";
        }
        return again;
    }

    @Override
    public boolean everyRankSeen() {
        return worldSize > 0 && rankFiles.size() >= worldSize;
    }

    @Override
    public void onCommunicator(int id, int size) {
        if (collectives == null) {
            pendingComms.add(new int[] {id, size});
        } else {
            collectives.communicator(id, size);
        }
    }

    @Override
    public boolean holdBack(int rank) {
        return pointToPoint != null && pointToPoint.holdBack(rank) && readAhead(rank);
    }

    /**
     * Whether {@code rank}'s calls read so far reach later (on rank 0's clock) than another mapped rank's: only then
     * can reading the others first bring the partners of its waiting calls. A rank no other is behind is not held
     * back, so calls that never find a partner cannot stall its reader.
     */
    private boolean readAhead(int rank) {
        long mine = lastEntryNs[rank];
        for (int r = 0; r < worldSize; r++) {
            if (r != rank && lastEntryNs[r] != Long.MIN_VALUE && lastEntryNs[r] < mine) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void onTuple(int host, int rank, TraceTupleFlyweight t) {
        tuplesRead++;
        int op = t.opType();
        if (op == MpiTuple.RECORD_RECEIVE && rank >= 0 && rank < worldSize) {
            receiveRecords++;
            onReceiveRecord(clocks.mapTuple(hostOf[rank]), rank, t);
            return;
        }
        if (op == MpiTuple.RECORD_COLLECTIVE_DONE && rank >= 0 && rank < worldSize) {
            long seq = t.sequence();
            collectives.completed(MpiTuple.comm(seq), MpiTuple.low(seq), rank,
                    clocks.mapTuple(hostOf[rank]).toBase(t.endNs()));
            return;
        }
        if (!MpiOp.known(op) || rank < 0 || rank >= worldSize) {
            return;
        }
        profile.call(rank, op, t.startNs(), t.endNs());
        double durationUs = (t.endNs() - t.startNs()) / 1000.0;
        if (scope != null) {
            scope.add(host, rank, MpiOp.name(op), durationUs);
        }
        ClockMap clock = clocks.mapTuple(hostOf[rank]);
        long entry = clock.toBase(t.startNs());
        long exit = clock.toBase(t.endNs());
        lastEntryNs[rank] = Math.max(lastEntryNs[rank], entry);
        long seq = t.sequence();
        int comm = MpiTuple.comm(seq);
        if (MpiTuple.collective(t)) {
            if (op != MpiOp.INIT && op != MpiOp.INIT_THREAD && op != MpiOp.FINALIZE && !MpiOp.neighbourhood(op)) {
                profile.collective(rank, durationUs);
                if ((t.flags() & MpiTuple.FLAG_NONBLOCKING) != 0 && (t.flags() & MpiTuple.FLAG_FAILED) == 0) {
                    collectives.posted(comm, MpiTuple.low(seq), rank, entry, exit);
                } else {
                    collectives.arrive(comm, MpiTuple.low(seq), rank, entry, exit);
                }
            }
        } else if (MpiOp.sends(op)) {
            int peer = MpiTuple.peer(t.value());
            if (peer >= 0) {
                pointToPoint.send(comm, rank, peer, MpiTuple.low(seq), entry, exit,
                        op != MpiOp.SENDRECV && op != MpiOp.SENDRECV_REPLACE);
            }
        } else if (op == MpiOp.RECV) {
            int peer = MpiTuple.peer(t.value());
            if (peer >= 0) {
                pointToPoint.receive(comm, peer, rank, MpiTuple.low(seq), entry, exit);
            }
        } else if (op == MpiOp.IRECV && (t.flags() & MpiTuple.FLAG_FAILED) == 0) {
            pointToPoint.post(comm, MpiTuple.peer(t.value()), rank, MpiTuple.low(seq), entry, (int) t.startNs());
        }
    }

    /** A receive that completed inside a call: a sendrecv's receive half, or an MPI_Irecv a wait or test completed. */
    private void onReceiveRecord(ClockMap clock, int rank, TraceTupleFlyweight t) {
        int peer = MpiTuple.peer(t.value());
        if (peer < 0) {
            return;
        }
        long seq = t.sequence();
        long entry = clock.toBase(t.startNs());
        long exit = clock.toBase(t.endNs());
        if ((t.flags() & MpiTuple.FLAG_NONBLOCKING) != 0) {
            pointToPoint.complete(MpiTuple.comm(seq), peer, rank, MpiTuple.low(seq), t.collectorId(), entry, exit);
        } else {
            pointToPoint.receive(MpiTuple.comm(seq), peer, rank, MpiTuple.low(seq), entry, exit);
        }
    }

    /**
     * The end of the run ({@code agents} drained, their files still mapped): instances still missing a member are
     * counted incomplete, point-to-point calls still unmatched are counted by why.
     */
    void finish(List<NodeAgent> agents) {
        if (scope != null) {
            scope.finish();
        }
        snapshots = new RankSnapshots(worldSize, rankFiles);
        if (collectives != null) {
            collectives.finish(true);
        }
        if (pointToPoint != null) {
            long[] missed = new long[worldSize];
            for (NodeAgent a : agents) {
                a.missedByRank(missed);
            }
            pointToPoint.finish(missed);
        }
    }

    /** The job's ranks, −1 before the first rank's files were mapped. */
    int worldSize() {
        return worldSize;
    }

    /** Whether some rank reached MPI_Init: before, there are no waits, profile or point-to-point matches. */
    boolean started() {
        return collectives != null;
    }

    /** The rank that arrived last most often at collectives (a tie: the one that caused the larger wait), or −1. */
    int slowestRank() {
        Integer culprit = collectives == null ? null : collectives.verdict().culprit();
        return culprit == null ? -1 : culprit;
    }

    /** Wait at N×N; null before {@link #started()}. */
    CollectiveWaits collectives() {
        return collectives;
    }

    /** Late senders and receivers; null before {@link #started()}. */
    PointToPointWaits pointToPoint() {
        return pointToPoint;
    }

    /** Each rank's profile; null before {@link #started()}. */
    CallProfile profile() {
        return profile;
    }

    HostClocks clocks() {
        return clocks;
    }

    /** Why the drift is not applied everywhere, or empty. */
    String driftNote() {
        return driftNote;
    }

    /** The ranks' meta files as they stood when {@link #finish} ran (none before). */
    RankSnapshots snapshots() {
        return snapshots;
    }

    /** How each rank 0 .. worldSize-1 ended, as the meta files said at {@link #finish} (none before). */
    List<RankExit> exits() {
        return RankExits.of(snapshots, Math.max(0, worldSize), profile);
    }

    /** Ranks whose files the agents mapped. */
    int ranksMapped() {
        return rankFiles.size();
    }

    long tuplesRead() {
        return tuplesRead;
    }

    /** Receives that completed inside a call ({@link MpiTuple#RECORD_RECEIVE}). */
    long receiveRecords() {
        return receiveRecords;
    }
}
