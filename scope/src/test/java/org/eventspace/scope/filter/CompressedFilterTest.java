package org.eventspace.scope.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;

import org.eventspace.scope.ResultBoard;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * A compressed filter over a two-level tree (front-end, root gather, two leaves) gives the inner filter's results
 * exactly, and a lost answer costs one failed round and a resync, never a wrong result.
 */
class CompressedFilterTest {
    private static List<ScopeRecord> set(int host, long version, int records, double base) {
        List<ScopeRecord> out = new ArrayList<>();
        out.add(new ScopeRecord(-1, ResultBoard.HEADER, version, host));
        for (int i = 0; i < records; i++) {
            out.add(new ScopeRecord(-1, "stats/gred" + i + "/up.mean", version, base + (i % 5)));
        }
        return out;
    }

    /** One scope of a front-end, a root gather and two leaves, every node with its own instance. */
    private static final class Tree {
        final ScopeFilter frontEnd;
        final ScopeFilter root;
        final ScopeFilter[] leaves;

        Tree(FilterSpec spec) {
            frontEnd = spec.newInstance();
            root = spec.newInstance();
            leaves = new ScopeFilter[] {spec.newInstance(), spec.newInstance()};
        }

        FilterResult pull(long round, Packet previous, List<List<ScopeRecord>> records) {
            Packet command = frontEnd.command(round, previous);
            Packet down = root.down(command);
            List<Packet> ups = new ArrayList<>();
            for (int i = 0; i < leaves.length; i++) {
                ups.add(leaves[i].leaf(down, records.get(i)));
            }
            return frontEnd.result(root.up(command, ups));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"none/newest", "deflate/newest", "cbc", "cbc:16:16/newest", "cbc+deflate/newest",
            "cbc/stats", "cbc:32/concat"})
    void givesTheInnerFiltersResultsExactly(String text) {
        FilterSpec spec = FilterSpec.parse(text);
        FilterSpec plain = ((FilterSpec.Compressed) spec).inner();
        Tree compressed = new Tree(spec);
        Tree reference = new Tree(plain);
        for (long round = 1; round <= 30; round++) {
            List<List<ScopeRecord>> records = List.of(set(1, round, 40, round % 3), set(2, round, 25, 7));
            FilterResult got = compressed.pull(round, round == 1 ? null : Packet.of(0, 0), records);
            FilterResult want = reference.pull(round, null, records);
            assertThat(got).usingRecursiveComparison().isEqualTo(want);
        }
        assertThat(((CompressedFilter) compressed.leaves[0]).stats().packetsEncoded).isEqualTo(30);
    }

    @Test
    void aLostAnswerFailsOneRoundNamingTheChildThenTheResyncRestoresExactResults() {
        FilterSpec spec = FilterSpec.parse("cbc:16:16/newest");
        Tree tree = new Tree(spec);
        tree.pull(1, null, List.of(set(1, 1, 30, 0), set(2, 1, 30, 1)));
        // Round 2's answer of leaf 1 is lost on the way (a timed-out child): its encoder moved on.
        tree.leaves[1].leaf(tree.root.down(tree.frontEnd.command(2, null)), set(2, 2, 30, 1));

        assertThatThrownBy(() -> tree.pull(3, null, List.of(set(1, 3, 30, 0), set(2, 3, 30, 1))))
                .isInstanceOf(ResyncNeeded.class).hasMessageContaining("child 1").hasMessageContaining("lost");
        NewestResult after = (NewestResult) tree.pull(4, null, List.of(set(1, 4, 30, 0), set(2, 4, 30, 2)));

        assertThat(after.round()).isEqualTo(4);
        NewestResult want = (NewestResult) new Tree(FilterSpec.parse("newest")).pull(4, null,
                List.of(set(1, 4, 30, 0), set(2, 4, 30, 2)));
        assertThat(after).usingRecursiveComparison().isEqualTo(want);
        assertThat(((CompressedFilter) tree.root).stats().resyncs).isEqualTo(1);
    }

    @Test
    void parsesCodecAndFilterAndNamesWhatIsWrong() {
        assertThat(FilterSpec.parse("cbc")).isEqualTo(new FilterSpec.Compressed(
                new EdgeCodec(EdgeCodec.Kind.CBC, 64, 4096), new FilterSpec.Newest()));
        assertThat(FilterSpec.parse("cbc").text()).isEqualTo("cbc:64:4096:columns/newest");
        assertThat(FilterSpec.parse("cbc:128/stats").text()).isEqualTo("cbc:128:4096:columns/stats");
        assertThat(FilterSpec.parse("cbc:128:64:rows/stats").text()).isEqualTo("cbc:128:64:rows/stats");
        assertThatThrownBy(() -> FilterSpec.parse("cbc:64:64:diagonal")).hasMessageContaining("expected SEG rows or columns");
        assertThat(FilterSpec.parse("deflate/hist:8").newInstance().name()).isEqualTo("deflate/hist:8");
        assertThat(FilterSpec.parse(FilterSpec.parse("cbc+deflate:32:64/class:a/b").text()))
                .isEqualTo(FilterSpec.parse("cbc+deflate:32:64/class:a/b"));
        assertThat(FilterSpec.parse("class:a/b")).isInstanceOf(FilterSpec.Classify.class);
        assertThatThrownBy(() -> FilterSpec.parse("cbc:48")).hasMessageContaining("power of two");
        assertThatThrownBy(() -> FilterSpec.parse("deflate:3/newest")).hasMessageContaining("deflate with no argument");
        assertThatThrownBy(() -> FilterSpec.parse("cbc/deflate/newest")).hasMessageContaining("one codec");
        assertThatThrownBy(() -> FilterSpec.parse("cbc:64:8")).hasMessageContaining("cache must be 16..");
    }
}
