package org.eventspace.scope.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.eventspace.scope.filter.HistFilterTest.rec;

import java.util.List;

import org.junit.jupiter.api.Test;

/** A real class packet read field by field through its descriptor, as the diagram in ClassPacketLayout draws it. */
class ClassPacketLayoutTest {
    @Test
    void offsetsBuildOnEachOtherAsTheDiagramDraws() {
        assertThat(ClassPacketLayout.HEADER_LONGS).isEqualTo(4);
        assertThat(ClassPacketLayout.BINNED_CLASS_HEADER_LONGS).isEqualTo(3);
        assertThat(ClassPacketLayout.PHASE_A_CLASS_LONGS).isEqualTo(2);
        assertThat(ClassPacketLayout.BINNED_EVENT_DOUBLES).isEqualTo(StatisticsLayout.DOUBLES).isEqualTo(4);
        assertThat(ClassPacketLayout.PHASE_A_EVENT_DOUBLES).isEqualTo(2);
    }

    @Test
    void aLeafPacketReadsThroughTheDescriptor() {
        ClassFilter frontEnd = new ClassFilter(ClassScheme.ALL, 4);
        ClassFilter leaf = new ClassFilter(ClassScheme.ALL, 4);
        // Round 0: ranks 0 and 2 play {x}; round 1: rank 1 plays {x, y}. Round 1's packet bins round 0.
        Packet c1 = frontEnd.command(1, leaf.leaf(frontEnd.command(0, null),
                List.of(rec(0, "x", 0, 1.0), rec(2, "x", 0, 3.0))));
        Packet p = leaf.leaf(c1, List.of(rec(1, "x", 1, 5.0), rec(1, "y", 1, 7.0)));
        long[] longs = p.longs();
        double[] doubles = p.doubles();

        assertThat(longs[ClassPacketLayout.BINNED_ROUND_INDEX]).isEqualTo(0);
        assertThat(longs[ClassPacketLayout.RAW_WORDS_INDEX]).isEqualTo(
                PacketCodec.encodedLength(rec(0, "x", 0, 1.0)) + PacketCodec.encodedLength(rec(2, "x", 0, 3.0)));
        assertThat(longs[ClassPacketLayout.BINNED_CLASSES_INDEX]).isEqualTo(1);
        assertThat(longs[ClassPacketLayout.PHASE_A_CLASSES_INDEX]).isEqualTo(1);

        int at = ClassPacketLayout.HEADER_LONGS;
        assertThat(longs[at + ClassPacketLayout.BINNED_CLASS_ID_OFFSET]).isEqualTo(ClassFilter.classId(List.of("x")));
        assertThat(longs[at + ClassPacketLayout.BINNED_CLASS_RUNS_OFFSET]).isEqualTo(1);
        assertThat(longs[at + ClassPacketLayout.BINNED_CLASS_EVENTS_OFFSET]).isEqualTo(1);
        at += ClassPacketLayout.BINNED_CLASS_HEADER_LONGS;
        assertThat(List.of(longs[at], longs[at + 1], longs[at + 2])).as("run 0-2/2").containsExactly(0L, 2L, 2L);
        at += RankList.RUN_LONGS;
        assertThat(longs[at]).as("count of x").isEqualTo(2);
        at += 1;
        assertThat(longs[at + ClassPacketLayout.PHASE_A_CLASS_ID_OFFSET]).isEqualTo(ClassFilter.classId(List.of("x", "y")));
        assertThat(longs[at + ClassPacketLayout.PHASE_A_CLASS_EVENTS_OFFSET]).isEqualTo(2);
        at += ClassPacketLayout.PHASE_A_CLASS_LONGS;
        assertThat(PackedCounts.unpack(longs, at, longs.length, 4)).as("x's bins over [1, 3]").containsExactly(1, 0, 0, 1);

        int d = 0;
        assertThat(doubles[d + StatisticsLayout.MEAN_OFFSET]).isEqualTo(2.0);
        assertThat(doubles[d + StatisticsLayout.M2_OFFSET]).isEqualTo(2.0);
        assertThat(doubles[d + StatisticsLayout.MIN_OFFSET]).isEqualTo(1.0);
        assertThat(doubles[d + StatisticsLayout.MAX_OFFSET]).isEqualTo(3.0);
        d += ClassPacketLayout.BINNED_EVENT_DOUBLES;
        assertThat(doubles[d + ClassPacketLayout.PHASE_A_MIN_OFFSET]).as("x in round 1").isEqualTo(5.0);
        assertThat(doubles[d + ClassPacketLayout.PHASE_A_MAX_OFFSET]).isEqualTo(5.0);
        d += ClassPacketLayout.PHASE_A_EVENT_DOUBLES;
        assertThat(doubles[d + ClassPacketLayout.PHASE_A_MIN_OFFSET]).as("y in round 1").isEqualTo(7.0);
        d += ClassPacketLayout.PHASE_A_EVENT_DOUBLES;
        assertThat(d).isEqualTo(doubles.length);
        assertThat(p.records()).extracting(ScopeRecord::event).containsExactly("x", "x", "y");
    }
}
