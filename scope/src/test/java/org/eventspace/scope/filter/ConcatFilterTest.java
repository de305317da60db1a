package org.eventspace.scope.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.eventspace.scope.filter.HistFilterTest.rec;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

import org.junit.jupiter.api.Test;

class ConcatFilterTest {
    @Property(tries = 100)
    void rootHoldsEveryRecordInLeafOrderThenChildOrder(@ForAll long seed,
                                                       @ForAll @IntRange(min = 1, max = 30) int ranks,
                                                       @ForAll @IntRange(min = 1, max = 10) int hosts) {
        Random random = new Random(seed);
        Workload workload = Workload.random(random, ranks, hosts, 2);
        ScopeTreeSimulator tree = ScopeTreeSimulator.random(hosts, new FilterSpec.Concat(), random);

        for (int r = 0; r < 2; r++) {
            int round = r;
            FilterResult result = tree.round(round, host -> workload.recordsOf(round, host));

            assertThat(tree.lastRoot().records()).isEqualTo(workload.inTreeOrder(r));
            assertThat(((ConcatResult) result).records()).isEqualTo(workload.rounds().get(r).size());
            assertThat(result.round()).isEqualTo(r);
        }
    }

    @Test
    void resultAlwaysCountsEveryRecordButListsAtMostTheLimit() {
        ConcatFilter filter = new ConcatFilter();
        Packet command = filter.command(3, null);
        List<ScopeRecord> records = new ArrayList<>();
        for (int i = 0; i < ConcatFilter.LISTING_LIMIT + 500; i++) {
            records.add(rec(i, "MPI_Send()", 3, i));
        }

        ConcatResult result = filter.result(filter.up(command, List.of(filter.leaf(command, records))));

        assertThat(result.records()).isEqualTo(ConcatFilter.LISTING_LIMIT + 500);
        assertThat(result.listing()).hasSize(ConcatFilter.LISTING_LIMIT)
                .first().isEqualTo(rec(0, "MPI_Send()", 3, 0.0));
        assertThat(result.listingTruncated()).isTrue();
        assertThat(filter.result(filter.leaf(command, records.subList(0, 2))).listingTruncated()).isFalse();
    }
}
