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

    /**
     * A non-blocking collective: each member arrives with its i-call's entry and departs with the exit of the wait that
     * completed it, so the departure order is the completions'; an i-call whose completion never comes departs at its
     * own exit when the run ends, and is counted.
     */
    @Test
    void anInstanceWhoseMembersAllCameBeforeItsCommunicatorsSizeCompletesWhenTheSizeComes() {
        // The analysis reads tuples and communicator lists as they come: both members of communicator 7's first
        // instance arrive while its size is unknown; they must not wait for a third, nor end counted incomplete.
        CollectiveWaits c = new CollectiveWaits(4);
        c.arrive(7, 0, 0, 100, 500);
        c.arrive(7, 0, 2, 300, 600);
        assertThat(c.instances).isZero();
        c.communicator(7, 2);
        assertThat(c.instances).isEqualTo(1);
        assertThat(c.pending()).isZero();
        // Its next instance completes as usual now that the size is known.
        c.arrive(7, 1, 0, 700, 900);
        c.arrive(7, 1, 2, 800, 950);
        assertThat(c.instances).isEqualTo(2);
        // One whose communicator never shows its size stays incomplete at the end: no one knows it is whole.
        c.arrive(9, 0, 1, 100, 200);
        c.arrive(9, 0, 3, 150, 250);
        c.communicator(11, 2);
        c.finish(true);
        assertThat(c.instances).isEqualTo(2);
        assertThat(c.incomplete).isEqualTo(1);
    }

    @Test
    void aNonBlockingCollectiveDepartsAtTheWaitThatCompletedIt() {
        CollectiveWaits c = new CollectiveWaits(2);
        // MPI_Iallreduce, instance 0: both post early and return at once; rank 0 waits for it until 5000, rank 1 until 2000
        c.posted(MpiTuple.COMM_WORLD_ID, 0, 0, 100, 110);
        c.posted(MpiTuple.COMM_WORLD_ID, 0, 1, 300, 310);
        assertThat(c.instances).as("no member departed yet").isZero();
        c.completed(MpiTuple.COMM_WORLD_ID, 0, 1, 2_000);
        c.completed(MpiTuple.COMM_WORLD_ID, 0, 0, 5_000);
        assertThat(c.instances).isEqualTo(1);
        assertThat(c.postedCompleted).isEqualTo(2);
        assertThat(c.lastArrivals[1]).isEqualTo(1);
        assertThat(c.waitUs[0].mean()).isEqualTo(0.2);
        // departure wait: rank 0 left 3 µs after rank 1
        assertThat(c.departureWaitUs[0].mean()).isEqualTo(3.0);
        assertThat(c.departureOrder[1]).containsExactly(1, 0);
        // instance 1: rank 1's request was never completed through a wrapped wait: at the end it departs at its i-call
        c.posted(MpiTuple.COMM_WORLD_ID, 1, 0, 6_000, 6_010);
        c.posted(MpiTuple.COMM_WORLD_ID, 1, 1, 6_100, 6_110);
        c.completed(MpiTuple.COMM_WORLD_ID, 1, 0, 9_000);
        // a completion of an i-call never seen (its tuple overwritten) is no instance
        c.completed(MpiTuple.COMM_WORLD_ID, 7, 0, 9_500);
        c.finish(true);
        assertThat(c.instances).isEqualTo(2);
        assertThat(c.postedCompleted).isEqualTo(3);
        assertThat(c.postedWithoutCompletion).isEqualTo(1);
        assertThat(c.incomplete).isZero();
    }
}
