package org.eventspace.mpi;

import static org.assertj.core.api.Assertions.assertThat;

import org.eventspace.monitor.model.Verdict;
import org.junit.jupiter.api.Test;

/**
 * One huge wait a rank caused names it, though the statistical rule's median lateness ignores it: the verdict and the
 * caused-wait figures agree. Instances of MPI_COMM_WORLD fed by hand: no MPI, no clock.
 */
class MpiModelStallTest {
    private static final long US = 1_000;

    /** 300 instances of 3 ranks, rank 2 last by 5 µs at each; at {@code stallAt}, rank 1 enters {@code stallNs} late. */
    private static CollectiveWaits run(int stallAt, long stallNs) {
        CollectiveWaits c = new CollectiveWaits(3);
        long t = 0;
        for (int i = 0; i < 300; i++) {
            long late1 = i == stallAt ? stallNs : 0;
            long exit = t + Math.max(5 * US, late1) + US;
            c.arrive(MpiTuple.COMM_WORLD_ID, i, 0, t, exit);
            c.arrive(MpiTuple.COMM_WORLD_ID, i, 1, t + late1, exit);
            c.arrive(MpiTuple.COMM_WORLD_ID, i, 2, t + 5 * US, exit);
            t = exit + 10 * US;
        }
        return c;
    }

    @Test
    void aRankThatCausedOneHugeWaitIsNamedWithTheMeasurement() {
        CollectiveWaits c = run(150, 30_000_000_000L);
        Verdict.SlowestRank judged = c.verdict();
        assertThat(judged.culprit()).as("the median lateness does not weigh one stall").isNotEqualTo(1);

        Verdict.SlowestRank v = MpiModel.causedFarTheMost(judged, c, 33.0);
        assertThat(v.culprit()).isEqualTo(1);
        assertThat(v.rank()).isEqualTo(1);
        assertThat(v.words()).startsWith("rank 1 caused far the largest wait at collectives: 60.0 s")
                .contains("60.0 s at one instance").contains("measured, not a statistical guess");
    }

    @Test
    void withoutOneHugeWaitTheRuleStands() {
        CollectiveWaits c = run(-1, 0);
        Verdict.SlowestRank judged = c.verdict();
        assertThat(MpiModel.causedFarTheMost(judged, c, 0.01)).isSameAs(judged);
        // a wait below the bound at one instance is the rule's to judge
        CollectiveWaits shortStall = run(150, MpiModel.STALL_WAIT_NS / 4);
        Verdict.SlowestRank rule = shortStall.verdict();
        assertThat(MpiModel.causedFarTheMost(rule, shortStall, 3.0)).isSameAs(rule);
    }
}
