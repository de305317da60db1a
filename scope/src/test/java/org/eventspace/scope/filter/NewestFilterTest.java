package org.eventspace.scope.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.eventspace.scope.ResultBoard;
import org.junit.jupiter.api.Test;

/** {@code newest}: result sets of many hosts up a scope; the front-end keeps every host's newest. */
class NewestFilterTest {
    private static List<ScopeRecord> set(long... values) {
        return java.util.Arrays.stream(values).mapToObj(v -> new ScopeRecord(-1, "/x/[" + v + "]", 0, v)).toList();
    }

    @Test
    void aBoardNumbersItsSetsAndHeadsThemWithItsHost() {
        ResultBoard board = new ResultBoard(3);
        assertThat(board.newest().version()).isZero();
        assertThat(board.newest().records()).isEmpty();
        assertThat(board.publish(set(1, 2))).isEqualTo(1);
        assertThat(board.publish(set(5))).isEqualTo(2);
        ResultBoard.Published p = board.newest();
        assertThat(p.version()).isEqualTo(2);
        assertThat(p.records()).hasSize(2);
        assertThat(p.records().get(0)).isEqualTo(new ScopeRecord(-1, ResultBoard.HEADER, 2, 3));
        assertThat(p.records().get(1).value()).isEqualTo(5);
    }

    @Test
    void theFrontEndKeepsEveryHostsNewestSetAcrossRounds() {
        FilterSpec spec = FilterSpec.parse("newest");
        assertThat(spec.text()).isEqualTo("newest");
        ScopeFilter leaf0 = spec.newInstance();
        ScopeFilter leaf1 = spec.newInstance();
        NewestFilter root = (NewestFilter) spec.newInstance();
        assertThat(root.readsResults()).isTrue();
        assertThat(FilterSpec.parse("concat").newInstance().readsResults()).isFalse();
        ResultBoard h0 = new ResultBoard(0);
        ResultBoard h1 = new ResultBoard(1);
        h0.publish(set(10));
        h1.publish(set(20, 21));

        Packet pull = root.command(0, null);
        Packet up = root.up(pull, List.of(leaf0.leaf(pull, h0.newest().records()), leaf1.leaf(pull, h1.newest().records())));
        NewestResult first = root.result(up);
        assertThat(first.records()).containsOnlyKeys(0, 1);
        assertThat(first.records().get(1)).extracting(ScopeRecord::value).containsExactly(20.0, 21.0);

        // Round 1: only host 0 has something new; host 1's newest set stays in the result.
        h0.publish(set(11));
        pull = root.command(1, up);
        up = root.up(pull, List.of(leaf0.leaf(pull, h0.newest().records()), leaf1.leaf(pull, List.of())));
        NewestResult second = root.result(up);
        assertThat(second.round()).isEqualTo(1);
        assertThat(second.sets().get(0).version()).isEqualTo(2);
        assertThat(second.records().get(0)).extracting(ScopeRecord::value).containsExactly(11.0);
        assertThat(second.records().get(1)).extracting(ScopeRecord::value).containsExactly(20.0, 21.0);
        assertThat(first.records().get(0)).as("an earlier result is a value").extracting(ScopeRecord::value).containsExactly(10.0);

        // An older set arriving late does not replace a newer one.
        pull = root.command(2, up);
        NewestResult third = root.result(root.up(pull, List.of(leaf0.leaf(pull, List.of(
                new ScopeRecord(-1, ResultBoard.HEADER, 1, 0), new ScopeRecord(-1, "/x/[0]", 1, 99))))));
        assertThat(third.records().get(0)).extracting(ScopeRecord::value).containsExactly(11.0);
    }

    @Test
    void aSetWhoseNamesDidNotChangeTravelsAsValuesAndArrivesNamed() {
        NewestFilter root = (NewestFilter) FilterSpec.parse("newest").newInstance();
        ResultBoard board = new ResultBoard(2);
        board.publish(set(1, 2, 3));
        ResultBoard.Published first = board.newest();
        board.publish(List.of(new ScopeRecord(-1, "/x/[1]", 0, 7), new ScopeRecord(-1, "/x/[2]", 0, 8),
                new ScopeRecord(-1, "/x/[3]", 0, 9)));
        ResultBoard.Published second = board.newest();
        assertThat(second.names()).as("same events, same hash").isEqualTo(first.names());
        assertThat(second.valuesOnly()).allSatisfy(r -> assertThat(r.event()).isIn("", ResultBoard.VALUES_HEADER));

        Packet pull = root.command(0, null);
        NewestResult a = root.result(root.up(pull, List.of(root.leaf(pull, first.records()))));
        pull = root.command(1, null);
        NewestResult b = root.result(root.up(pull, List.of(root.leaf(pull, second.valuesOnly()))));
        assertThat(a.sets().get(2).version()).isEqualTo(1);
        assertThat(b.sets().get(2).version()).isEqualTo(2);
        assertThat(b.records().get(2)).extracting(ScopeRecord::event).containsExactly("/x/[1]", "/x/[2]", "/x/[3]");
        assertThat(b.records().get(2)).extracting(ScopeRecord::value).containsExactly(7.0, 8.0, 9.0);

        // Values whose names never arrived are refused, naming the host.
        NewestFilter fresh = (NewestFilter) FilterSpec.parse("newest").newInstance();
        Packet p = fresh.command(0, null);
        assertThatThrownBy(() -> fresh.result(fresh.up(p, List.of(fresh.leaf(p, second.valuesOnly())))))
                .hasMessageContaining("host 2").hasMessageContaining("without names");
    }

    @Test
    void recordsWithoutTheirSetsHeaderAreRefusedNamingTheRecord() {
        ScopeFilter root = FilterSpec.parse("newest").newInstance();
        Packet pull = root.command(0, null);
        Packet up = root.up(pull, List.of(root.leaf(pull, set(1))));
        assertThatThrownBy(() -> root.result(up)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("record 0").hasMessageContaining(ResultBoard.HEADER);
    }
}
