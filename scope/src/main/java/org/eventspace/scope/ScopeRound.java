package org.eventspace.scope;

import java.util.Arrays;
import java.util.Objects;

import org.eventspace.scope.filter.FilterResult;

/**
 * What one pull of an event scope brought to the front-end: the filter's reading of the root packet and the
 * scope's own measures of the round. Immutable.
 *
 * @param round            the round's number, 0 for the first pull after open.
 * @param result           the filter's {@code result(root)}, which names the round it describes (an earlier one
 *                         for a pipelined filter); {@link FilterResult#none()} while such a filter has no
 *                         complete round yet.
 * @param recordsProduced  records the leaves' sources produced since the previous pull (trace tuples written,
 *                         records pushed, whether queued or dropped).
 * @param recordsGathered  records the leaves read in this round.
 * @param recordsDropped   records lost in this round: trace tuples overwritten before they were read, records a
 *                         full push buffer dropped.
 * @param rawBytes         bytes the leaves read from their sources (40 per trace tuple, 24 per pushed record):
 *                         what a gather without filtering would move.
 * @param bytesPerLevel    bytes sent up by the nodes of each level, index 0 the leaves, the last the root's
 *                         answer to the front-end.
 * @param roundNanos       wall time of the round at the front-end, from sending PULL to decoding the answer.
 */
public record ScopeRound(long round, FilterResult result, long recordsProduced, long recordsGathered,
                         long recordsDropped, long rawBytes, long[] bytesPerLevel, long roundNanos) {
    public ScopeRound {
        Objects.requireNonNull(result, "result");
        bytesPerLevel = bytesPerLevel.clone();
    }

    /**
     * Records gathered over records produced in this round (EventSpace paper §6, Tables 2 and 3); 1.0 when
     * nothing was produced. Records produced late in a round may be gathered in the next one, so a single round
     * can exceed 1.0; over the life of a stream it cannot.
     */
    public double gatherRate() {
        return recordsProduced == 0 ? 1.0 : (double) recordsGathered / recordsProduced;
    }

    @Override
    public long[] bytesPerLevel() {
        return bytesPerLevel.clone();
    }

    /** Bytes sent up over all levels. */
    public long bytesMoved() {
        long total = 0;
        for (long b : bytesPerLevel) {
            total += b;
        }
        return total;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ScopeRound r && round == r.round && result.equals(r.result) && recordsProduced == r.recordsProduced
                && recordsGathered == r.recordsGathered && recordsDropped == r.recordsDropped && rawBytes == r.rawBytes
                && Arrays.equals(bytesPerLevel, r.bytesPerLevel) && roundNanos == r.roundNanos;
    }

    @Override
    public int hashCode() {
        return Objects.hash(round, recordsProduced, recordsGathered, recordsDropped, roundNanos) * 31 + Arrays.hashCode(bytesPerLevel);
    }

    @Override
    public String toString() {
        return String.format("round %d: %d records produced, %d gathered, %d dropped (gather rate %.1f%%); %d raw bytes, "
                        + "bytes per level %s B; %.3f ms", round, recordsProduced, recordsGathered, recordsDropped,
                100 * gatherRate(), rawBytes, Arrays.toString(bytesPerLevel), roundNanos / 1e6);
    }
}
