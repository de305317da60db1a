package org.eventspace.comm.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.testing.RankThreads;
import org.eventspace.comm.testing.TestClusters;
import org.junit.jupiter.api.Test;

class InJvmCollectivesTest {

    @Test
    void gsumOnFourHostsGivesEveryRankTheExactSum() {
        try (InJvmCluster cluster = TestClusters.start(TestClusters.spec(4, 8, 2, TreeShape.hier(2)))) {
            List<Long> sums = RankThreads.values(cluster, Duration.ofSeconds(60), comm -> {
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
