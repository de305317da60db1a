package org.eventspace.comm.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.eventspace.comm.Comm;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.Topology;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.transport.jvm.InJvmCluster;
import org.junit.jupiter.api.Test;

class InJvmCollectivesTest {

    static <T> List<T> runRanks(InJvmCluster cluster, Function<Comm, T> body) throws Exception {
        int ranks = cluster.pathmap().spec().ranks();
        ExecutorService pool = Executors.newFixedThreadPool(ranks);
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (int r = 0; r < ranks; r++) {
                Comm comm = cluster.comm(r);
                futures.add(pool.submit(() -> body.apply(comm)));
            }
            List<T> results = new ArrayList<>();
            for (Future<T> f : futures) {
                results.add(f.get(60, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    static InJvmCluster cluster(int ranks, int hosts, TreeShape shape) {
        Pathmap pathmap = PathmapBuilder.build(PathmapSpec.of(Topology.simulated(1, hosts, 2), ranks, 2, shape));
        return InJvmCluster.start(pathmap, CommOptions.defaults(ranks + hosts));
    }

    @Test
    void gsumOnFourHostsGivesEveryRankTheExactSum() throws Exception {
        try (InJvmCluster cluster = cluster(8, 4, TreeShape.hier(2))) {
            List<Long> sums = runRanks(cluster, comm -> {
                long last = 0;
                for (int i = 0; i < 2_000; i++) {
                    last = comm.allreduce((long) comm.rank() + i, ReduceOp.SUM);
                    if (last != 28 + 8L * i) {
                        return -1L;
                    }
                }
                return last;
            });
            assertThat(sums).containsOnly(28 + 8L * 1_999);
        }
    }
}
