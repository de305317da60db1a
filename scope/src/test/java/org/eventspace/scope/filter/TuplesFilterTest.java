package org.eventspace.scope.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

import org.junit.jupiter.api.Test;

class TuplesFilterTest {
    private final TuplesFilter filter = new TuplesFilter();

    /** A tuple as a leaf hands it over: two records. */
    private static List<ScopeRecord> tuple(String collector, int op, long sequence, long down, long up) {
        return List.of(new ScopeRecord(op, collector + TuplesFilter.DOWN, sequence, down),
                new ScopeRecord(op, collector + TuplesFilter.UP, sequence, up));
    }

    @Test
    void everyTupleArrivesWholeWithItsCollectorAcrossChildren() {
        Packet command = filter.command(7, null);
        List<ScopeRecord> a = new ArrayList<>();
        a.addAll(tuple("t0.ec.h0.1", 3, 10, 1_000, 1_500));
        a.addAll(tuple("t0.ec.h0.2", 3 | TuplesFilter.FAILED, 11, 2_000, 2_600));
        a.addAll(tuple("t0.ec.h0.1", 4, 12, 3_000, 3_100));
        List<ScopeRecord> b = new ArrayList<>(tuple("t0.ec.h1.0", 5, 99, 9_000_000_000_123L, 9_000_000_000_456L));

        Packet root = filter.up(command, List.of(filter.leaf(command, a), filter.leaf(command, b)));
        TuplesResult result = filter.result(root);

        assertThat(result.round()).isEqualTo(7);
        assertThat(result.size()).isEqualTo(4);
        assertThat(result.names()).containsExactly("t0.ec.h0.1", "t0.ec.h0.2", "t0.ec.h1.0");
        assertThat(result.names().get(result.collector(0))).isEqualTo("t0.ec.h0.1");
        assertThat(result.names().get(result.collector(1))).isEqualTo("t0.ec.h0.2");
        assertThat(result.names().get(result.collector(2))).isEqualTo("t0.ec.h0.1");
        assertThat(result.names().get(result.collector(3))).as("the second child's index is shifted").isEqualTo("t0.ec.h1.0");
        assertThat(result.failed(1)).isTrue();
        assertThat(result.failed(0)).isFalse();
        assertThat(result.op(1)).isEqualTo(3);
        assertThat(result.sequence(3)).isEqualTo(99);
        assertThat(result.downNs(3)).isEqualTo(9_000_000_000_123L);
        assertThat(result.upNs(3)).isEqualTo(9_000_000_000_456L);
    }

    /** Packed, a tuple takes far less than its two records did, with the same content. */
    @Test
    void aPackedTupleTakesLessThanHalfOfItsRecords() {
        Packet command = filter.command(1, null);
        List<ScopeRecord> records = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            records.addAll(tuple("t0.ec.h0." + (i % 4), 3, i, i * 10L, i * 10L + 5));
        }
        Packet packed = filter.leaf(command, records);
        int asRecords = PacketCodec.encodedLength(Packet.ofRecords(TuplesFilter.TUPLES, 1, records));
        assertThat(PacketCodec.encodedLength(packed) * 2).isLessThan(asRecords);
        // and it survives the wire
        long[] words = PacketCodec.encode(packed);
        Packet decoded = PacketCodec.decode(words, words.length);
        assertThat(filter.result(decoded).size()).isEqualTo(1000);
        assertThat(filter.result(decoded).upNs(999)).isEqualTo(9995);
    }

    @Property(tries = 50)
    void anyTreeShapeKeepsEveryTupleInLeafThenChildOrder(@ForAll @Size(min = 1, max = 6) List<@IntRange(min = 0, max = 20) Integer> perLeaf,
                                                         @ForAll @IntRange(min = 1, max = 3) int collectorsPerLeaf) {
        Packet command = filter.command(2, null);
        List<Packet> leaves = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        long seq = 0;
        for (int leaf = 0; leaf < perLeaf.size(); leaf++) {
            List<ScopeRecord> records = new ArrayList<>();
            for (int t = 0; t < perLeaf.get(leaf); t++) {
                String collector = "c" + leaf + "." + (t % collectorsPerLeaf);
                records.addAll(tuple(collector, 1, seq++, 0, 1));
                expected.add(collector);
            }
            leaves.add(filter.leaf(command, records));
        }
        // two levels: pairs of leaves, then the pairs
        List<Packet> pairs = new ArrayList<>();
        for (int i = 0; i < leaves.size(); i += 2) {
            pairs.add(filter.up(command, leaves.subList(i, Math.min(i + 2, leaves.size()))));
        }
        TuplesResult result = filter.result(filter.up(command, pairs));
        List<String> got = new ArrayList<>();
        for (int i = 0; i < result.size(); i++) {
            got.add(result.names().get(result.collector(i)));
            assertThat(result.sequence(i)).isEqualTo(i);
        }
        assertThat(got).isEqualTo(expected);
    }

    @Test
    void aRecordThatIsNotATuplesFirstIsRefusedNamingIt() {
        Packet command = filter.command(1, null);
        List<ScopeRecord> bad = List.of(new ScopeRecord(1, "t0.ec.h0.1<", 0, 0), new ScopeRecord(1, "t0.ec.h0.1>", 0, 0));
        assertThatThrownBy(() -> filter.leaf(command, bad)).hasMessageContaining("t0.ec.h0.1<")
                .hasMessageContaining("first record");
    }
}
