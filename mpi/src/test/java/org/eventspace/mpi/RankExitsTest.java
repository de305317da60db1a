package org.eventspace.mpi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * How ranks ended, from meta files as the native library leaves them (the end fields of es_mpi_layout.h), without
 * MPI: the rank that failed by itself is named with its signal or code, the ranks mpirun stopped after it are not
 * blamed. The real runs are in the cli module's MpirunFaultTest.
 */
class RankExitsTest {
    private static final int ALLREDUCE = MpiOp.code("MPI_Allreduce");

    /** A rank's snapshot: finalized or not, the end fields, its first failure at {@code failedNs}. */
    private static RankSnapshot rank(int rank, boolean finalized, int flags, int signal, int signalOp, int abortCode,
                                     int exitStatus, long failedNs) {
        return new RankSnapshot(rank, 0, "h", 100 + rank, finalized, 1, 2, 0, 0, 0, 0, 0, 0, 0, new long[0],
                new long[0], 10, flags, signal, signalOp, abortCode, exitStatus, failedNs, 0, 0, 0);
    }

    private static List<RankExit> exits(RankSnapshot... ranks) {
        return RankExits.of(RankSnapshots.of(ranks.length, List.of(ranks)), ranks.length, null);
    }

    @Test
    void aSegfaultIsTheCauseAndTheRanksMpirunTerminatedWereStoppedAfterIt() {
        int sig = MpiRankMetaLayout.END_SIGNALED;
        int inCall = MpiRankMetaLayout.END_IN_CALL;
        List<RankExit> exits = exits(rank(0, false, sig | inCall, 15, ALLREDUCE, 0, 0, 2_000),
                rank(1, false, sig, 11, ALLREDUCE, 0, 0, 1_000),
                rank(2, false, sig | inCall, 15, ALLREDUCE, 0, 0, 2_001),
                rank(3, false, 0, 0, 0, 0, 0, 0));

        assertThat(exits.get(1)).isEqualTo(new RankExit(1, RankExit.State.KILLED_BY_SIGNAL, null, 11, "SIGSEGV", null,
                "MPI_Allreduce", false, null));
        assertThat(exits.get(0).state()).isEqualTo(RankExit.State.KILLED_BY_SIGNAL);
        assertThat(exits.get(0).stoppedAfterRank()).isEqualTo(1);
        assertThat(exits.get(3).state()).isEqualTo(RankExit.State.UNKNOWN);
        assertThat(exits.get(3).stoppedAfterRank()).isEqualTo(1);
        assertThat(RankExits.errors(exits)).containsExactly(
                "rank 1 was killed by signal 11 (SIGSEGV) after MPI_Allreduce",
                "ranks [0, 2, 3] were stopped before MPI_Finalize (after rank 1 failed)");
    }

    @Test
    void anAbortIsNamedWithItsCode() {
        List<RankExit> exits = exits(rank(0, false, 0, 0, 0, 0, 0, 0),
                rank(1, false, MpiRankMetaLayout.END_SIGNALED | MpiRankMetaLayout.END_IN_CALL, 15, ALLREDUCE, 0, 0, 900),
                rank(2, false, MpiRankMetaLayout.END_ABORTED, 0, 0, 7, 0, 500));

        assertThat(exits.get(2)).isEqualTo(new RankExit(2, RankExit.State.ABORTED, null, null, null, 7, "MPI_Abort",
                null, null));
        assertThat(RankExits.errors(exits)).containsExactly("rank 2 called MPI_Abort with code 7",
                "ranks [0, 1] were stopped before MPI_Finalize (after rank 2 failed)");
    }

    @Test
    void aRankPastFinalizeThatMpirunStoppedWhileItExitedFinished() {
        // rank 3 returned 3 after MPI_Finalize; mpirun then sent SIGTERM to rank 0, which was past MPI_Finalize too,
        // and to rank 1, still inside it
        List<RankExit> exits = exits(rank(0, true, MpiRankMetaLayout.END_SIGNALED, 15, 0, 0, 0, 0),
                rank(1, false, MpiRankMetaLayout.END_SIGNALED | MpiRankMetaLayout.END_IN_CALL, 15,
                        MpiOp.code("MPI_Finalize"), 0, 0, 0),
                rank(2, true, MpiRankMetaLayout.END_EXITED, 0, 0, 0, 0, 0),
                rank(3, true, MpiRankMetaLayout.END_EXITED, 0, 0, 0, 3, 700));

        assertThat(exits.get(0).state()).isEqualTo(RankExit.State.FINISHED);
        assertThat(exits.get(1).state()).isEqualTo(RankExit.State.FINISHED);
        assertThat(RankExits.errors(exits)).containsExactly("rank 3 exited with code 3");
    }

    @Test
    void aNonZeroExitAfterFinalizeBlamesOnlyItsRank() {
        int exited = MpiRankMetaLayout.END_EXITED;
        List<RankExit> exits = exits(rank(0, true, exited, 0, 0, 0, 0, 0), rank(1, true, exited, 0, 0, 0, 0, 0),
                rank(2, true, 0, 0, 0, 0, 0, 0), rank(3, true, exited, 0, 0, 0, 3, 700));

        assertThat(exits).extracting(RankExit::state).containsExactly(RankExit.State.FINISHED,
                RankExit.State.FINISHED, RankExit.State.FINISHED, RankExit.State.EXITED_NONZERO);
        assertThat(exits.get(0).exitCode()).isZero();
        assertThat(exits.get(2).exitCode()).as("its exit was not seen").isNull();
        assertThat(exits.get(3).exitCode()).isEqualTo(3);
        assertThat(RankExits.errors(exits)).containsExactly("rank 3 exited with code 3");
    }

    @Test
    void theEarliestOfTwoFailuresIsTheOneTheStoppedRanksAreBlamedOn() {
        int early = MpiRankMetaLayout.END_EXITED | MpiRankMetaLayout.END_BEFORE_FINALIZE;
        List<RankExit> exits = exits(rank(0, false, early, 0, 0, 0, 5, 3_000),
                rank(1, false, MpiRankMetaLayout.END_SIGNALED, 8, ALLREDUCE, 0, 0, 1_000),
                rank(2, false, MpiRankMetaLayout.END_SIGNALED, 15, ALLREDUCE, 0, 0, 4_000));

        assertThat(RankExits.errors(exits)).containsExactly("rank 0 exited with code 5 before MPI_Finalize",
                "rank 1 was killed by signal 8 (SIGFPE) after MPI_Allreduce",
                "rank 2 was stopped before MPI_Finalize (after rank 1 failed)");
    }

    @Test
    void withNoRecordedFailureARankThatVanishedIsTheCause() {
        // SIGKILL cannot be caught: rank 1 left no end record, and mpirun then terminated the others
        int term = MpiRankMetaLayout.END_SIGNALED | MpiRankMetaLayout.END_IN_CALL;
        List<RankExit> exits = exits(rank(0, false, term, 15, ALLREDUCE, 0, 0, 2_000),
                rank(1, false, 0, 0, 0, 0, 0, 0), rank(2, false, term, 15, ALLREDUCE, 0, 0, 2_000));

        assertThat(RankExits.errors(exits)).containsExactly(
                "rank 1 did not reach MPI_Finalize and recorded no exit, abort or signal (SIGKILL cannot be caught;"
                        + " or it left no trace files)",
                "ranks [0, 2] were stopped before MPI_Finalize (after rank 1 failed)");
    }

    @Test
    void ranksGoneWithoutARecordAndWithNobodyStoppedAreOneLineAndNobodyIsBlamed() {
        // a lost node agent: its ranks' copies stop short of MPI_Finalize, the program itself ended well
        int exited = MpiRankMetaLayout.END_EXITED;
        List<RankExit> exits = exits(rank(0, true, exited, 0, 0, 0, 0, 0), rank(1, true, exited, 0, 0, 0, 0, 0),
                rank(2, false, 0, 0, 0, 0, 0, 0), rank(3, false, 0, 0, 0, 0, 0, 0));

        assertThat(exits).extracting(RankExit::stoppedAfterRank).containsOnlyNulls();
        assertThat(RankExits.errors(exits)).containsExactly("ranks [2, 3] did not reach MPI_Finalize and recorded no"
                + " exit, abort or signal (SIGKILL cannot be caught; or they left no trace files)");
    }

    @Test
    void aRunThatEndedWellHasNoErrorAndOldMetaFilesReadAsFinished() {
        List<RankExit> exits = exits(rank(0, true, MpiRankMetaLayout.END_EXITED, 0, 0, 0, 0, 0),
                rank(1, true, 0, 0, 0, 0, 0, 0));

        assertThat(exits).allMatch(RankExit::finished);
        assertThat(RankExits.errors(exits)).isEmpty();
    }

    @Test
    void signalsAreNamedByTheirLinuxNumbers() {
        assertThat(RankExit.signalName(11)).isEqualTo("SIGSEGV");
        assertThat(RankExit.signalName(6)).isEqualTo("SIGABRT");
        assertThat(RankExit.signalName(7)).isEqualTo("SIGBUS");
        assertThat(RankExit.signalName(15)).isEqualTo("SIGTERM");
        assertThat(RankExit.signalName(40)).isEqualTo("SIG40");
    }
}
