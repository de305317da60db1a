package org.eventspace.wan;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.eventspace.comm.Comm;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.job.JobConfig;
import org.eventspace.job.JobConfigCodec;
import org.eventspace.job.JobTransport;
import org.eventspace.job.MonitoredJob;
import org.eventspace.job.RankThreads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * gsum on two emulated sites joined by a 2 ms link (examples/wan/two-sites-2ms.wan), in one JVM, with the job's
 * collectors on: the sums are right, and the calls take at least a round trip each after the first, a lower bound the
 * emulator guarantees (a message is never due before latency + size / bandwidth), not a timing measurement. The first
 * call is exempt: a rank on the root's site may start its clock after the other site's first partial result left, so
 * that call can end sooner than a round trip; every later call's remote partial leaves only once the previous result
 * has crossed.
 */
@Timeout(120)
class WanJobTest {
    private static final int CALLS = 25;
    /** 2 ms each way plus 8 bytes at 100 Mbit/s each way (0.64 µs). */
    private static final long ROUND_TRIP_NS = 2 * 2_000_000 + 2 * 640;

    @Test
    void aHostProcessGetsTheSameEmulationThroughTheJobConfiguration() {
        WanEmulation wan = WanEmulation.read(WanFileTest.examples().resolve("four-sites.wan"));
        JobConfig config = JobConfig.of(JobConfig.shortcut(8, 4, 4, TreeShape.hier(2)), JobTransport.TCP).withExtension(wan);
        JobConfig decoded = JobConfigCodec.decode(JobConfigCodec.encode(config));
        assertThat(decoded.extension()).isInstanceOf(WanEmulation.class);
        assertThat(decoded.extension().argument()).isEqualTo(wan.argument());
        assertThat(((WanEmulation) decoded.extension()).layout().links().keySet()).isEqualTo(wan.layout().links().keySet());
        assertThat(decoded.pathmap().nodes()).isEqualTo(config.pathmap().nodes());
    }

    @Test
    void gsumOnTwoSitesGivesCorrectSumsAndTakesAtLeastTheRoundTripPerCallAfterTheFirst() {
        WanEmulation wan = WanEmulation.read(WanFileTest.examples().resolve("two-sites-2ms.wan"));
        JobConfig config = JobConfig.of(JobConfig.shortcut(4, 2, 2, TreeShape.hier(2)), JobTransport.JVM)
                .withExtension(wan);
        try (MonitoredJob job = MonitoredJob.inJvm(config)) {
            assertThat(job.pathmap().nodes()).anyMatch(n -> n.kind().equals(WanPlacement.LONGCUT));
            List<RankThreads.Outcome<long[]>> outcomes = job.runRanks(rank -> {
                Comm comm = job.comm(rank);
                long wrong = 0;
                long start = System.nanoTime();
                for (int i = 0; i < CALLS; i++) {
                    if (comm.allreduce(rank + 1L + i, ReduceOp.SUM) != 1 + 2 + 3 + 4 + 4L * i) {
                        wrong++;
                    }
                }
                return new long[] {wrong, System.nanoTime() - start};
            }, Duration.ofSeconds(60));
            assertThat(outcomes).allMatch(RankThreads.Outcome::ok);
            for (RankThreads.Outcome<long[]> o : outcomes) {
                assertThat(o.value()[0]).as("wrong sums of rank " + o.rank()).isZero();
                assertThat(o.value()[1]).as("ns for %d calls of rank %d", CALLS, o.rank())
                        .isGreaterThanOrEqualTo((CALLS - 1) * ROUND_TRIP_NS);
            }
            WanEmulation.Running running = (WanEmulation.Running) job.extension().orElseThrow();
            List<GatewayScheduler.Stats> gateways = running.stats();
            assertThat(gateways).hasSize(2);
            // Every call crosses once each way: one release at each gateway per call of the east site's join.
            assertThat(gateways).allSatisfy(g -> assertThat(g.released()).isEqualTo(CALLS));
        }
    }
}
