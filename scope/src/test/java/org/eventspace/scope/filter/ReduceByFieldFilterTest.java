package org.eventspace.scope.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.eventspace.scope.filter.HistFilterTest.rec;

import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

import org.junit.jupiter.api.Test;

class ReduceByFieldFilterTest {
    @Property(tries = 200)
    void keepsPerEventTheRecordACentralScanKeeps(@ForAll long seed,
                                                 @ForAll @IntRange(min = 1, max = 30) int ranks,
                                                 @ForAll @IntRange(min = 1, max = 10) int hosts,
                                                 @ForAll ReduceByFieldFilter.Extreme extreme,
                                                 @ForAll ReduceByFieldFilter.Field field) {
        Random random = new Random(seed);
        Workload workload = Workload.random(random, ranks, hosts, 2);
        FilterSpec spec = new FilterSpec.ReduceByField(extreme, field);
        ScopeTreeSimulator tree = ScopeTreeSimulator.random(hosts, spec, random);

        for (int r = 0; r < 2; r++) {
            int round = r;
            tree.round(round, host -> workload.recordsOf(round, host));

            // Central: scan in tree order, keep a record only if strictly better, so ties keep the earlier.
            TreeMap<String, ScopeRecord> kept = new TreeMap<>();
            for (ScopeRecord x : workload.inTreeOrder(r)) {
                kept.merge(x.event(), x, (held, next) -> {
                    int c = field.compare(next, held);
                    return (extreme == ReduceByFieldFilter.Extreme.MAX ? c > 0 : c < 0) ? next : held;
                });
            }
            assertThat(tree.lastRoot().records()).containsExactlyElementsOf(kept.values());
        }
    }

    /** EventSpace's load-balance scope: per gred the last arrival, i.e. the largest down timestamp. */
    @Test
    void loadBalanceKeepsTheLastArrivalPerGred() {
        ScopeTreeSimulator tree = ScopeTreeSimulator.kary(4, 2, FilterSpec.parse("max:value"));
        List<List<ScopeRecord>> byHost = List.of(
                List.of(rec(0, "t0.gred.h0.0 down", 7, 1_000), rec(1, "t0.gred.h0.0 down", 7, 1_450)),
                List.of(rec(2, "t0.gred.h0.0 down", 7, 1_200), rec(2, "t0.gred.h1.0 down", 7, 900)),
                List.of(rec(4, "t0.gred.h1.0 down", 7, 1_700)),
                List.of(rec(6, "t0.gred.h1.0 down", 7, 1_700))); // a tie: the earlier (rank 4) stays

        FilterResult result = tree.round(7, byHost::get);

        assertThat(result).isEqualTo(new ExtremeResult(7, ReduceByFieldFilter.Extreme.MAX,
                ReduceByFieldFilter.Field.VALUE, new TreeMap<>(Map.of(
                        "t0.gred.h0.0 down", rec(1, "t0.gred.h0.0 down", 7, 1450.0),
                        "t0.gred.h1.0 down", rec(4, "t0.gred.h1.0 down", 7, 1700.0)))));
    }

    @Test
    void minByRankKeepsTheLowestRankPerEvent() {
        ReduceByFieldFilter filter = new ReduceByFieldFilter(ReduceByFieldFilter.Extreme.MIN,
                ReduceByFieldFilter.Field.RANK);
        Packet command = filter.command(0, null);

        Packet root = filter.up(command, List.of(filter.leaf(command, List.of(rec(5, "x", 0, 1), rec(3, "x", 0, 2))),
                filter.leaf(command, List.of(rec(4, "x", 0, 0), rec(9, "y", 0, 0)))));

        assertThat(root.records()).containsExactly(rec(3, "x", 0, 2), rec(9, "y", 0, 0));
        assertThat(filter.name()).isEqualTo("min:rank");
    }
}
