package org.eventspace.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

import org.eventspace.base.stats.Median;
import org.eventspace.base.stats.MedianInterval;
import org.eventspace.base.stats.Quantile;
import org.eventspace.trace.Replay;
import org.eventspace.trace.Trace;
import org.eventspace.trace.TraceConfig;
import org.eventspace.trace.TraceFile;
import org.eventspace.trace.TraceFormatException;
import org.eventspace.run.RunConfig;
import org.eventspace.run.RunEngine;
import org.eventspace.run.RunReport;
import org.eventspace.run.TracedRun;
import org.eventspace.run.TraceReplay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * How faithful timed replay is (ScalaTrace's Figures 3 and 6, Ratn et al. §5.1 and §5.4), measured so that a shared,
 * noisy machine does not decide the answer ({@code bench replay}). P pairs, each four runs on the same transport, seconds
 * apart: the benchmark unrecorded, the benchmark traced, the replay of the trace it just wrote recorded the same way
 * ({@code trace replay --record}), and the same replay unrecorded. Each replay is set against the original run under the
 * same instrumentation, as ScalaTrace set its mpiP-instrumented replays against the mpiP-instrumented application
 * (§5.4): the recorded replay against the traced original (the headline, {@code timed_error_pct}) and the unrecorded
 * replay against the unrecorded program ({@code timed_error_vs_uninstrumented_pct}). A recorder's own time per call is
 * part of what a traced run took, and over TCP part of it lands in the calls (a host process's rank thread and its hop
 * service thread share a core), where no compute delta re-enacts it; an unrecorded replay set against a traced original
 * ({@code unrecorded_replay_vs_traced_pct}, reported beside) measures the recorder, not the replay. The load of a machine
 * other people use drifts over seconds, so the median over the pairs discounts the pairs the drift hit. Reported: every
 * pair, each error's median, interquartile range and distribution-free 95 % interval, what recording cost the original
 * and the replay, and the median of the originals' own run-to-run spread (the floor no replay can be judged below).
 */
public final class ReplayAccuracy {
    public static final String SCHEMA = "eventspace.bench-replay/2";

    private ReplayAccuracy() {
    }

    public static ObjectNode run(RunConfig config, TraceConfig trace, Replay.Compute compute, int pairs, ObjectMapper json,
                                 Consumer<String> progress) {
        if (pairs < 1) {
            throw new IllegalArgumentException("pairs must be >= 1, got " + pairs);
        }
        Path dir;
        try {
            dir = Files.createTempDirectory("eventspace-replay");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make a folder for the traces: " + e.getMessage(), e);
        }
        ObjectNode root = json.createObjectNode();
        root.put("schema", SCHEMA);
        root.put("benchmark", config.benchmark().label());
        root.put("ranks", config.ranks());
        root.put("hosts", config.hosts());
        root.put("transport", config.transport().label());
        root.put("time_encoding", trace.encoding().fileName());
        root.put("compute", compute.name().toLowerCase(Locale.ROOT));
        ArrayNode list = root.putArray("pairs");
        double[] errors = new double[pairs];
        double[] timedErrors = new double[pairs];
        double[] originals = new double[pairs];
        double[] plainErrors = new double[pairs];
        double[] unrecordedVsTraced = new double[pairs];
        double[] tracingCosts = new double[pairs];
        double[] replayTracingCosts = new double[pairs];
        boolean ok = true;
        try {
            for (int p = 0; p < pairs; p++) {
                Path file = dir.resolve("pair-" + p + ".trace.json");
                // The program as it runs unrecorded, the baseline ScalaTrace's replay figures compare against (§5.1,
                // Figure 3: "the uninstrumented application"): its timed loop, the span the trace's mark opens.
                // The machine's load around the pair: a pair measured while other work had the cores measures that work.
                double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
                RunReport plain = RunEngine.run(config);
                ok &= plain.resultOk();
                double plainTimed = plain.wallSeconds();
                TracedRun.Result recorded = TracedRun.run(config, trace, file);
                ok &= recorded.report().resultOk();
                recorded.requireTrace();
                TraceFile.Recorded read;
                try {
                    read = TraceFile.readRecorded(file);
                } catch (IOException | TraceFormatException e) {
                    throw new IllegalStateException("the trace just written cannot be read back: " + e.getMessage(), e);
                }
                Trace t = read.trace();
                // The replay runs on the job the original ran on, which is what trace replay takes from the trace's
                // recorded conditions: the two commands measure the same thing (the conditions say so, or the pair
                // does not count as exact).
                List<String> differ = read.conditions() == null ? List.of("no conditions recorded")
                        : read.conditions().differences(TraceReplay.conditionsOf(config.job()));
                ok &= differ.isEmpty();
                // Recorded as the original was (trace replay --record), then bare.
                TraceReplay.Result replay = TraceReplay.run(config.job(), t, file, compute, Duration.ofHours(1), trace);
                ok &= replay.errors().isEmpty() && replay.calls() == t.eventsRecorded() && replay.recorded() != null
                        && replay.recorded().eventsRecorded() == t.eventsRecorded();
                TraceReplay.Result bare = TraceReplay.run(config.job(), t, file, compute, Duration.ofHours(1));
                ok &= bare.errors().isEmpty() && bare.calls() == t.eventsRecorded();
                double original = t.wallNanos() / 1e9;
                double replayed = replay.wallNanos() / 1e9;
                // Beside the whole spans, the timed phase against the timed phase where the trace marks one (the
                // benchmarks do, after their warm-up): warm code on both sides, the warm-up's JIT left out.
                boolean timed = t.timedNanos() >= 0 && replay.timedNanos() >= 0 && bare.timedNanos() >= 0;
                double timedOriginal = timed ? t.timedNanos() / 1e9 : Double.NaN;
                double timedReplayed = timed ? replay.timedNanos() / 1e9 : Double.NaN;
                double timedBare = timed ? bare.timedNanos() / 1e9 : Double.NaN;
                timedErrors[p] = timed ? percent(timedReplayed, timedOriginal) : Double.NaN;
                errors[p] = percent(replayed, original);
                originals[p] = original;
                ObjectNode o = list.addObject();
                o.put("original_wall_s", original);
                o.put("replay_wall_s", replayed);
                differ.forEach(o.putArray("conditions_differ")::add);
                plainErrors[p] = timed ? percent(timedBare, plainTimed) : Double.NaN;
                unrecordedVsTraced[p] = timed ? percent(timedBare, timedOriginal) : Double.NaN;
                tracingCosts[p] = timed ? percent(timedOriginal, plainTimed) : Double.NaN;
                replayTracingCosts[p] = timed ? percent(timedReplayed, timedBare) : Double.NaN;
                if (timed) {
                    o.put("timed_original_s", timedOriginal);
                    o.put("timed_replay_s", timedReplayed);
                    o.put("timed_error_pct", timedErrors[p]);
                    o.put("uninstrumented_timed_s", plainTimed);
                    o.put("unrecorded_timed_replay_s", timedBare);
                    o.put("timed_error_vs_uninstrumented_pct", plainErrors[p]);
                    o.put("unrecorded_replay_vs_traced_pct", unrecordedVsTraced[p]);
                    o.put("tracing_cost_pct", tracingCosts[p]);
                    o.put("replay_tracing_cost_pct", replayTracingCosts[p]);
                }
                o.put("error_pct", errors[p]);
                o.put("calls", replay.calls());
                o.put("events_recorded", t.eventsRecorded());
                // Where the two differ: per operation, the communicate deltas the original recorded against the time
                // the recorded replay's calls took, both summed over the ranks (the compute deltas are re-enacted to
                // their sum).
                ObjectNode byOp = o.putObject("by_op");
                long recordedCompute = 0;
                long recordedCommunicate = 0;
                long replayedCommunicate = 0;
                for (var e : t.deltaSums().entrySet()) {
                    long replayedNs = replay.communicateNanos().getOrDefault(e.getKey(), 0L);
                    byOp.putObject(e.getKey().fileName())
                            .put("recorded_compute_s", e.getValue()[0] / 1e9)
                            .put("recorded_communicate_s", e.getValue()[1] / 1e9)
                            .put("replayed_communicate_s", replayedNs / 1e9);
                    recordedCompute += e.getValue()[0];
                    recordedCommunicate += e.getValue()[1];
                    replayedCommunicate += replayedNs;
                }
                o.put("recorded_compute_s", recordedCompute / 1e9);
                o.put("recorded_communicate_s", recordedCommunicate / 1e9);
                o.put("replayed_communicate_s", replayedCommunicate / 1e9);
                List<String> replayErrors = new java.util.ArrayList<>(replay.errors());
                bare.errors().forEach(e -> replayErrors.add("unrecorded replay: " + e));
                if (!replayErrors.isEmpty()) {
                    o.set("errors", json.valueToTree(replayErrors));
                }
                double loadAfter = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
                o.put("load_average_before", loadBefore);
                o.put("load_average_after", loadAfter);
                progress.accept(String.format(Locale.ROOT, "pair %d/%d (load average %.1f → %.1f): original %.3f s, replay %.3f s, "
                                + "error %+.1f %%%s; calls' time summed over ranks: recorded %.3f s, replayed %.3f s (%s)", p + 1,
                        pairs, loadBefore, loadAfter, original,
                        replayed, errors[p], timed ? String.format(Locale.ROOT, " (timed phase, both recorded %.3f → %.3f s, "
                                + "%+.1f %%; both unrecorded %.3f → %.3f s, %+.1f %%; recording cost the original %+.1f %%, "
                                + "the replay %+.1f %%)", timedOriginal, timedReplayed, timedErrors[p], plainTimed, timedBare,
                                plainErrors[p], tracingCosts[p], replayTracingCosts[p]) : "",
                        recordedCommunicate / 1e9, replayedCommunicate / 1e9, opLine(byOp)));
                Files.deleteIfExists(file);
            }
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        putMedianAndIqr(root, "error_pct", errors);
        double[] timedKnown = Arrays.stream(timedErrors).filter(v -> !Double.isNaN(v)).toArray();
        if (timedKnown.length == pairs) {
            putMedianAndIqr(root, "timed_error_pct", timedKnown);
            putMedianAndIqr(root, "timed_error_vs_uninstrumented_pct", plainErrors);
            putMedianAndIqr(root, "unrecorded_replay_vs_traced_pct", unrecordedVsTraced);
            putMedianAndIqr(root, "tracing_cost_pct", tracingCosts);
            putMedianAndIqr(root, "replay_tracing_cost_pct", replayTracingCosts);
        }
        // The originals' own spread: |a − b| / mean over consecutive originals, in per cent.
        if (pairs >= 2) {
            double[] spread = new double[pairs - 1];
            for (int p = 1; p < pairs; p++) {
                spread[p - 1] = 100 * Math.abs(originals[p] - originals[p - 1]) / ((originals[p] + originals[p - 1]) / 2);
            }
            root.put("original_spread_pct_median", Median.of(spread));
        }
        root.put("result_ok", ok);
        RunReport.putMachine(root);
        return root;
    }

    /** (value − baseline) / baseline in per cent. */
    private static double percent(double value, double baseline) {
        return 100 * (value - baseline) / baseline;
    }

    /** "allreduce_double 1.20 → 0.90 s, send …": each operation's recorded and replayed time. */
    private static String opLine(ObjectNode byOp) {
        StringBuilder b = new StringBuilder();
        byOp.fields().forEachRemaining(e -> b.append(b.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT,
                "%s %.3f → %.3f s", e.getKey(), e.getValue().path("recorded_communicate_s").asDouble(),
                e.getValue().path("replayed_communicate_s").asDouble())));
        return b.toString();
    }

    /**
     * {@code NAME_median}, {@code NAME_iqr} ([25th, 75th] percentile) and, from 6 values on, {@code NAME_median_ci95}
     * (the distribution-free interval of the median, {@link MedianInterval}, with its exact coverage) of {@code values}
     * into {@code root}. The interval, not the median alone, says whether a replay is off: this machine runs some whole
     * runs 25 % slower than the rest, originals and replays alike, so a pair's error is now and then ±25 % and a median
     * of five pairs lands several per cent either side of where the replay is.
     */
    private static void putMedianAndIqr(ObjectNode root, String name, double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        root.put(name + "_median", Median.of(sorted.clone()));
        root.putArray(name + "_iqr").add(Quantile.ofSorted(sorted, 0.25)).add(Quantile.ofSorted(sorted, 0.75));
        MedianInterval ci = MedianInterval.of(sorted, 0.95);
        if (ci.known()) {
            root.putObject(name + "_median_ci95").put("lower", ci.lower()).put("upper", ci.upper())
                    .put("coverage", ci.coverage());
        }
    }

    /** "; the median lies in −1.2 … +2.0 % (96.1 % sure, …)" from {@code NAME_median_ci95}, or why there is none. */
    private static String interval(ObjectNode r, String name) {
        JsonNode ci = r.path(name + "_median_ci95");
        if (ci.isMissingNode()) {
            return "; too few pairs for a 95 % interval of the median (6 at least)";
        }
        return String.format(Locale.ROOT, "; the median lies in %+.1f … %+.1f %% (%.1f %% sure, distribution-free)",
                ci.path("lower").asDouble(), ci.path("upper").asDouble(), 100 * ci.path("coverage").asDouble());
    }

    public static String summary(ObjectNode r) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "replay accuracy, %s: %d ranks on %d host(s), %s, time encoding %s, compute %s, %d pairs%n",
                r.path("benchmark").asText(), r.path("ranks").asInt(), r.path("hosts").asInt(), r.path("transport").asText(),
                r.path("time_encoding").asText(), r.path("compute").asText(), r.path("pairs").size()));
        out.append(String.format(Locale.ROOT, "  error (replay − original) / original, both recorded: median %+.1f %% (IQR %+.1f … "
                + "%+.1f %%%s)%n", r.path("error_pct_median").asDouble(), r.path("error_pct_iqr").get(0).asDouble(),
                r.path("error_pct_iqr").get(1).asDouble(), interval(r, "error_pct")));
        if (r.has("timed_error_pct_median")) {
            out.append(String.format(Locale.ROOT, "  timed phase only (the warm-up's calls re-issued first, untimed), both recorded: "
                    + "median %+.1f %% (IQR %+.1f … %+.1f %%%s)%n", r.path("timed_error_pct_median").asDouble(),
                    r.path("timed_error_pct_iqr").get(0).asDouble(), r.path("timed_error_pct_iqr").get(1).asDouble(),
                    interval(r, "timed_error_pct")));
        }
        if (r.has("timed_error_vs_uninstrumented_pct_median")) {
            out.append(String.format(Locale.ROOT, "  timed phase, both unrecorded (ScalaTrace's uninstrumented baseline): median "
                    + "%+.1f %% (IQR %+.1f … %+.1f %%%s)%n",
                    r.path("timed_error_vs_uninstrumented_pct_median").asDouble(),
                    r.path("timed_error_vs_uninstrumented_pct_iqr").get(0).asDouble(),
                    r.path("timed_error_vs_uninstrumented_pct_iqr").get(1).asDouble(),
                    interval(r, "timed_error_vs_uninstrumented_pct")));
            out.append(String.format(Locale.ROOT, "  recording cost the original %+.1f %% and the replay %+.1f %% (medians); an "
                    + "unrecorded replay against the traced original: %+.1f %% (that is the recorder, not the replay)%n",
                    r.path("tracing_cost_pct_median").asDouble(), r.path("replay_tracing_cost_pct_median").asDouble(),
                    r.path("unrecorded_replay_vs_traced_pct_median").asDouble()));
        }
        if (r.has("original_spread_pct_median")) {
            out.append(String.format(Locale.ROOT, "  two originals in a row differ by %.1f %% (median): the floor of this machine now%n",
                    r.path("original_spread_pct_median").asDouble()));
        }
        out.append("  calls: ").append(r.path("result_ok").asBoolean() ? "every recorded call re-issued, results exact"
                : "MISSING CALLS OR WRONG RESULTS").append('\n');
        return out.toString();
    }
}
