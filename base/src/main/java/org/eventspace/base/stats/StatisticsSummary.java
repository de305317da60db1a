package org.eventspace.base.stats;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * What a {@link RunningStatistics} held at one moment, for reports: count, mean, population standard deviation,
 * minimum and maximum, in the unit of the values. Immutable. Jackson writes it as
 * {@code {"count":…, "mean":…, "sd":…, "min":…, "max":…}} — the per-event object of the scope's {@code stats} and
 * {@code class:…} results — and a summary of no values has count 0 and NaN for the rest.
 *
 * <p><b>Windowed median.</b> A mean follows every outlier; the Network Weather Service forecasts from, among
 * others, the median of a sliding window of the last 100 measurements (Wolski, Spring, Hayes 1999), which a
 * single late rank cannot move. An accumulator cannot give it (a median does not merge), so a monitor that keeps
 * such a window attaches its median with {@link #withWindowMedian}; until one does, {@code windowMedian} is null
 * and the field is absent from the JSON, so every result without a window reads as before.
 *
 * @param count        values summarised.
 * @param mean         their mean; NaN for none.
 * @param sd           their population standard deviation; NaN for none.
 * @param min          the smallest; NaN for none.
 * @param max          the largest; NaN for none.
 * @param windowMedian the median of the last values in a sliding window, when a monitor keeps one; else null.
 */
@JsonPropertyOrder({"count", "mean", "sd", "min", "max", "window_median"})
public record StatisticsSummary(long count, double mean, double sd, double min, double max,
                                @JsonProperty("window_median") @JsonInclude(JsonInclude.Include.NON_NULL)
                                Double windowMedian) {
    /** This summary with {@code median}, the median of a sliding window of the same values, attached. */
    public StatisticsSummary withWindowMedian(double median) {
        return new StatisticsSummary(count, mean, sd, min, max, median);
    }
}
