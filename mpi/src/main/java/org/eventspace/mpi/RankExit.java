package org.eventspace.mpi;

import java.util.Locale;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * How one rank of an MPI run ended, from what the interposition library wrote into its meta file when it aborted,
 * received a fatal signal or exited (native/es_mpi.c, "how the rank ended"): mpirun itself only says that some
 * process failed, and then stops the others. A field that does not apply is null (and absent from the report).
 *
 * @param exitCode         the status the process exited with, if it exited (not killed, not aborted)
 * @param signal           the first fatal signal it received (Linux numbers), with {@code signalName}
 * @param abortCode        the error code it gave MPI_Abort
 * @param lastCall         the MPI call the signal hit ({@code inCall}) or the rank had last returned from; for a rank
 *                         that vanished, its last traced call
 * @param stoppedAfterRank for a rank that was only stopped (SIGTERM from mpirun, or gone) because another failed:
 *                         the rank whose failure came first
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RankExit(int rank, State state, Integer exitCode, Integer signal, String signalName, Integer abortCode,
                       String lastCall, Boolean inCall, Integer stoppedAfterRank) {

    /** What ended the rank, in the report as lower case. */
    public enum State {
        /** Reached MPI_Finalize and exited with status 0 (or its exit was not seen). */
        FINISHED,
        /** Reached MPI_Finalize, then exited with a non-zero status. */
        EXITED_NONZERO,
        /** Called MPI_Abort. */
        ABORTED,
        /** A fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM) ended it. */
        KILLED_BY_SIGNAL,
        /** Exited (with any status) without reaching MPI_Finalize. */
        EXITED_BEFORE_FINALIZE,
        /** Left no trace files, or vanished without a record (SIGKILL cannot be caught, a lost host). */
        UNKNOWN;

        @JsonValue
        String json() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Whether the rank ended well: reached MPI_Finalize and exited with status 0. */
    public boolean finished() {
        return state == State.FINISHED;
    }

    /** This exit, marked as stopped after {@code cause} failed. */
    RankExit stoppedAfter(int cause) {
        return new RankExit(rank, state, exitCode, signal, signalName, abortCode, lastCall, inCall, cause);
    }

    /** {@code SIGSEGV} for 11: the Linux numbers (x86, ARM); {@code SIG<n>} for others. */
    static String signalName(int signal) {
        return switch (signal) {
            case 1 -> "SIGHUP";
            case 2 -> "SIGINT";
            case 3 -> "SIGQUIT";
            case 4 -> "SIGILL";
            case 5 -> "SIGTRAP";
            case 6 -> "SIGABRT";
            case 7 -> "SIGBUS";
            case 8 -> "SIGFPE";
            case 9 -> "SIGKILL";
            case 10 -> "SIGUSR1";
            case 11 -> "SIGSEGV";
            case 12 -> "SIGUSR2";
            case 13 -> "SIGPIPE";
            case 14 -> "SIGALRM";
            case 15 -> "SIGTERM";
            default -> "SIG" + signal;
        };
    }
}
