package org.eventspace.mpi;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * One monitored MPI run, validated once: the program and its ranks, where the trace files go, how the system's
 * {@code mpirun} is called, and which monitors report.
 *
 * @param np         ranks ({@code mpirun -np})
 * @param program    the MPI program (a path or a name on the PATH)
 * @param args       its arguments, passed as they are
 * @param traceDir   ES_MPI_DIR: {@code host-<host>/rank-<R>.trace|.meta} go there and stay after the run
 * @param capacity   tuples per rank's trace ring (a power of two)
 * @param simHosts   0, or split the ranks in blocks over this many simulated hosts (one node agent each)
 * @param simSkewNs  with simulated hosts: host h's clock reads h × this ahead (so the clock alignment has work)
 * @param mpirun     the system's mpirun
 * @param mpicc      the compiler the library is built with on first use
 * @param mpirunArgs more arguments for mpirun, before the program (e.g. {@code --mca btl self,vader})
 * @param timeoutS   seconds before the run is stopped
 * @param monitors   {@code loadbalance}, {@code stats}
 * @param live       read the trace while the program runs (true), or only once it ended (false: the agent takes no
 *                   CPU from the ranks; the analysis then covers what the rings still hold, the counts stay exact)
 * @param filter     ToM's filter to run over every call (one record per call: rank, function, µs), leaf per host,
 *                   a round every 200 ms with a live agent; null: none
 * @param progressS  with a live agent: every this many seconds one line on stderr with what the analysis saw so far
 *                   (calls read, the slowest rank so far); 0: none
 * @param agents     where the node agents run: {@link Agents#THREAD}, one thread in this JVM reading this machine's
 *                   folders; {@link Agents#PROCESSES}, one {@link NodeAgentProcess} per host (per simulated host here)
 *                   that this JVM pulls over TCP
 */
public record MpiRunConfig(int np, String program, List<String> args, Path traceDir, int capacity, int simHosts,
                           long simSkewNs, String mpirun, String mpicc, List<String> mpirunArgs, long timeoutS,
                           Set<String> monitors, boolean live, int progressS,
                           org.eventspace.scope.filter.FilterSpec filter, Agents agents) {
    public static final int DEFAULT_CAPACITY = 1 << 17;
    public static final Set<String> MONITORS = Set.of("loadbalance", "stats");

    /** Where the node agents run. */
    public enum Agents {
        /** One thread of this JVM runs every host folder's agent: one machine. */
        THREAD,
        /** One agent process per host, pulled by this JVM over TCP (here: one per simulated host, over loopback). */
        PROCESSES
    }

    /** A run with its agents in this JVM ({@link Agents#THREAD}). */
    public MpiRunConfig(int np, String program, List<String> args, Path traceDir, int capacity, int simHosts,
                        long simSkewNs, String mpirun, String mpicc, List<String> mpirunArgs, long timeoutS,
                        Set<String> monitors, boolean live, int progressS, org.eventspace.scope.filter.FilterSpec filter) {
        this(np, program, args, traceDir, capacity, simHosts, simSkewNs, mpirun, mpicc, mpirunArgs, timeoutS, monitors,
                live, progressS, filter, Agents.THREAD);
    }

    public MpiRunConfig {
        if (np < 1) {
            throw new IllegalArgumentException("-np must be >= 1, got " + np);
        }
        if (capacity < 2 || capacity > (1 << 24) || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two in [2, 16777216], got " + capacity);
        }
        if (simHosts < 0 || simHosts > np) {
            throw new IllegalArgumentException("simulated hosts must be in [0, np=" + np + "], got " + simHosts);
        }
        if (timeoutS < 1) {
            throw new IllegalArgumentException("timeout must be >= 1 s, got " + timeoutS);
        }
        if (progressS < 0) {
            throw new IllegalArgumentException("progress interval must be >= 0 s, got " + progressS);
        }
        for (String m : monitors) {
            if (!MONITORS.contains(m)) {
                throw new IllegalArgumentException("unknown monitor '" + m + "'; known: loadbalance, stats");
            }
        }
        if (agents == Agents.PROCESSES && !live) {
            throw new IllegalArgumentException("agent processes are pulled while the program runs: they need a live agent,"
                    + " not 'after'");
        }
        args = List.copyOf(args);
        mpirunArgs = List.copyOf(mpirunArgs);
        monitors = Set.copyOf(monitors);
    }
}
