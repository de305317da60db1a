package org.eventspace.mpi;

import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * The {@code profile} of the {@code monitors} block ({@link CallProfile}): per rank (keyed "0", "1", …) and MPI
 * function its calls and time, per function the spread of that time across the ranks that called it. Times in µs to
 * 0.1.
 */
record ProfileBlock(Map<String, Map<String, RankCalls>> ranks, Map<String, Operation> operations) {

    /** One rank's calls of one function: the meta file's count when there is one (exact), else the tuples read. */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    record RankCalls(long calls, double timeUs) {
    }

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    record Operation(int ranks, double minUs, int minRank, double meanUs, double maxUs, int maxRank, double imbalancePct) {
    }

    static ProfileBlock of(MpiAnalysis analysis) {
        int worldSize = analysis.worldSize();
        CallProfile profile = analysis.profile();
        Map<String, Map<String, RankCalls>> ranks = MpiBlock.byRank(worldSize, r -> {
            RankSnapshot snapshot = analysis.snapshots().of(r);
            Map<String, RankCalls> rank = new LinkedHashMap<>();
            for (int i = 0; i < MpiOp.END - MpiOp.FIRST; i++) {
                long calls = snapshot != null ? snapshot.calls(i) : profile.callsRead(r, i);
                if (calls > 0) {
                    rank.put(MpiOp.name(MpiOp.FIRST + i), new RankCalls(calls, MpiBlock.us(profile.timeNs(r, i))));
                }
            }
            return rank;
        });
        Map<String, Operation> operations = new LinkedHashMap<>();
        for (CallProfile.Spread s : profile.spreads()) {
            operations.put(MpiOp.name(s.op()), new Operation(s.ranks(), MpiBlock.us(s.minNs()), s.minRank(),
                    MpiBlock.us(s.meanNs()), MpiBlock.us(s.maxNs()), s.maxRank(),
                    MpiBlock.round(s.imbalancePct())));
        }
        return new ProfileBlock(ranks, operations);
    }
}
