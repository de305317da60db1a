package org.eventspace.mpi;

import java.util.ArrayList;
import java.util.List;

import org.eventspace.base.stats.RunningStatistics;

/**
 * Each rank's profile as mpiP and Scalasca's summary give it: per rank and MPI function the calls and the time spent
 * in them; per function the durations' statistics across every rank; per rank the durations of its collective calls
 * (a port's total time in the live view); and the call each rank ended last, for a rank that never reached
 * MPI_Finalize.
 *
 * <p>Not thread-safe: fed by one agent thread.
 */
final class CallProfile {
    private static final int FUNCTIONS = MpiOp.END - MpiOp.FIRST;

    private final int worldSize;
    private final long[][] timeNs;
    private final long[][] calls;
    private final RunningStatistics[] durationUs = new RunningStatistics[FUNCTIONS];
    private final RunningStatistics[] collectiveUs;
    private final int[] lastOp;
    private final long[] lastEndNs;

    /**
     * One function's time across the ranks that called it: the least and most a rank spent (and which rank), the
     * mean over those ranks.
     */
    record Spread(int op, int ranks, long minNs, int minRank, double meanNs, long maxNs, int maxRank) {
        /** How far the most loaded rank is above the mean, in percent (0 when nothing was spent). */
        double imbalancePct() {
            return meanNs > 0 ? (maxNs / meanNs - 1) * 100 : 0.0;
        }
    }

    CallProfile(int worldSize) {
        this.worldSize = worldSize;
        this.timeNs = new long[worldSize][FUNCTIONS];
        this.calls = new long[worldSize][FUNCTIONS];
        this.lastOp = new int[worldSize];
        this.lastEndNs = new long[worldSize];
        this.collectiveUs = new RunningStatistics[worldSize];
        for (int r = 0; r < worldSize; r++) {
            collectiveUs[r] = new RunningStatistics();
        }
    }

    /** One call of the known function {@code op} by {@code rank}, on the rank's own clock. */
    void call(int rank, int op, long startNs, long endNs) {
        int i = op - MpiOp.FIRST;
        long duration = endNs - startNs;
        timeNs[rank][i] += duration;
        calls[rank][i]++;
        RunningStatistics s = durationUs[i];
        if (s == null) {
            s = durationUs[i] = new RunningStatistics();
        }
        s.add(duration / 1000.0);
        lastOp[rank] = op;
        lastEndNs[rank] = endNs;
    }

    /** One collective call of {@code rank} that joins an instance, its duration in µs. */
    void collective(int rank, double durationUs) {
        collectiveUs[rank].add(durationUs);
    }

    /** Calls of the function {@code FIRST + i} by {@code rank} that the agents read. */
    long callsRead(int rank, int i) {
        return calls[rank][i];
    }

    long timeNs(int rank, int i) {
        return timeNs[rank][i];
    }

    /** The durations of the function {@code FIRST + i} across every rank (µs), or null if nobody called it. */
    RunningStatistics durationUs(int i) {
        return durationUs[i];
    }

    RunningStatistics collectiveUs(int rank) {
        return collectiveUs[rank];
    }

    /** The last call {@code rank} ended (its MpiOp code, 0 if none) and when, on its own clock. */
    int lastOp(int rank) {
        return lastOp[rank];
    }

    long lastEndNs(int rank) {
        return lastEndNs[rank];
    }

    /** Per function that some rank called, in MpiOp order, its time's spread across those ranks. */
    List<Spread> spreads() {
        List<Spread> out = new ArrayList<>();
        for (int i = 0; i < FUNCTIONS; i++) {
            int n = 0;
            double sum = 0;
            int minRank = -1;
            int maxRank = -1;
            for (int r = 0; r < worldSize; r++) {
                if (calls[r][i] == 0) {
                    continue;
                }
                n++;
                sum += timeNs[r][i];
                if (minRank < 0 || timeNs[r][i] < timeNs[minRank][i]) {
                    minRank = r;
                }
                if (maxRank < 0 || timeNs[r][i] > timeNs[maxRank][i]) {
                    maxRank = r;
                }
            }
            if (n > 0) {
                out.add(new Spread(MpiOp.FIRST + i, n, timeNs[minRank][i], minRank, sum / n, timeNs[maxRank][i], maxRank));
            }
        }
        return out;
    }
}
