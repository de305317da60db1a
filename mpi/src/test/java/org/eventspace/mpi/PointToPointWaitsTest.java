package org.eventspace.mpi;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Late sender and late receiver on hand-made call windows (ns on one time base). */
class PointToPointWaitsTest {
    private static final int WORLD = 0;

    @Test
    void blockingReceiveWaitsForALateSenderUpToItsOwnExit() {
        PointToPointWaits p = new PointToPointWaits(2);
        p.receive(WORLD, 0, 1, 7, 1_000, 9_000);
        p.send(WORLD, 0, 1, 7, 6_000, 6_100, true);

        assertThat(p.matched).isEqualTo(1);
        assertThat(p.lateSenderNs[1]).isEqualTo(5_000);
        assertThat(p.lateSenderCausedNs[0]).isEqualTo(5_000);
        assertThat(p.lateReceiverNs[0]).isZero();
    }

    @Test
    void irecvCompletedByAWaitIsChargedTheWaitsTimeBeforeTheSendStarted() {
        PointToPointWaits p = new PointToPointWaits(2);
        p.post(WORLD, 0, 1, 7, 1_000, 1_000);
        p.send(WORLD, 0, 1, 7, 8_000, 8_050, true);
        // the wait entered at 3 000 and left at 8 200: it waited 5 000 for the send that started at 8 000
        p.complete(WORLD, 0, 1, 7, 1_000, 3_000, 8_200);

        assertThat(p.lateSenderNs[1]).isEqualTo(5_000);
        assertThat(p.lateSenderCount[1]).isEqualTo(1);
        assertThat(p.lateSenderCausedNs[0]).isEqualTo(5_000);
        assertThat(p.unmatched()).isZero();
    }

    @Test
    void theCompletionMayArriveBeforeTheSendIsRead() {
        PointToPointWaits p = new PointToPointWaits(2);
        p.post(WORLD, 0, 1, 7, 1_000, 1_000);
        p.complete(WORLD, 0, 1, 7, 1_000, 3_000, 8_200);
        p.send(WORLD, 0, 1, 7, 8_000, 8_050, true);

        assertThat(p.lateSenderNs[1]).isEqualTo(5_000);
    }

    @Test
    void aWaitallOfSeveralReceivesWaitsOnceForItsLastSender() {
        PointToPointWaits p = new PointToPointWaits(3);
        p.post(WORLD, 0, 2, 7, 100, 100);
        p.post(WORLD, 1, 2, 7, 200, 200);
        p.send(WORLD, 0, 2, 7, 4_000, 4_010, true);
        p.send(WORLD, 1, 2, 7, 9_000, 9_010, true);
        // one MPI_Waitall [1 000, 9 100] completed both: it waited until 9 000, not 3 000 + 8 000
        p.complete(WORLD, 0, 2, 7, 100, 1_000, 9_100);
        p.complete(WORLD, 1, 2, 7, 200, 1_000, 9_100);

        assertThat(p.lateSenderNs[2]).isEqualTo(8_000);
        assertThat(p.lateSenderCount[2]).isEqualTo(1);
        // rank 0 made it wait 3 000, rank 1 the 5 000 beyond
        assertThat(p.lateSenderCausedNs[0]).isEqualTo(3_000);
        assertThat(p.lateSenderCausedNs[1]).isEqualTo(5_000);
    }

    @Test
    void aWildcardIrecvIsPlacedWhenItsCompletionNamesTheSource() {
        PointToPointWaits p = new PointToPointWaits(2);
        p.post(WORLD, -1, 1, -1, 1_000, 1_000);
        p.send(WORLD, 0, 1, 5, 6_000, 6_010, true);
        assertThat(p.matched).isZero();
        p.complete(WORLD, 0, 1, 5, 1_000, 2_000, 6_100);

        assertThat(p.matched).isEqualTo(1);
        assertThat(p.lateSenderNs[1]).isEqualTo(4_000);
    }

    @Test
    void anIrecvPostedBeforeABlockingReceiveTakesTheFirstSend() {
        PointToPointWaits p = new PointToPointWaits(2);
        p.post(WORLD, 0, 1, 7, 1_000, 1_000);
        p.receive(WORLD, 0, 1, 7, 2_000, 5_000);
        p.send(WORLD, 0, 1, 7, 4_000, 4_010, true);   // matches the MPI_Irecv (posted first)
        p.send(WORLD, 0, 1, 7, 4_500, 4_510, true);   // matches the MPI_Recv: it waited 2 500
        assertThat(p.lateSenderNs[1]).isEqualTo(2_500);
        p.complete(WORLD, 0, 1, 7, 1_000, 5_000, 5_100); // the wait entered after the send: no wait
        assertThat(p.lateSenderNs[1]).isEqualTo(2_500);
    }

    @Test
    void aSendrecvsSendHalfIsNotALateReceiver() {
        PointToPointWaits p = new PointToPointWaits(2);
        // rank 0's sendrecv [0, 10 000] sends to rank 1, whose receive enters at 9 000
        p.send(WORLD, 0, 1, 3, 0, 10_000, false);
        p.receive(WORLD, 0, 1, 3, 9_000, 9_100);
        assertThat(p.lateReceiverNs[0]).isZero();
        // a blocking send in its call when the receive entered is one
        p.send(WORLD, 0, 1, 4, 0, 10_000, true);
        p.receive(WORLD, 0, 1, 4, 9_000, 9_100);
        assertThat(p.lateReceiverNs[0]).isEqualTo(9_000);
    }

    @Test
    void aCompletionWhoseIrecvWasNotSeenIsCountedAndStillMatched() {
        PointToPointWaits p = new PointToPointWaits(2);
        p.complete(WORLD, 0, 1, 7, 42, 1_000, 3_000);
        p.send(WORLD, 0, 1, 7, 2_000, 2_010, true);
        assertThat(p.completionsWithoutPost).isEqualTo(1);
        assertThat(p.lateSenderNs[1]).isEqualTo(1_000);
    }
    @Test
    void aWaitallsSharesDoNotDependOnWhichSendWasReadFirst() {
        PointToPointWaits p = new PointToPointWaits(3);
        p.post(WORLD, 0, 2, 7, 100, 100);
        p.post(WORLD, 1, 2, 7, 200, 200);
        p.complete(WORLD, 0, 2, 7, 100, 1_000, 9_100);
        p.complete(WORLD, 1, 2, 7, 200, 1_000, 9_100);
        // rank 1's host read first: its later send still gets only the increase over rank 0's
        p.send(WORLD, 1, 2, 7, 9_000, 9_010, true);
        p.send(WORLD, 0, 2, 7, 4_000, 4_010, true);

        assertThat(p.lateSenderNs[2]).isEqualTo(8_000);
        assertThat(p.lateSenderCount[2]).isEqualTo(1);
        assertThat(p.lateSenderCausedNs[0]).isEqualTo(3_000);
        assertThat(p.lateSenderCausedNs[1]).isEqualTo(5_000);
    }

    @Test
    void oneHostsReaderFarAheadLosesNoMatch() {
        // rank 0's host read 5 000 sends before rank 1's host read a receive: all wait, none is dropped
        PointToPointWaits p = new PointToPointWaits(2);
        int n = 5_000;
        for (int i = 0; i < n; i++) {
            p.send(WORLD, 0, 1, 7, 10_000L * i + 5_000, 10_000L * i + 5_100, true);
        }
        assertThat(p.unmatched()).isEqualTo(n);
        for (int i = 0; i < n; i++) {
            p.receive(WORLD, 0, 1, 7, 10_000L * i, 10_000L * i + 5_200);
        }
        p.finish(new long[2]);

        assertThat(p.matched).isEqualTo(n);
        assertThat(p.unmatched()).isZero();
        assertThat(p.lateSenderNs[1]).isEqualTo(5_000L * n);
        assertThat(p.lateSenderCount[1]).isEqualTo(n);
        assertThat(p.pendingBoundExceeded).isZero();
    }

    @Test
    void aRankAtItsBoundIsHeldBackAndWhatIsQueuedBeyondIsCounted() {
        PointToPointWaits p = new PointToPointWaits(2);
        long bound = p.pendingBound;
        for (long i = 0; i < bound; i++) {
            p.send(WORLD, 0, 1, 7, i, i + 1, true);
        }
        assertThat(p.holdBack(0)).isTrue();
        assertThat(p.holdBack(1)).isFalse();
        p.send(WORLD, 0, 1, 7, bound, bound + 1, true);
        assertThat(p.pendingBoundExceeded).isEqualTo(1);

        p.receive(WORLD, 0, 1, 7, 0, 1);
        p.receive(WORLD, 0, 1, 7, 1, 2);
        assertThat(p.holdBack(0)).isFalse();
        assertThat(p.unmatched()).isEqualTo(bound - 1);
    }

    @Test
    void unmatchedCallsAreSplitByWhetherThePartnersRingOverwroteTuples() {
        PointToPointWaits p = new PointToPointWaits(3);
        p.send(WORLD, 0, 1, 7, 100, 200, true);     // rank 1 missed tuples: its receive may have been among them
        p.send(WORLD, 0, 2, 7, 100, 200, true);     // rank 2 missed none: it made no such receive
        p.receive(WORLD, 2, 0, 9, 300, 400);        // rank 2 missed none
        p.post(WORLD, 1, 0, 5, 500, 500);           // a named MPI_Irecv from rank 1, which missed tuples
        p.finish(new long[] {0, 12, 0});

        assertThat(p.unmatched()).isEqualTo(4);
        assertThat(p.unmatchedNoPartner).isEqualTo(2);
        assertThat(p.unmatchedPartnerOverwritten).isEqualTo(2);
    }
}
