package org.eventspace.monitor.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * One operation (an MPI function, or one of our collectives) over the whole run: its calls, and how its time spread
 * over the ranks — the smallest, mean and largest per-rank total, who had them, and the percent imbalance
 * {@code (max / mean − 1) × 100} (Pearce et al.; 0 when every rank spent the same).
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record OperationRecord(long calls, Long bytes, int ranks, double timeUs, double minUs, int minRank, double meanUs,
                              double maxUs, int maxRank, double imbalancePct) {
}
