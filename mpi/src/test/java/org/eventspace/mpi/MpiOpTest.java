package org.eventspace.mpi;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The op table's classes, which decide what the analysis joins, matches and sums. */
class MpiOpTest {
    @Test
    void theTenNeighbourhoodCollectivesAndNothingElseAreNeighbourhood() {
        int n = 0;
        for (int op = MpiOp.FIRST; op < MpiOp.END; op++) {
            String name = MpiOp.name(op);
            boolean expected = name.startsWith("MPI_Neighbor_") || name.startsWith("MPI_Ineighbor_");
            assertThat(MpiOp.neighbourhood(op)).as(name).isEqualTo(expected);
            n += expected ? 1 : 0;
        }
        assertThat(n).isEqualTo(10);
    }

    @Test
    void oneSidedCallsAreNeitherSendsNorReceives() {
        for (String name : new String[] {"MPI_Put", "MPI_Get", "MPI_Accumulate", "MPI_Win_lock", "MPI_Win_fence"}) {
            assertThat(MpiOp.sends(MpiOp.code(name))).as(name).isFalse();
            assertThat(MpiOp.receives(MpiOp.code(name))).as(name).isFalse();
        }
        assertThat(MpiOp.sends(MpiOp.SENDRECV)).isTrue();
        assertThat(MpiOp.receives(MpiOp.IRECV)).isTrue();
    }
}
