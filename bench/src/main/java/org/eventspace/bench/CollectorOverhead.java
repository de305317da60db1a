package org.eventspace.bench;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.Function;

import org.eventspace.base.stats.Quantile;
import org.eventspace.job.JobTransport;
import org.eventspace.run.Workload;
import org.eventspace.run.RunEngine;
import org.eventspace.run.RunConfig;
import org.eventspace.run.RunReport;
import org.eventspace.run.ForkedRun;
import org.eventspace.run.Monitoring;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What the event collectors cost a whole benchmark (our bars: at most 1 % over TCP; the EventSpace paper §6.1 measured
 * 0–1 %): the same run with collectors off
 * and on, alternated {@code repeats} times (off, on, off, on, …) so that the machine's slow drifts hit both
 * sides alike, as the {@code eventspace.bench-overhead/1} document.
 *
 * <p>Each pair gives {@code (on − off) / off × 100} of the allreduce mean ({@link RunReport#meanUs}); the
 * document quotes the median over the pairs, their minimum and maximum, and the interquartile range (the
 * 75th minus the 25th percentile of the pairs, interpolated linearly between closest ranks) as the spread.
 * compute-gsum also gets the same for its iteration time (sort + allreduce, {@link RunReport#iterationUs}),
 * which is what an application sees. compute-gsum calibrates its sort in the first off-run and every later run
 * sorts that many ints (unless the config fixes a length), so off and on runs do the same work.
 *
 * <p>Before every run the machine's cache-to-cache round trip is probed ({@link CacheLineProbe}): these shared
 * VMs switch between a fast and a slow state (130 against 340 ns seen the same day), and a pair whose runs fell in
 * different states measures the switch, not the collectors. The document also gives the median over the pairs
 * whose two probes agree within {@value #SAME_STATE_RATIO}× ({@code overhead_pct_same_state}).
 *
 * <p>Not thread-safe; runs one benchmark at a time.
 */
public final class CollectorOverhead {
    public static final String SCHEMA = "eventspace.bench-overhead/1";
    /** Two probes within this ratio are the same state of the machine. */
    static final double SAME_STATE_RATIO = 1.3;

    private final RunConfig config;
    private final int repeats;
    private final Function<RunConfig, RunReport> runner;

    /**
     * Runs of the in-JVM transport each get a JVM of their own ({@link ForkedRun}), as TCP runs get fresh host
     * processes: runs that share a JVM share its JIT, and then the order of the runs shows in the figures.
     */
    public CollectorOverhead(RunConfig config, int repeats) {
        this(config, repeats, c -> c.transport() == JobTransport.JVM ? ForkedRun.run(c) : RunEngine.run(c));
    }

    /** With a runner of our own (tests). */
    public CollectorOverhead(RunConfig config, int repeats, Function<RunConfig, RunReport> runner) {
        if (config.benchmark() != Workload.GSUM && config.benchmark() != Workload.COMPUTE_GSUM) {
            throw new IllegalArgumentException("overhead is measured on gsum or compute-gsum, benchmark="
                    + config.benchmark().label());
        }
        if (repeats < 1) {
            throw new IllegalArgumentException("repeats must be >= 1, repeats=" + repeats);
        }
        this.config = config;
        this.repeats = repeats;
        this.runner = runner;
    }

    /** Runs off, on, off, on, … {@code repeats} times each and returns the document; one line per run to {@code progress}. */
    public ObjectNode run(ObjectMapper json, Consumer<String> progress) {
        boolean compute = config.benchmark() == Workload.COMPUTE_GSUM;
        double[] offUs = new double[repeats];
        double[] onUs = new double[repeats];
        double[] offIterationUs = new double[repeats];
        double[] onIterationUs = new double[repeats];
        double[] offProbeNs = new double[repeats];
        double[] onProbeNs = new double[repeats];
        boolean ok = true;
        List<String> errors = new ArrayList<>();
        JsonNode collectors = null;
        RunConfig base = config;
        // With monitors, the on-side runs them and their event scope; the off-side runs neither (nor the collectors).
        boolean monitored = config.monitoring().enabled();
        double gatherRate = 1;
        double scopeGatherRate = 1;
        double analysisCpuMs = 0;
        long tuplesMissed = 0;
        for (int rep = 0; rep < repeats; rep++) {
            for (boolean on : new boolean[] {false, true}) {
                (on ? onProbeNs : offProbeNs)[rep] = CacheLineProbe.roundTripNanos();
                RunReport report = runner.apply(on ? base
                        : base.withMonitoring(Monitoring.NONE, base.faults()).withCollectors(false));
                if (compute && base.sortLength() == 0 && report.sortLength() > 0) {
                    base = base.withSortLength(report.sortLength());
                }
                ok &= report.resultOk();
                for (String e : report.errors()) {
                    errors.add(String.format(Locale.ROOT, "repeat %d, collectors %s: %s", rep + 1, on ? "on" : "off", e));
                }
                (on ? onUs : offUs)[rep] = report.meanUs();
                (on ? onIterationUs : offIterationUs)[rep] = report.iterationUs();
                if (on) {
                    JsonNode whole = report.toJson(json);
                    collectors = whole.path("collectors");
                    if (monitored && report.monitors() != null) {
                        gatherRate = Math.min(gatherRate, report.monitors().path("gather_rate").asDouble(1));
                        tuplesMissed += report.monitors().path("tuples_missed").asLong();
                        analysisCpuMs += report.monitors().path("analysis").path("cpu_ms").asDouble() / repeats;
                    }
                    if (whole.path("scope").has("gather_rate")) {
                        scopeGatherRate = Math.min(scopeGatherRate, whole.path("scope").path("gather_rate").asDouble(1));
                    }
                }
                progress.accept(String.format(Locale.ROOT, "repeat %d/%d  collectors %-3s  cache line %4.0f ns  allreduce mean %9.3f µs%s%s",
                        rep + 1, repeats, on ? "on" : "off", (on ? onProbeNs : offProbeNs)[rep], report.meanUs(),
                        compute ? String.format(Locale.ROOT, "  iteration %9.3f µs", report.iterationUs()) : "",
                        report.resultOk() ? "" : "  WRONG RESULT"));
            }
        }
        ObjectNode root = json.createObjectNode();
        root.put("schema", SCHEMA);
        RunReport.putConfig(root, config);
        root.put("poll", config.poll().label());
        root.put("repeats", repeats);
        if (compute) {
            root.put("sort_length", base.sortLength());
        }
        root.put("metric", "allreduce_us.mean");
        boolean[] same = new boolean[repeats];
        ObjectNode probes = root.putObject("cache_line_round_trip_ns");
        ArrayNode offProbes = probes.putArray("off");
        ArrayNode onProbes = probes.putArray("on");
        for (int i = 0; i < repeats; i++) {
            offProbes.add(round(offProbeNs[i], 1));
            onProbes.add(round(onProbeNs[i], 1));
            double ratio = Math.max(offProbeNs[i], onProbeNs[i]) / Math.max(1e-9, Math.min(offProbeNs[i], onProbeNs[i]));
            same[i] = ratio <= SAME_STATE_RATIO;
        }
        putSeries(root, offUs, onUs, same);
        if (compute) {
            ObjectNode iteration = root.putObject("iteration");
            iteration.put("metric", "iteration_us");
            putSeries(iteration, offIterationUs, onIterationUs, same);
        }
        root.set("collectors", collectors);
        if (monitored) {
            ObjectNode m = root.putObject("monitors");
            ArrayNode kinds = m.putArray("kinds");
            config.monitoring().kinds().stream().map(k -> k.label()).sorted().forEach(kinds::add);
            m.put("coschedule", config.monitoring().coschedule().label());
            m.put("analysis", config.monitoring().analysis().label());
            m.put("gather", config.scope() != null ? config.scope().gather().toString() : "none");
            // Of the tuples the monitored collectors wrote, the share analysed (the worst on-run).
            m.put("gather_rate", gatherRate);
            m.put("tuples_missed", tuplesMissed);
            // Of what the scope's leaves had to read (results, or raw tuples for the central analysis), the share read.
            m.put("scope_gather_rate", scopeGatherRate);
            m.put("analysis_cpu_ms_mean", round(analysisCpuMs, 3));
        }
        root.put("result_ok", ok);
        ArrayNode errs = root.putArray("errors");
        errors.forEach(errs::add);
        RunReport.putMachine(root);
        root.put("date", Instant.now().toString());
        return root;
    }

    private static void putSeries(ObjectNode node, double[] offUs, double[] onUs, boolean[] sameState) {
        ArrayNode off = node.putArray("off_us");
        ArrayNode on = node.putArray("on_us");
        ArrayNode pairs = node.putArray("overhead_pct_pairs");
        double[] pct = new double[offUs.length];
        for (int i = 0; i < pct.length; i++) {
            pct[i] = (onUs[i] - offUs[i]) / offUs[i] * 100;
            off.add(round(offUs[i], 6));
            on.add(round(onUs[i], 6));
            pairs.add(round(pct[i], 3));
        }
        node.put("overhead_pct", round(Quantile.of(pct, 0.5), 3));
        node.put("overhead_pct_min", round(Quantile.of(pct, 0), 3));
        node.put("overhead_pct_max", round(Quantile.of(pct, 1), 3));
        node.put("overhead_pct_iqr", round(Quantile.of(pct, 0.75) - Quantile.of(pct, 0.25), 3));
        double[] same = new double[pct.length];
        int n = 0;
        for (int i = 0; i < pct.length; i++) {
            if (sameState[i]) {
                same[n++] = pct[i];
            }
        }
        node.put("pairs_same_state", n);
        if (n > 0) {
            node.put("overhead_pct_same_state", round(Quantile.of(Arrays.copyOf(same, n), 0.5), 3));
        } else {
            node.putNull("overhead_pct_same_state");
        }
    }

    private static double round(double value, int decimals) {
        double scale = Math.pow(10, decimals);
        return Math.round(value * scale) / scale;
    }

    /** The summary for people: every number with its unit. */
    public static String summary(JsonNode report) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "collector overhead, %s: %d ranks on %d host(s), transport %s, tree %s × %d, "
                        + "%d iterations, %d interleaved repeats (off, on, …)%n",
                report.path("benchmark").asText(), report.path("ranks").asInt(), report.path("hosts").asInt(),
                report.path("transport").asText(), report.path("tree").asText(), report.path("trees").asInt(),
                report.path("iterations").asInt(), report.path("repeats").asInt()));
        series(out, "allreduce mean", report);
        if (report.has("iteration")) {
            series(out, "iteration (sort + allreduce)", report.path("iteration"));
        }
        JsonNode m = report.path("monitors");
        if (m.has("gather_rate")) {
            out.append(String.format(Locale.ROOT, "  monitors %s, coschedule %s, analysis %s, gather %s: gather rate %.2f %% "
                            + "(%d tuples missed), scope gather rate %.2f %%, analysis CPU %.1f ms per run%n",
                    m.path("kinds"), m.path("coschedule").asText(), m.path("analysis").asText(), m.path("gather").asText(),
                    100 * m.path("gather_rate").asDouble(), m.path("tuples_missed").asLong(),
                    100 * m.path("scope_gather_rate").asDouble(), m.path("analysis_cpu_ms_mean").asDouble()));
        }
        JsonNode c = report.path("collectors");
        if (c.has("tuples_written")) {
            out.append(String.format(Locale.ROOT, "  collectors (last on-run): %d, %.1f B recorded per call (busiest host %.1f B), "
                            + "buffers %d KiB per host%n", c.path("count").asInt(), c.path("bytes_per_call").asDouble(),
                    c.path("bytes_per_call_busiest_host").asDouble(), c.path("buffer_bytes_per_host").asLong() / 1024));
        }
        out.append("  results: ").append(report.path("result_ok").asBoolean()
                ? "every rank got the exact expected value in every run" : "WRONG").append('\n');
        for (JsonNode e : report.path("errors")) {
            out.append("  error: ").append(e.asText()).append('\n');
        }
        return out.toString();
    }

    private static void series(StringBuilder out, String label, JsonNode node) {
        out.append(String.format(Locale.ROOT, "  %s: off %s µs, on %s µs%n", label, node.path("off_us"), node.path("on_us")));
        out.append(String.format(Locale.ROOT, "    overhead: median %+.2f %% (min %+.2f %%, max %+.2f %%, IQR %.2f %% points)%n",
                node.path("overhead_pct").asDouble(), node.path("overhead_pct_min").asDouble(),
                node.path("overhead_pct_max").asDouble(), node.path("overhead_pct_iqr").asDouble()));
        out.append(String.format(Locale.ROOT, "    pairs whose runs found the machine in the same state (cache-line probes within %.1f×): "
                        + "%d, median %s%n", SAME_STATE_RATIO, node.path("pairs_same_state").asInt(),
                node.path("overhead_pct_same_state").isNull() ? "n/a"
                        : String.format(Locale.ROOT, "%+.2f %%", node.path("overhead_pct_same_state").asDouble())));
    }
}
