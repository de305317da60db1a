package org.eventspace.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

/**
 * A merged trace's delta-time statistics are those of all its samples (Ratn et al. §3.1, with Chan et al.'s pairwise
 * merge): merging the statistics of any split equals adding every sample to one, in count, mean and sd (within
 * rounding) and exactly in the extremes and the ranks that had them, ties to the lower rank.
 */
class TimeStatsProperties {
    @Property(tries = 300)
    void mergeEqualsSequentialAdds(@ForAll @Size(max = 300) List<@LongRange(min = 0, max = 1_000_000_000L) Long> deltas,
                                   @ForAll @IntRange(min = 1, max = 8) int parts,
                                   @ForAll @IntRange(min = 1, max = 16) int ranks) {
        TimeStats sequential = new TimeStats();
        TimeStats[] partial = new TimeStats[parts];
        for (int p = 0; p < parts; p++) {
            partial[p] = new TimeStats();
        }
        for (int i = 0; i < deltas.size(); i++) {
            int rank = i % ranks;
            sequential.add(deltas.get(i), rank);
            partial[(i * 31 + rank) % parts].add(deltas.get(i), rank);
        }
        TimeStats merged = new TimeStats();
        for (int p = parts - 1; p >= 0; p--) {
            merged.merge(partial[p]);
        }
        assertThat(merged.count()).isEqualTo(sequential.count());
        assertThat(merged.min()).isEqualTo(sequential.min());
        assertThat(merged.max()).isEqualTo(sequential.max());
        assertThat(merged.minRank()).isEqualTo(sequential.minRank());
        assertThat(merged.maxRank()).isEqualTo(sequential.maxRank());
        assertThat(merged.mean()).isCloseTo(sequential.mean(), within(1e-6));
        assertThat(merged.sd()).isCloseTo(sequential.sd(), within(1e-6));
    }

    @Property(tries = 100)
    void whatTheFileStatesReadsBack(@ForAll @Size(min = 2, max = 100) List<@LongRange(min = 0, max = 1_000_000L) Long> deltas) {
        TimeStats s = new TimeStats();
        for (int i = 0; i < deltas.size(); i++) {
            s.add(deltas.get(i), i);
        }
        TimeStats read = TimeStats.of(s.count(), s.mean(), s.sd(), s.min(), s.minRank(), s.max(), s.maxRank());
        assertThat(read.count()).isEqualTo(s.count());
        assertThat(read.mean()).isEqualTo(s.mean());
        assertThat(read.sd()).isCloseTo(s.sd(), within(1e-6 * (1 + s.sd())));
        assertThat(read.minRank()).isEqualTo(s.minRank());
        assertThat(read.maxRank()).isEqualTo(s.maxRank());
    }
}
