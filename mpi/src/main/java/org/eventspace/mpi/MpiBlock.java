package org.eventspace.mpi;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * The {@code mpi} block of an MPI run's {@code eventspace.run/2} report, as Jackson writes it (snake_case, in the
 * components' order): what was called and sent (the meta files' exact counts), what the agents read and missed, the
 * ranks that did not finish and how every rank ended ({@link RankExit}), the collective instances and point-to-point
 * matches, the clock alignment ({@link ClockBlock}) and where the node agents ran. {@code collectives} and {@code point_to_point} are absent before
 * any rank reached MPI_Init.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
record MpiBlock(int ranks, int ranksTraced, int hosts, Map<String, Long> calls, Map<String, Long> callBytes,
                long callsTotal, long bytesSent,
                long tuplesWritten, long tuplesRead, long tuplesMissed, long untracedCalls,
                List<UnfinishedRank> unfinishedRanks, List<RankExit> rankExits, Collectives collectives,
                PointToPoint pointToPoint, ClockBlock clock, Agents agents) {

    /** A rank that did not reach MPI_Finalize. */
    sealed interface UnfinishedRank permits NoFiles, NoFinalize {
    }

    /** A rank that left no trace files. */
    record NoFiles(int rank, String state) implements UnfinishedRank {
        NoFiles(int rank) {
            this(rank, "no trace files (the rank never reached MPI_Init, or its host's agent did not run)");
        }
    }

    /** A rank that traced but did not reach MPI_Finalize: its last call (null if none) and when it ended, its own clock. */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    record NoFinalize(int rank, String state, int pid, @JsonInclude(JsonInclude.Include.ALWAYS) String lastCall,
                      long lastCallEndNs, long tuplesWritten) implements UnfinishedRank {
    }

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    record Collectives(long instances, long incomplete, long unknownCommunicatorCalls, long nonblockingCompleted,
                       long nonblockingWithoutCompletion) {
    }

    /** Late sender and receiver per rank, keyed by rank; times in µs to 0.1. */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    record PointToPoint(long matched, long unmatched, long unmatchedNoPartner, long unmatchedPartnerOverwritten,
                        long receiveRecords, long completionsWithoutPost, long postsForgotten,
                        long pendingBoundExceeded, long untrackedRequests, Map<String, Double> lateSenderWaitUs,
                        Map<String, Long> lateSenderCalls, Map<String, Double> lateSenderCausedUs,
                        Map<String, Double> lateReceiverWaitUs) {
    }

    /** Where the node agents ran, and with agent processes what they sent. */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Agents(String where, Integer connected, Long rounds, Long bytesReceived, Long tuplesReceived,
                  Long metaBlocksReceived) {
        static Agents of(String where, RemoteAgents.Traffic traffic) {
            return traffic == null ? new Agents(where, null, null, null, null, null)
                    : new Agents(where, traffic.agents(), traffic.rounds(), traffic.bytes(), traffic.tuples(),
                    traffic.metaBlocks());
        }
    }

    /** The block of {@code analysis} after {@link MpiAnalysis#finish}; {@code written} and {@code missed} from the agents. */
    static MpiBlock of(MpiAnalysis analysis, long written, long missed, int hosts, Agents agents) {
        int worldSize = analysis.worldSize();
        RankSnapshots snapshots = analysis.snapshots();
        Map<String, Long> calls = new LinkedHashMap<>();
        Map<String, Long> callBytes = new LinkedHashMap<>();
        long total = 0;
        for (int op = MpiOp.FIRST; op < MpiOp.END; op++) {
            long n = snapshots.calls(op);
            if (n > 0) {
                calls.put(MpiOp.name(op), n);
                total += n;
            }
            long b = snapshots.bytes(op);
            if (b > 0) {
                callBytes.put(MpiOp.name(op), b);
            }
        }
        List<UnfinishedRank> unfinished = snapshots.unfinished(worldSize).stream().map(r -> unfinished(analysis, r)).toList();
        Collectives collectives = null;
        PointToPoint pointToPoint = null;
        if (analysis.started()) {
            CollectiveWaits c = analysis.collectives();
            collectives = new Collectives(c.instances, c.incomplete, c.unknownCommunicator, c.postedCompleted,
                    c.postedWithoutCompletion);
            PointToPointWaits p = analysis.pointToPoint();
            pointToPoint = new PointToPoint(p.matched, p.unmatched(), p.unmatchedNoPartner,
                    p.unmatchedPartnerOverwritten, analysis.receiveRecords(), p.completionsWithoutPost, p.postsForgotten,
                    p.pendingBoundExceeded, snapshots.untrackedRequests(), byRank(worldSize, r -> us(p.lateSenderNs[r])),
                    byRank(worldSize, r -> p.lateSenderCount[r]), byRank(worldSize, r -> us(p.lateSenderCausedNs[r])),
                    byRank(worldSize, r -> us(p.lateReceiverNs[r])));
        }
        return new MpiBlock(Math.max(0, worldSize), snapshots.all().size(), hosts, calls, callBytes, total,
                snapshots.bytesSent(),
                written, analysis.tuplesRead(), missed, snapshots.untracedCalls(), unfinished, analysis.exits(),
                collectives, pointToPoint, ClockBlock.of(analysis), agents);
    }

    private static UnfinishedRank unfinished(MpiAnalysis analysis, int rank) {
        RankSnapshot s = analysis.snapshots().of(rank);
        if (s == null) {
            return new NoFiles(rank);
        }
        int last = analysis.profile().lastOp(rank);
        return new NoFinalize(rank, "no MPI_Finalize", s.pid(), last == 0 ? null : MpiOp.name(last),
                analysis.profile().lastEndNs(rank), s.tuplesWritten());
    }

    /** Ranks 0 .. worldSize-1 as the keys "0", "1", … in order, to {@code value}. */
    static <T> Map<String, T> byRank(int worldSize, IntFunction<T> value) {
        Map<String, T> m = new LinkedHashMap<>();
        for (int r = 0; r < worldSize; r++) {
            m.put(String.valueOf(r), value.apply(r));
        }
        return m;
    }

    /** {@code ns} in µs, to 0.1 µs. */
    static double us(double ns) {
        return round(ns / 1000.0);
    }

    /** To one decimal, as every figure of the report is given. */
    static double round(double x) {
        return Math.round(x * 10.0) / 10.0;
    }
}
