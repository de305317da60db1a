package org.eventspace.monitor.model;

import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * One rank of a run: where it ran, how it ended, what it called, how long it waited at collectives and how late it
 * was there, and its point-to-point wait states. A figure the run did not measure is null, never 0.
 *
 * @param rank             the rank (MPI_COMM_WORLD's for an MPI program).
 * @param host             the host it ran on.
 * @param finished         whether it ended normally (its result arrived; MPI_Finalize reached and exit code 0).
 * @param exit             how an MPI rank ended, null for our own ranks.
 * @param error            what went wrong with it, null if nothing.
 * @param calls            its calls, null if not counted.
 * @param bytesSent        its point-to-point bytes sent, null if not counted.
 * @param collectiveWaitUs its total wait at collectives (for each instance: the last arrival's entry minus its own).
 * @param latenessUs       its total lateness at collectives (the members' mean wait minus its own, summed).
 * @param lastArrivals     the instances at which it came last.
 * @param instances        the instances it took part in.
 * @param lateSenderUs     its wait in receives for a late sender.
 * @param lateReceiverUs   its wait in sends for a late receiver.
 * @param profile          per operation, its calls and time.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RankRecord(int rank, Integer host, boolean finished, Exit exit, String error, Long calls, Long bytesSent,
                         Double collectiveWaitUs, Double latenessUs, Long lastArrivals, Long instances,
                         Double lateSenderUs, Double lateReceiverUs, Map<String, Calls> profile) {

    /** One operation's calls and time on a rank (µs). */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record Calls(long calls, double timeUs) {
    }

    /**
     * How an MPI rank's process ended.
     *
     * @param state       finished, exited_nonzero, aborted, killed_by_signal, exited_before_finalize, stopped (after
     *                    another rank failed), unknown (no files: never started, or vanished).
     * @param exitCode    its exit status, when it exited.
     * @param signal      the signal that killed it.
     * @param signalName  its name (SIGSEGV).
     * @param abortCode   the code it passed to MPI_Abort.
     * @param lastCall    the MPI call it was in or last made.
     */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Exit(String state, Integer exitCode, Integer signal, String signalName, Integer abortCode,
                       String lastCall) {
    }
}
