package org.eventspace.mpi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** The flat tree an MPI job is drawn on: one gred, one port per rank, ranks on the hosts the library names. */
class MpiPathmapTest {
    @Test
    void everyRankHasItsOwnPortAtTheOneGredOnTheLibrarysHost() {
        MpiPathmap tree = MpiPathmap.of(5, 2);
        Set<Integer> ports = new HashSet<>();
        for (int r = 0; r < 5; r++) {
            ports.add(tree.port(r));
            assertThat(tree.contributors().get(tree.port(r))).isEqualTo("rank " + r);
            // es_mpi.c: host = rank * H / P under ES_MPI_SIM_HOSTS
            assertThat(tree.pathmap().spec().hostOf(r)).isEqualTo(r * 2 / 5);
            assertThat(tree.pathFromRoot(r).get(0)).isEqualTo(tree.pathmap().root(0).name());
            assertThat(tree.pathFromRoot(r)).contains(tree.gred());
        }
        assertThat(ports).containsExactlyInAnyOrder(0, 1, 2, 3, 4);
        assertThat(tree.pathmap().spec().trees()).isEqualTo(1);
    }

    @Test
    void aJobThatCannotBeDrawnIsRefusedWithItsNumbers() {
        assertThatThrownBy(() -> MpiPathmap.of(2, 3)).hasMessageContaining("ranks=2 on hosts=3");
    }
}
