package org.eventspace.wan.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.eventspace.comm.Comm;
import org.eventspace.comm.path.Condition;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.job.JobConfig;
import org.eventspace.job.JobTransport;
import org.eventspace.job.MonitoredJob;
import org.eventspace.job.RankThreads;

/**
 * MagPIe and conditional multi-cluster trees over random cluster counts and sizes, in one JVM without WAN delays:
 * every rank gets the exact sum of every allreduce (longs, so the order of the joins cannot hide an error), a barrier
 * and a broadcast go through the all-to-all too, and every conditional call answers what the plain sum says.
 */
class MultiClusterJobProperties {
    private static final int CALLS = 30;

    @Property(tries = 12)
    void everyRankGetsTheExactSum(@ForAll @IntRange(min = 2, max = 4) int clusters,
                                  @ForAll @IntRange(min = 1, max = 2) int hostsPerCluster,
                                  @ForAll @IntRange(min = 1, max = 3) int ranksPerHost,
                                  @ForAll @IntRange(min = 2, max = 3) int fanout,
                                  @ForAll boolean conditional) {
        int hosts = clusters * hostsPerCluster;
        int ranks = hosts * ranksPerHost;
        double constant = ranks * 2.5;
        MultiClusterLayer layer = conditional
                ? new MultiClusterLayer(ClusterAllreduce.CONDITIONAL, Condition.GREATER, constant, null)
                : new MultiClusterLayer(ClusterAllreduce.MAGPIE, null, 0, null);
        JobConfig config = JobConfig.of(JobConfig.shortcut(ranks, hosts, clusters, TreeShape.hier(fanout)),
                JobTransport.JVM).withExtension(layer);
        try (MonitoredJob job = MonitoredJob.inJvm(config)) {
            assertThat(job.pathmap().nodes()).noneMatch(n -> n.kind().equals(PathmapBuilder.GRED)
                    && n.tree() == 0 && spansClusters(job, n.id()));
            List<RankThreads.Outcome<Long>> outcomes = job.runRanks(rank -> {
                Comm comm = job.comm(rank);
                long wrong = 0;
                long[] data = new long[3];
                for (int i = 0; i < CALLS; i++) {
                    long expected = (long) ranks * (ranks + 1) / 2 + (long) ranks * i;
                    if (comm.allreduce(rank + 1L + i, ReduceOp.SUM) != expected) {
                        wrong++;
                    }
                    // Values 0..5 around the constant: some calls decided locally, some by the full exchange.
                    double v = (rank * 7 + i * 3) % 6;
                    double sum = 0;
                    for (int r = 0; r < ranks; r++) {
                        sum += (r * 7 + i * 3) % 6;
                    }
                    if (comm.allreduceUntil(v, ReduceOp.SUM, Condition.GREATER, constant) != (sum > constant)) {
                        wrong++;
                    }
                    comm.barrier();
                    data[0] = rank == i % ranks ? 40 + i : 0;
                    comm.broadcast(data, 1, i % ranks);
                    if (data[0] != 40 + i) {
                        wrong++;
                    }
                }
                return wrong;
            }, Duration.ofSeconds(60));
            assertThat(outcomes).allMatch(RankThreads.Outcome::ok);
            assertThat(outcomes).allSatisfy(o -> assertThat(o.value()).as("wrong results of rank " + o.rank()).isZero());
        }
    }

    private static boolean spansClusters(MonitoredJob job, int node) {
        var spec = job.pathmap().spec();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (var e : job.pathmap().entries()) {
            for (int id = e.node(); id >= 0; id = job.pathmap().node(id).parent()) {
                if (id == node) {
                    seen.add(spec.topology().host(spec.hostOf(e.rank())).cluster());
                }
            }
        }
        return seen.size() > 1;
    }
}
