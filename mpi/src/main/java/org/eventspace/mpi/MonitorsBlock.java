package org.eventspace.mpi;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.eventspace.base.stats.RunningStatistics;
import org.eventspace.base.stats.StatisticsSummary;
import org.eventspace.monitor.model.Verdict;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

import static org.eventspace.mpi.MpiBlock.byRank;
import static org.eventspace.mpi.MpiBlock.round;
import static org.eventspace.mpi.MpiBlock.us;

/**
 * The {@code monitors} block of an MPI run, as {@code run} writes it, with the kinds asked for: {@code loadbalance}
 * (the slowest rank, its z against chance, every rank's wait at N×N), {@code stats} (the calls' durations per MPI
 * function), and the {@code profile} ({@link ProfileBlock}). Before any rank reached MPI_Init only {@code kinds}.
 *
 * <p>{@link #live} adds what a job's monitors add for the dashboard ({@code MonitorSnapshot.report}'s shape), over
 * the one flat gred at which PMPI's view joins every collective instance ({@link MpiPathmap}): {@code loadbalance}
 * gains {@code greds} (per port, i.e. per rank: last arrivals and mean wait), {@code heaviest_path} (root to the
 * slowest rank), {@code trees} and {@code slowest_rank_gred}; {@code stats} gains {@code wrappers} (per port the wait
 * at N×N and the collective calls' durations as statistics, the arrival orders, and from the calls' exits the
 * departure wait and order); and the agent's own figures.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
record MonitorsBlock(List<String> kinds, LoadBalance loadbalance, Stats stats, ProfileBlock profile, Long tuplesRead,
                     Long tuplesMissed, Double gatherRate, Long callsJoined, AgentCpu analysis) {

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record LoadBalance(@JsonInclude(JsonInclude.Include.ALWAYS) Integer slowestRank, Double slowestRankLastShare,
                       Double slowestRankZ, Boolean slowestRankBeyondChance, long collectiveInstances,
                       Map<String, Double> waitUs, Map<String, Double> waitCausedUs, Map<String, Long> lastArrivals,
                       Map<String, Gred> greds, String slowestRankGred, List<String> heaviestPath,
                       Double heaviestPathWeight, Integer heaviestPathRank, List<TreeWeight> trees) {
    }

    /** The flat gred, by port: who contributes, how often each came last, its mean wait (µs). */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    record Gred(List<String> contributors, long[] lastArrivals, double[] meanArrivalWaitUs, long calls) {
    }

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    record TreeWeight(int tree, int slowestRank, double weight, List<String> heaviestPath) {
    }

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Stats(Map<String, StatisticsSummary> callDurationUs, Map<String, Wrapper> wrappers) {
    }

    record Wrapper(int host, int tree, long calls, List<Port> ports) {
    }

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Port(int port, String contributor, StatisticsSummary arrivalWait, StatisticsSummary total,
                long[] arrivalOrder, StatisticsSummary departureWait, long[] departureOrder) {
    }

    /** The agent thread's CPU time (ms) and its thread count. */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    record AgentCpu(double cpuMs, int threads) {
    }

    /** The block of the report, with {@code kinds}. */
    static MonitorsBlock of(MpiAnalysis analysis, Set<String> kinds) {
        List<String> sorted = kinds.stream().sorted().toList();
        if (!analysis.started()) {
            return new MonitorsBlock(sorted, null, null, null, null, null, null, null, null);
        }
        return new MonitorsBlock(sorted, kinds.contains("loadbalance") ? loadBalance(analysis, null) : null,
                kinds.contains("stats") ? stats(analysis, null) : null, ProfileBlock.of(analysis), null, null, null, null,
                null);
    }

    /**
     * The block for the dashboard, over {@code tree}, with the agent's figures: tuples read and missed, the gather
     * rate, the complete instances ({@code calls_joined}) and the agent thread's CPU. Called on the agent's thread
     * while the program runs, and after.
     */
    static MonitorsBlock live(MpiAnalysis analysis, Set<String> kinds, MpiPathmap tree, long missed, long agentCpuNs) {
        MonitorsBlock base = of(analysis, kinds);
        long read = analysis.tuplesRead();
        long joined = analysis.started() ? analysis.collectives().instances : 0;
        AgentCpu cpu = new AgentCpu(round(agentCpuNs / 1e6), 1);
        double rate = read + missed == 0 ? 1.0 : (double) read / (read + missed);
        boolean drawn = analysis.started() && analysis.worldSize() == tree.pathmap().spec().ranks();
        LoadBalance lb = drawn && base.loadbalance != null ? loadBalance(analysis, tree) : base.loadbalance;
        Stats stats = drawn && base.stats != null ? stats(analysis, tree) : base.stats;
        return new MonitorsBlock(base.kinds, lb, stats, base.profile, read, missed, rate, joined, cpu);
    }

    /** Load balance; with the gred's view when {@code tree} is not null. */
    private static LoadBalance loadBalance(MpiAnalysis analysis, MpiPathmap tree) {
        CollectiveWaits c = analysis.collectives();
        int n = analysis.worldSize();
        Verdict.SlowestRank verdict = c.verdict();
        int slowest = verdict.rank() == null ? -1 : verdict.rank();
        Double share = verdict.lastShare();
        Double z = verdict.z();
        Boolean beyondChance = verdict.rank() == null ? null : verdict.beyondChance();
        Map<String, Double> wait = byRank(n, r -> us(c.waitNs[r]));
        Map<String, Double> caused = byRank(n, r -> us(c.waitCausedNs[r]));
        Map<String, Long> last = byRank(n, r -> c.lastArrivals[r]);
        Integer slowestRank = slowest < 0 ? null : slowest;
        if (tree == null) {
            return new LoadBalance(slowestRank, share, z, beyondChance, c.instances, wait, caused, last, null, null, null,
                    null, null, null);
        }
        long[] lastByPort = new long[n];
        double[] meanWaitByPort = new double[n];
        for (int r = 0; r < n; r++) {
            RunningStatistics w = c.waitUs[r];
            lastByPort[tree.port(r)] = c.lastArrivals[r];
            meanWaitByPort[tree.port(r)] = w.count() == 0 ? 0 : round(w.mean());
        }
        Map<String, Gred> greds = Map.of(tree.gred(), new Gred(tree.contributors(), lastByPort, meanWaitByPort, c.instances));
        if (slowest < 0) {
            return new LoadBalance(slowestRank, share, z, beyondChance, c.instances, wait, caused, last, greds, null, null,
                    null, null, null);
        }
        double weight = round((double) c.lastArrivals[slowest] / Math.max(1, c.instances));
        List<String> path = tree.pathFromRoot(slowest);
        return new LoadBalance(slowestRank, share, z, beyondChance, c.instances, wait, caused, last, greds, tree.gred(),
                path, weight, slowest, List.of(new TreeWeight(0, slowest, weight, path)));
    }

    /** Call durations; with the gred's ports when {@code tree} is not null. */
    private static Stats stats(MpiAnalysis analysis, MpiPathmap tree) {
        CallProfile profile = analysis.profile();
        Map<String, StatisticsSummary> durations = new LinkedHashMap<>();
        for (int i = 0; i < MpiOp.END - MpiOp.FIRST; i++) {
            if (profile.durationUs(i) != null) {
                durations.put(MpiOp.name(MpiOp.FIRST + i), profile.durationUs(i).summary());
            }
        }
        if (tree == null) {
            return new Stats(durations, null);
        }
        CollectiveWaits c = analysis.collectives();
        Port[] byPort = new Port[analysis.worldSize()];
        for (int r = 0; r < byPort.length; r++) {
            byPort[tree.port(r)] = new Port(tree.port(r), "rank " + r, c.waitUs[r].summary(),
                    profile.collectiveUs(r).summary(), c.arrivalOrder != null ? c.arrivalOrder[r].clone() : null,
                    c.departureWaitUs[r].summary(), c.departureOrder != null ? c.departureOrder[r].clone() : null);
        }
        String g = tree.gred();
        int host = tree.pathmap().nodes().stream().filter(node -> node.name().equals(g)).findFirst().orElseThrow().host();
        return new Stats(durations, Map.of(g, new Wrapper(host, 0, c.instances, List.of(byPort))));
    }
}
