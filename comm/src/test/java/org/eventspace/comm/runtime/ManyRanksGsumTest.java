package org.eventspace.comm.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.testing.RankThreads;
import org.eventspace.comm.testing.TestClusters;
import org.junit.jupiter.api.Test;

/**
 * The project's bar: 256 ranks as threads on 16 simulated hosts complete gsum correctly. Two trees, as gsum
 * alternates between them; hier:4 joins the 16 ranks of a host four at a time, then the hosts four at a time.
 * Far more threads than cores, so {@code CommOptions.defaults} picks the park-heavy wait policy.
 */
class ManyRanksGsumTest {
    private static final int RANKS = 256;
    private static final int HOSTS = 16;
    private static final int ITERATIONS = 500;

    @Test
    void twoHundredFiftySixRanksOnSixteenHostsCompleteGsumExactly() {
        PathmapSpec spec = TestClusters.spec(HOSTS, RANKS, 2, TreeShape.hier(4));
        long start = System.nanoTime();
        try (InJvmCluster cluster = TestClusters.start(spec)) {
            List<Long> wrong = RankThreads.values(cluster, Duration.ofSeconds(120), comm -> {
                long bad = 0;
                for (int i = 0; i < ITERATIONS; i++) {
                    // Sum over r of (r * i + 1) = i * 256*255/2 + 256.
                    long sum = comm.allreduce((long) comm.rank() * i + 1, ReduceOp.SUM);
                    if (sum != (long) i * RANKS * (RANKS - 1) / 2 + RANKS) {
                        bad++;
                    }
                }
                return bad;
            });
            assertThat(wrong).hasSize(RANKS).containsOnly(0L);
        }
        System.out.printf("256 ranks on 16 hosts: %d gsum iterations in %d ms%n", ITERATIONS,
                (System.nanoTime() - start) / 1_000_000);
    }
}
