package org.eventspace.mpi;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import org.eventspace.scope.filter.FilterSpec;

/**
 * One monitored MPI run, validated once: the program and its ranks, where the trace files go, how the system's
 * {@code mpirun} is called, and which monitors report.
 *
 * @param np         ranks ({@code mpirun -np})
 * @param program    the MPI program (a path or a name on the PATH)
 * @param args       its arguments, passed as they are
 * @param traceDir   ES_MPI_DIR: {@code host-<host>/rank-<R>.trace|.meta} go there (kept unless
 *                   {@code traceDirTemporary})
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
 *                   that this JVM starts and pulls over TCP; {@link Agents#LISTEN}, agent processes started elsewhere
 *                   (one per node of a cluster) connect to {@code listen}'s address and are pulled the same way
 * @param listen     with {@link Agents#LISTEN}: how many agents, where they connect and the secret they present; else null
 * @param traceDirTemporary {@code traceDir} is a temporary folder its caller removes once it no longer needs the
 *                   files (after the report, the traffic matrix and the trace are written): the summary and the
 *                   errors then say the files are gone, not where they are
 * @param mpi        the MPI implementation {@code mpirun} and {@code mpicc} belong to (how the launcher is driven, which
 *                   library build is used), as the caller checked it ({@link MpiImplementation#matching}); null: read
 *                   off {@code mpirun} and checked against {@code mpicc} when the run starts
 */
public record MpiRunConfig(int np, String program, List<String> args, Path traceDir, int capacity, int simHosts,
                           long simSkewNs, String mpirun, String mpicc, List<String> mpirunArgs, long timeoutS,
                           Set<String> monitors, boolean live, int progressS,
                           FilterSpec filter, Agents agents, AgentListen listen, boolean traceDirTemporary,
                           MpiImplementation mpi) {
    public static final int DEFAULT_CAPACITY = 1 << 17;
    public static final Set<String> MONITORS = Set.of("loadbalance", "stats");

    /** Where the node agents run. */
    public enum Agents {
        /** One thread of this JVM runs every host folder's agent: one machine. */
        THREAD,
        /** One agent process per host, pulled by this JVM over TCP (here: one per simulated host, over loopback). */
        PROCESSES,
        /** Agent processes someone else starts, one per node ({@code srun}, {@code mpirun --map-by ppr:1:node}). */
        LISTEN
    }

    /**
     * Where agent processes started elsewhere connect, validated once.
     *
     * @param hosts     how many agents the run waits for (one per node)
     * @param host      the address to listen on, which the agents' ES_MPI_AGENT_FRONT_END names
     * @param port      the port, 1..65535
     * @param secretHex the job secret the agents present (ES_MPI_AGENT_SECRET): 64 hex digits
     */
    public record AgentListen(int hosts, String host, int port, String secretHex) {
        public AgentListen {
            if (hosts < 1 || hosts > 65_536) {
                throw new IllegalArgumentException("agents to wait for must be in [1, 65536], got " + hosts);
            }
            if (host == null || host.isEmpty()) {
                throw new IllegalArgumentException("the agents' address needs a host, got '" + host + "'");
            }
            if (port < 1 || port > 65_535) {
                throw new IllegalArgumentException("the agents' port must be in [1, 65535], got " + port);
            }
            if (secretHex == null || !secretHex.matches("[0-9a-fA-F]{64}")) {
                throw new IllegalArgumentException("ES_MPI_AGENT_SECRET must be 64 hex digits (32 bytes), got "
                        + (secretHex == null ? "nothing" : secretHex.length() + " characters"));
            }
        }

        /**
         * {@code hosts} agents connecting to {@code address} ({@code HOST:PORT}).
         *
         * @throws IllegalArgumentException naming the address and what was expected.
         */
        public static AgentListen of(int hosts, String address, String secretHex) {
            int colon = address.lastIndexOf(':');
            int port;
            try {
                port = colon < 1 ? -1 : Integer.parseInt(address.substring(colon + 1));
            } catch (NumberFormatException e) {
                port = -1;
            }
            if (port < 0) {
                throw new IllegalArgumentException("the agents' address must be HOST:PORT, got '" + address + "'");
            }
            return new AgentListen(hosts, address.substring(0, colon), port, secretHex);
        }

        /** Without the secret, which must not reach logs or reports. */
        @Override
        public String toString() {
            return "AgentListen[" + hosts + " agents at " + host + ":" + port + "]";
        }
    }

    /** A run whose MPI implementation is read off {@code mpirun} when it starts. */
    public MpiRunConfig(int np, String program, List<String> args, Path traceDir, int capacity, int simHosts,
                        long simSkewNs, String mpirun, String mpicc, List<String> mpirunArgs, long timeoutS,
                        Set<String> monitors, boolean live, int progressS, FilterSpec filter,
                        Agents agents, AgentListen listen, boolean traceDirTemporary) {
        this(np, program, args, traceDir, capacity, simHosts, simSkewNs, mpirun, mpicc, mpirunArgs, timeoutS, monitors,
                live, progressS, filter, agents, listen, traceDirTemporary, null);
    }

    /** This run under {@code mpi}'s launcher and compiler, with these launcher arguments. */
    public MpiRunConfig under(MpiImplementation implementation, String launcher, String compiler, List<String> launcherArgs) {
        return new MpiRunConfig(np, program, args, traceDir, capacity, simHosts, simSkewNs, launcher, compiler,
                launcherArgs, timeoutS, monitors, live, progressS, filter, agents, listen, traceDirTemporary,
                implementation);
    }

    /** A run whose trace folder stays after it. */
    public MpiRunConfig(int np, String program, List<String> args, Path traceDir, int capacity, int simHosts,
                        long simSkewNs, String mpirun, String mpicc, List<String> mpirunArgs, long timeoutS,
                        Set<String> monitors, boolean live, int progressS, FilterSpec filter,
                        Agents agents, AgentListen listen) {
        this(np, program, args, traceDir, capacity, simHosts, simSkewNs, mpirun, mpicc, mpirunArgs, timeoutS, monitors,
                live, progressS, filter, agents, listen, false);
    }

    /** A run with its agents as {@code agents} says, none of them started elsewhere. */
    public MpiRunConfig(int np, String program, List<String> args, Path traceDir, int capacity, int simHosts,
                        long simSkewNs, String mpirun, String mpicc, List<String> mpirunArgs, long timeoutS,
                        Set<String> monitors, boolean live, int progressS, FilterSpec filter,
                        Agents agents) {
        this(np, program, args, traceDir, capacity, simHosts, simSkewNs, mpirun, mpicc, mpirunArgs, timeoutS, monitors,
                live, progressS, filter, agents, null);
    }

    /** A run with its agents in this JVM ({@link Agents#THREAD}). */
    public MpiRunConfig(int np, String program, List<String> args, Path traceDir, int capacity, int simHosts,
                        long simSkewNs, String mpirun, String mpicc, List<String> mpirunArgs, long timeoutS,
                        Set<String> monitors, boolean live, int progressS, FilterSpec filter) {
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
        if ((agents == Agents.LISTEN) != (listen != null)) {
            throw new IllegalArgumentException("agents listened for need their address, and only they: agents=" + agents
                    + ", listen=" + listen);
        }
        if (agents != Agents.THREAD && !live) {
            throw new IllegalArgumentException("agent processes are pulled while the program runs: they need a live agent,"
                    + " not 'after'");
        }
        args = List.copyOf(args);
        mpirunArgs = List.copyOf(mpirunArgs);
        monitors = Set.copyOf(monitors);
    }
}
