package org.eventspace.job;

import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

import org.eventspace.base.stats.StatisticsSummary;
import org.eventspace.scope.filter.FilterResult;

/**
 * What a job's event-scope front-end has seen so far: the gather counters summed over every round since the scope
 * opened, and the newest filter result that describes a round with data. A value: taken by {@link ScopeFrontEnd#snapshot}
 * (or {@link MonitoredJob#snapshot}) from any thread while the job runs, and once more, final, when the scope closed.
 *
 * @param settings         the scope as configured.
 * @param rounds           rounds pulled.
 * @param recordsProduced  records the collectors wrote while the scope was open (trace tuples), summed over rounds.
 * @param recordsGathered  records that reached the leaves' filters.
 * @param recordsDropped   records overwritten before a leaf read them: produced = gathered + dropped.
 * @param rawBytes         bytes a concatenating gather would have moved (40 B a trace tuple).
 * @param bytesPerLevel    bytes sent up by the leaves, each gather level and the root, summed over rounds.
 * @param roundNanos       front-end time spent in rounds, summed.
 * @param resultRound      the round {@code result} describes, or -1 before any round with data.
 * @param result           the filter's reading of that round, {@link FilterResult#none()} before it.
 * @param runStatistics    with the {@code stats} filter: per event, the statistics of every round merged (Chan et al.'s
 *                         pairwise update), i.e. of the whole run so far; empty for other filters.
 * @param error            why the scope stopped early (a round that failed, a front-end that did not finish), or null.
 * @param closed           whether the scope was closed (FIN/FINACK): the counters are final.
 */
public record ScopeSnapshot(ScopeSettings settings, long rounds, long recordsProduced, long recordsGathered,
                            long recordsDropped, long rawBytes, long[] bytesPerLevel, long roundNanos, long resultRound,
                            FilterResult result, SortedMap<String, StatisticsSummary> runStatistics, String error,
                            boolean closed) {
    public ScopeSnapshot {
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(result, "result");
        runStatistics = Collections.unmodifiableSortedMap(new TreeMap<>(runStatistics));
        bytesPerLevel = bytesPerLevel.clone();
    }

    /** Before the first round. */
    static ScopeSnapshot empty(ScopeSettings settings) {
        return new ScopeSnapshot(settings, 0, 0, 0, 0, 0, new long[0], 0, -1, FilterResult.none(), new TreeMap<>(), null, false);
    }

    @Override
    public long[] bytesPerLevel() {
        return bytesPerLevel.clone();
    }

    /** Records gathered over records produced (EventSpace §6, Table 2); 1.0 while nothing was produced. */
    public double gatherRate() {
        return recordsProduced == 0 ? 1.0 : (double) recordsGathered / recordsProduced;
    }

    /** Bytes the root sent the front-end, all rounds. */
    public long rootBytes() {
        return bytesPerLevel.length == 0 ? 0 : bytesPerLevel[bytesPerLevel.length - 1];
    }

    /**
     * The scope's reduction over the whole run: raw bytes (what a concatenating gather would move) over the bytes the
     * root received; NaN before the root sent anything. Above 1 the filter moved less than the records themselves.
     */
    public double reductionFactor() {
        long root = rootBytes();
        return root == 0 ? Double.NaN : (double) rawBytes / root;
    }

    /** Mean time of a round at the front-end in µs; 0 before the first. */
    public double roundUsMean() {
        return rounds == 0 ? 0 : roundNanos / 1e3 / rounds;
    }

    /**
     * The run report's {@code scope} block: the settings, the counters, the whole run's reduction factor, and the
     * filter's result of the last round with data (labelled by {@code result_round}).
     */
    public ObjectNode toJson(ObjectMapper json) {
        double reduction = reductionFactor();
        return json.valueToTree(new Block(settings.shapeText(), settings.gather().toString(), settings.filter().text(),
                Math.max(0, settings.intervalMs()), settings.cadenceKind(), rounds, recordsProduced, recordsGathered,
                recordsDropped, gatherRate(), rawBytes, bytesPerLevel, Double.isNaN(reduction) ? null : reduction,
                roundUsMean(), resultRound, result, runStatistics, error));
    }

    /**
     * The report's {@code scope} block as Jackson writes it: {@code reduction_factor} null before the root sent
     * anything, {@code run_statistics} absent when empty and {@code error} when there was none.
     */
    @JsonPropertyOrder({"shape", "gather", "filter", "interval_ms", "cadence", "rounds", "records_produced",
            "records_gathered", "records_dropped", "gather_rate", "raw_bytes", "bytes_per_level", "reduction_factor",
            "round_us_mean", "result_round", "result", "run_statistics", "error"})
    record Block(String shape, String gather, String filter, @JsonProperty("interval_ms") int intervalMs,
                 String cadence, long rounds, @JsonProperty("records_produced") long recordsProduced,
                 @JsonProperty("records_gathered") long recordsGathered,
                 @JsonProperty("records_dropped") long recordsDropped, @JsonProperty("gather_rate") double gatherRate,
                 @JsonProperty("raw_bytes") long rawBytes, @JsonProperty("bytes_per_level") long[] bytesPerLevel,
                 @JsonProperty("reduction_factor") Double reductionFactor,
                 @JsonProperty("round_us_mean") double roundUsMean, @JsonProperty("result_round") long resultRound,
                 FilterResult result,
                 @JsonProperty("run_statistics") @JsonInclude(JsonInclude.Include.NON_EMPTY)
                 SortedMap<String, StatisticsSummary> runStatistics,
                 @JsonInclude(JsonInclude.Include.NON_NULL) String error) {
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ScopeSnapshot s && settings.equals(s.settings) && rounds == s.rounds
                && recordsProduced == s.recordsProduced && recordsGathered == s.recordsGathered
                && recordsDropped == s.recordsDropped && rawBytes == s.rawBytes && Arrays.equals(bytesPerLevel, s.bytesPerLevel)
                && roundNanos == s.roundNanos && resultRound == s.resultRound && result.equals(s.result) && runStatistics.equals(s.runStatistics)
                && Objects.equals(error, s.error) && closed == s.closed;
    }

    @Override
    public int hashCode() {
        return Objects.hash(settings, rounds, recordsProduced, recordsGathered, resultRound) * 31 + Arrays.hashCode(bytesPerLevel);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%d rounds, %d records produced, %d gathered, %d dropped (gather rate %.2f %%), "
                + "reduction %.2f", rounds, recordsProduced, recordsGathered, recordsDropped, 100 * gatherRate(), reductionFactor());
    }
}
