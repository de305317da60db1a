package org.eventspace.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.eventspace.comm.pathmap.TreeShape;

/**
 * What {@code eventspace simulate} prints: for each job size and tree, the allreduce's latency without and with event
 * collectors (the collectors' overhead); for each event scope over that job, its gather rate, its front-end's load
 * and the job size at which it saturates; and the shapes to choose.
 *
 * <p>The job is gsum (2 trees, no work between allreduces: the hardest case for a monitor) on a cluster of identical
 * hosts of {@code coresPerHost} cores, {@code ranksPerHost} ranks each, TCP between hosts. A scope is pulled back to
 * back, sequential or with {@code helpers} helper threads a gather, under one of two loads ({@link Load}): every
 * collector's tuples, or the monitors' results only (EventSpace §4.3's distributed analysis).
 */
public final class Predictions {
    /**
     * One job.
     *
     * @param ranks        ranks.
     * @param ranksPerHost ranks on each host.
     * @param coresPerHost cores of each host.
     * @param iterations   simulated allreduces (the first fifth untimed).
     */
    public record Job(int ranks, int ranksPerHost, int coresPerHost, int iterations) {
        public int hosts() {
            return ranks / ranksPerHost;
        }
    }

    /** The allreduce on one tree. */
    public record TreeRow(int ranks, TreeShape tree, double offNs, double onNs, double overheadPct,
                          int collectorsPerHost, boolean whole) {
    }

    /** What a scope gathers. */
    public enum Load {
        /**
         * Every tuple every collector writes, concatenated (a single event scope feeding a front-end's analysis,
         * EventSpace Table 1), from trace buffers of {@link #TUPLE_BUFFER} tuples.
         */
        TUPLES,
        /**
         * The monitors' results only: one record per collector's wrapper, published at most every
         * {@link #RESULT_PERIOD_MS} ms, the newest kept (distributed analysis, EventSpace §4.3 and Table 2): the scope
         * keeps up while a round is shorter than the publication period.
         */
        RESULTS;

        public static final int TUPLE_BUFFER = 4096;
        public static final int RESULT_PERIOD_MS = 100;

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** One event scope over the job, on the tree the scope reads. */
    public record ScopeRow(int ranks, TreeShape scope, int helpers, Load load, ScopePrediction prediction,
                           ScopeSaturation saturation, int ranksPerHost) {
        /** The job size at which the scope stops keeping up, in ranks; -1 if not within the searched hosts. */
        public long saturationRanks() {
            return saturation.hosts().isPresent() ? (long) saturation.hosts().getAsInt() * ranksPerHost : -1;
        }
    }

    /** Every row, and the shapes chosen. */
    public record Result(List<TreeRow> trees, List<ScopeRow> scopes, List<String> advice) {
    }

    /** The largest job the saturation search looks at: 4·10⁶ ranks' hosts. */
    static final long SEARCH_RANKS = 4_000_000;

    private Predictions() {
    }

    public static Result predict(Costs costs, List<Job> jobs, List<TreeShape> trees, List<TreeShape> scopes,
                                 List<Integer> helpers, List<Load> loads) {
        List<TreeRow> treeRows = new ArrayList<>();
        List<ScopeRow> scopeRows = new ArrayList<>();
        List<String> advice = new ArrayList<>();
        for (Job job : jobs) {
            int warm = Math.max(1, job.iterations() / 5);
            TreeRow best = null;
            for (TreeShape tree : trees) {
                ClusterModel.Prediction off = ClusterModel.predict(costs, job.ranks(), job.ranksPerHost(), job.coresPerHost(),
                        tree, false, job.iterations(), warm);
                ClusterModel.Prediction on = ClusterModel.predict(costs, job.ranks(), job.ranksPerHost(), job.coresPerHost(),
                        tree, true, job.iterations(), warm);
                int perHost = collectorsPerHost(job, tree);
                TreeRow row = new TreeRow(job.ranks(), tree, off.latencyNs(), on.latencyNs(),
                        100 * (on.latencyNs() - off.latencyNs()) / off.latencyNs(), perHost, on.whole());
                treeRows.add(row);
                if (best == null || row.onNs() < best.onNs()) {
                    best = row;
                }
            }
            if (best == null) {
                continue;
            }
            // Each collector writes a tuple on every other call (gsum alternates its two trees).
            double perCollectorPerSecond = 1e9 / best.onNs() / 2;
            ScopeRow bestScope = null;
            for (Load load : loads) {
                for (TreeShape scope : scopes) {
                    for (int h : helpers) {
                        ScopeConfig config = ScopeConfig.of(job.hosts(), scope, costs.withCores(job.coresPerHost()))
                                .withHelpers(h);
                        config = load == Load.TUPLES
                                ? config.withLoad(best.collectorsPerHost(), perCollectorPerSecond)
                                .withBufferTuples(Load.TUPLE_BUFFER)
                                : config.withLoad(best.collectorsPerHost(), 1000.0 / Load.RESULT_PERIOD_MS)
                                .withBufferTuples(1);
                        ScopePrediction p = ScopeModel.predict(config);
                        ScopeSaturation s = ScopeModel.saturation(config,
                                (int) Math.min(Integer.MAX_VALUE, SEARCH_RANKS / job.ranksPerHost()));
                        ScopeRow row = new ScopeRow(job.ranks(), scope, h, load, p, s, job.ranksPerHost());
                        scopeRows.add(row);
                        if (load == loads.get(loads.size() - 1) && (bestScope == null || better(row, bestScope))) {
                            bestScope = row;
                        }
                    }
                }
            }
            String tree = String.format(Locale.ROOT, "%,d ranks: tree %s (%.1f µs an allreduce with collectors, %+.1f %%)",
                    job.ranks(), best.tree(), best.onNs() / 1000, best.overheadPct());
            if (bestScope == null) {
                advice.add(tree);
            } else if (ScopeModel.saturated(bestScope.prediction())) {
                advice.add(tree + String.format(Locale.ROOT, "; no scope of these keeps up with the %s: the best, %s %s,"
                        + " gathers %.1f %% (it saturates at %,d ranks); reduce on the way up (a stats or hist filter)"
                        + " or gather less often", bestScope.load(), bestScope.scope(), gather(bestScope),
                        100 * bestScope.prediction().gatherRate(), bestScope.saturationRanks()));
            } else {
                advice.add(tree + String.format(Locale.ROOT, "; scope %s %s for the %s (gather rate %.1f %%, %s)",
                        bestScope.scope(), gather(bestScope), bestScope.load(), 100 * bestScope.prediction().gatherRate(),
                        bestScope.saturationRanks() < 0
                                ? String.format(Locale.ROOT, "keeps up to %,d ranks", SEARCH_RANKS)
                                : String.format(Locale.ROOT, "saturates at %,d ranks", bestScope.saturationRanks())));
            }
        }
        return new Result(treeRows, scopeRows, advice);
    }

    private static String gather(ScopeRow row) {
        return row.helpers() == 0 ? "seq" : "par:" + row.helpers();
    }

    /** Keeps up over more ranks, then gathers more, then less CPU on the front-end. */
    private static boolean better(ScopeRow a, ScopeRow b) {
        long sa = a.saturationRanks() < 0 ? Long.MAX_VALUE : a.saturationRanks();
        long sb = b.saturationRanks() < 0 ? Long.MAX_VALUE : b.saturationRanks();
        if (sa != sb) {
            return sa > sb;
        }
        if (a.prediction().gatherRate() != b.prediction().gatherRate()) {
            return a.prediction().gatherRate() > b.prediction().gatherRate();
        }
        return a.prediction().frontEndCpuShare() < b.prediction().frontEndCpuShare();
    }

    /** Collectors on one host of the job, both trees: one per edge into each wrapper the host runs. */
    static int collectorsPerHost(Job job, TreeShape tree) {
        int hosts = Math.min(job.hosts(), 2);
        return 2 * AllreduceModel.tuplesPerCall(job.ranksPerHost() * hosts, hosts, tree)[1];
    }
}
