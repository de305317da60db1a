package org.eventspace.sim;

import org.eventspace.comm.pathmap.TreeShape;

/**
 * An allreduce on a cluster of identical hosts, each its own machine: the whole job event by event while that stays
 * small, and in two parts beyond that.
 *
 * <p>On a cluster no host shares a core with another, and every host runs the same ranks through the same local greds,
 * so what happens inside one host is the same on all of them: its ranks' join and release ({@code local}, one host
 * simulated alone with its ranks and cores) and the tree between the hosts ({@code between}, every host simulated with
 * one rank over the network) add up, less the one gred and core store the two simulations both count. Beyond
 * {@link #WHOLE_LIMIT} ranks the model uses the two parts; {@code ClusterModelTest} checks them against the whole
 * simulation where both run. A job of 10⁶ ranks is then 31 250 simulated ranks instead of 10⁶. The parts leave out
 * the CPU an inner host's hop service threads take from its ranks (up to K − 1 of them in {@code hier:K}), so they err
 * low where a tree has such threads: by 18–23 % at 2 048 ranks in {@code hier:8} (with two calibrations of the
 * reference machine), not at all for the butterfly.
 */
public final class ClusterModel {
    /** Ranks up to which the whole job is simulated event by event. */
    public static final int WHOLE_LIMIT = 16_384;

    /**
     * A prediction.
     *
     * @param latencyNs   mean allreduce latency.
     * @param localNs     what the ranks of one host take (join and release, core store included) on their own.
     * @param betweenNs   what the tree between hosts takes with one rank a host.
     * @param whole       whether the job was simulated whole (else in the two parts).
     */
    public record Prediction(double latencyNs, double localNs, double betweenNs, boolean whole) {
    }

    private ClusterModel() {
    }

    /**
     * {@code ranks} ranks, {@code ranksPerHost} on each host of {@code coresPerHost} cores, over TCP between hosts.
     * {@code iterations} allreduces of which {@code warmup} untimed (the two parts use as many).
     */
    public static Prediction predict(Costs costs, int ranks, int ranksPerHost, int coresPerHost, TreeShape shape,
                                     boolean collectors, int iterations, int warmup) {
        if (ranksPerHost < 1 || ranks < ranksPerHost || ranks % ranksPerHost != 0) {
            throw new IllegalArgumentException("ranks must be a multiple of ranksPerHost >= 1, ranks=" + ranks
                    + ", ranksPerHost=" + ranksPerHost);
        }
        int hosts = ranks / ranksPerHost;
        if (ranks <= WHOLE_LIMIT) {
            AllreduceModel.Result r = AllreduceModel.run(costs, new AllreduceModel.Config(ranks, hosts, shape, 2,
                    hosts == 1 ? AllreduceModel.Transport.JVM : AllreduceModel.Transport.TCP, collectors, hosts,
                    coresPerHost, iterations, warmup));
            return new Prediction(r.latencyNs(), Double.NaN, Double.NaN, true);
        }
        double local = AllreduceModel.run(costs, new AllreduceModel.Config(ranksPerHost, 1, shape, 2,
                AllreduceModel.Transport.JVM, collectors, 1, coresPerHost, iterations, warmup)).latencyNs();
        double between = AllreduceModel.run(costs, new AllreduceModel.Config(hosts, hosts, shape, 2,
                AllreduceModel.Transport.TCP, collectors, hosts, coresPerHost, iterations, warmup)).latencyNs();
        // Both parts count a gred of one rank and the core store (with its collectors) once: the sum counts them twice.
        double once = costs.joinNs() + costs.coreNs() + (collectors ? 2 * costs.collectorNs() : 0);
        return new Prediction(Math.max(0, local + between - once), local, between, false);
    }
}
