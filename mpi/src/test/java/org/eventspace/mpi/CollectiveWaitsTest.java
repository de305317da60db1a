package org.eventspace.mpi;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Wait at N×N from the entries, and its other side from the exits (EventSpace paper §3: departure wait and order), on
 * instances of MPI_COMM_WORLD fed by hand: no MPI needed.
 */
class CollectiveWaitsTest {
    @Test
    void entriesGiveTheArrivalsAndExitsTheDepartures() {
        CollectiveWaits c = new CollectiveWaits(3);
        // Instance 0: rank 2 enters last (at 900 ns); exits: rank 1 first (1000), rank 0 (1300), rank 2 (1600).
        c.arrive(MpiTuple.COMM_WORLD_ID, 0, 0, 100, 1_300);
        c.arrive(MpiTuple.COMM_WORLD_ID, 0, 1, 200, 1_000);
        c.arrive(MpiTuple.COMM_WORLD_ID, 0, 2, 900, 1_600);
        // Instance 1: rank 2 enters last again and leaves first (2000); ranks 0 and 1 leave at once (2500): a tie goes to
        // the member whose tuple came first (rank 0 here).
        c.arrive(MpiTuple.COMM_WORLD_ID, 1, 2, 1_900, 2_000);
        c.arrive(MpiTuple.COMM_WORLD_ID, 1, 0, 1_100, 2_500);
        c.arrive(MpiTuple.COMM_WORLD_ID, 1, 1, 1_200, 2_500);

        assertThat(c.instances).isEqualTo(2);
        assertThat(c.verdict().rank()).isEqualTo(2);
        assertThat(c.lastArrivals[2]).isEqualTo(2);
        assertThat(c.arrivalOrder[2]).containsExactly(0, 0, 2);
        assertThat(c.departureOrder[1]).containsExactly(1, 0, 1);
        assertThat(c.departureOrder[2]).containsExactly(1, 0, 1);
        assertThat(c.departureOrder[0]).containsExactly(0, 2, 0);
        // Departure wait: its exit − the first exit, in µs.
        assertThat(c.departureWaitUs[1].mean()).isEqualTo((0 + 0.5) / 2);
        assertThat(c.departureWaitUs[2].mean()).isEqualTo((0.6 + 0) / 2);
        assertThat(c.departureWaitUs[0].max()).isEqualTo(0.5);
        assertThat(c.waitUs[0].mean()).isEqualTo((0.8 + 0.8) / 2);
    }
}
