/**
 * The one statistics vocabulary of every layer: {@link org.eventspace.base.stats.RunningStatistics} (Welford's
 * one-pass update, Chan, Golub and LeVeque's pairwise merge), its report value
 * {@link org.eventspace.base.stats.StatisticsSummary}, and the order statistics of a finite sample,
 * {@link org.eventspace.base.stats.Median} and {@link org.eventspace.base.stats.Quantile} (Hyndman and Fan's type 7).
 *
 * <p>Why here and not in a layer: ToM's statistics filter (scope), the post-mortem dump's latencies (events), the
 * ScalaTrace delta times (trace, which sees only comm), the monitors and the benchmarks' repeats all accumulate the
 * same way; with the arithmetic in one place there is one Welford, one merge and one quantile to get right, and a
 * partial aggregate one layer sends is merged by another with the same code.
 */
package org.eventspace.base.stats;
