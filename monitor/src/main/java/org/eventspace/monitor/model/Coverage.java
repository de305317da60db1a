package org.eventspace.monitor.model;

import java.util.List;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * What the tool did not see, counted: a verdict is only as good as what it was made of. Every field is 0 (or empty)
 * when nothing was lost; a field that does not apply to the run's kind is 0.
 *
 * @param tuplesWritten           trace tuples the collectors or the MPI library wrote.
 * @param tuplesRead              of them, what the analysis read.
 * @param tuplesMissed            what the bounded buffers overwrote before it was read.
 * @param gatherRate              read / (read + missed), 1 when nothing was written (the EventSpace paper's measure).
 * @param untracedCalls           MPI calls made on threads the library does not record.
 * @param unknownCommunicatorCalls collective calls on a communicator the library could not name.
 * @param incompleteInstances     collective instances some member never reached (a rank died, a tuple was lost).
 * @param unmatchedPointToPoint   point-to-point calls without a partner.
 * @param callsDropped            calls read but not joined (a collector's tuple of the call was lost).
 * @param unfinishedRanks         ranks that did not finish, each with why.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record Coverage(long tuplesWritten, long tuplesRead, long tuplesMissed, double gatherRate, long untracedCalls,
                       long unknownCommunicatorCalls, long incompleteInstances, long unmatchedPointToPoint,
                       long callsDropped, List<UnfinishedRank> unfinishedRanks) {

    /** A rank that did not finish, and why ("killed by signal 11 (SIGSEGV) in MPI_Allreduce", "no result"). */
    public record UnfinishedRank(int rank, String reason) {
    }

    public Coverage {
        unfinishedRanks = List.copyOf(unfinishedRanks);
    }

    /** Whether anything at all was not seen. */
    public boolean complete() {
        return tuplesMissed == 0 && untracedCalls == 0 && unknownCommunicatorCalls == 0 && incompleteInstances == 0
                && unmatchedPointToPoint == 0 && callsDropped == 0 && unfinishedRanks.isEmpty();
    }

    public static double gatherRate(long read, long missed) {
        return read + missed == 0 ? 1.0 : (double) read / (read + missed);
    }
}
