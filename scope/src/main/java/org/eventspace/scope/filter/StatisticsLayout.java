package org.eventspace.scope.filter;

/**
 * Layout of one event's partial statistics in a filter packet ({@link StatsFilter}, and each event of a class in
 * {@link ClassFilter}): the state of a {@code RunningStatistics}, so that a parent merges its children's exactly as
 * ToM's StatsFilter merges "the data from all its children" (§4.1). The count is a long and travels in the
 * packet's longs where the filter's own layout puts it; the rest are consecutive doubles from the event's first
 * double:
 *
 * <pre>
 *   double  +0  mean
 *           +1  M2, the sum of squared deviations from the mean (Chan, Golub, LeVeque 1979)
 *           +2  minimum
 *           +3  maximum
 * </pre>
 */
final class StatisticsLayout {
    static final int MEAN_OFFSET = 0;
    static final int M2_OFFSET = MEAN_OFFSET + 1;
    static final int MIN_OFFSET = M2_OFFSET + 1;
    static final int MAX_OFFSET = MIN_OFFSET + 1;
    /** Doubles per event. */
    static final int DOUBLES = MAX_OFFSET + 1;

    private StatisticsLayout() {
    }
}
