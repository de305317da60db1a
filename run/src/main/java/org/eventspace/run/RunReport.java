package org.eventspace.run;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.HdrHistogram.Histogram;
import org.eventspace.comm.launch.LaunchPhases;
import org.eventspace.events.CollectorPlacement;
import org.eventspace.events.CollectorSettings;
import org.eventspace.job.HostTrace;
import org.eventspace.job.ScopeSummary;
import org.eventspace.monitor.MonitorSummary;
import org.eventspace.monitor.model.RunModel;
import org.eventspace.monitor.model.RunText;
import org.eventspace.net.TrafficMatrix;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The outcome of one run, merged over all ranks: the {@code eventspace.run/2} JSON document (the run model,
 * {@link RunModel}, with this kind's blocks) and its
 * human-readable summary.
 *
 * <p>Mean latency is wall time / iterations of the slowest rank (the way the Open MPI baseline reports it,
 * so the two compare), except for compute-gsum, whose iterations include the sort: there it is the mean of
 * the timed allreduce calls; p50/p99/max come from every rank's per-operation histogram merged.
 *
 * <p>With collectors on, {@code collectors} reports what the event spaces recorded ({@link HostTrace} per host):
 * {@code count} collector nodes in the pathmap, {@code tuples_written} over the whole run summed over hosts,
 * {@code bytes_per_call} the trace bytes (40 B a tuple) recorded per timed call summed over hosts, its maximum
 * over hosts {@code bytes_per_call_busiest_host} (the paper's 252 bytes, §6.1), and
 * {@code buffer_bytes_per_host} the most any host allocated for its buffers. With collectors off it is
 * {@code {"count": 0}}.
 */
public final class RunReport {
    public static final String SCHEMA = RunModel.SCHEMA;

    private final RunConfig config;
    private final List<RankResult> ranks;
    private final Histogram merged = RankResult.newHistogram();
    private final double meanUs;
    private final double iterationUs;
    private final int sortLength;
    private final JsonNode scope;
    private final JsonNode monitors;
    private final double wallSeconds;
    private final boolean resultOk;
    private final double computeFraction;
    private final List<String> errors = new ArrayList<>();
    /** Errors the text summary prints, at most, and the characters of each: it must fit a screen at any scale. */
    static final int SHOWN_ERRORS = 8;
    static final int SHOWN_ERROR_CHARS = 300;
    private final List<HostTrace> traces;
    private final int collectorCount;
    private final TrafficMatrix traffic;
    private final LaunchPhases launch;

    public RunReport(RunConfig config, List<RankResult> ranks) {
        this(config, ranks, List.of());
    }

    /** A report with errors found outside the ranks (a host process that died, a malformed result). */
    public RunReport(RunConfig config, List<RankResult> ranks, List<String> outsideErrors) {
        this(config, ranks, outsideErrors, List.of());
    }

    /** A report with what each host's event space recorded (empty with collectors off). */
    public RunReport(RunConfig config, List<RankResult> ranks, List<String> outsideErrors, List<HostTrace> traces) {
        this(config, ranks, outsideErrors, traces, null);
    }

    /** With the {@code scope} block the front-end's {@link org.eventspace.job.ScopeFrontEnd} reported, or null without a scope. */
    public RunReport(RunConfig config, List<RankResult> ranks, List<String> outsideErrors, List<HostTrace> traces,
                     JsonNode scope) {
        this(config, ranks, outsideErrors, traces, scope, null);
    }

    /** With the {@code monitors} block ({@link org.eventspace.monitor.MonitorSnapshot#report}), or null without monitors. */
    public RunReport(RunConfig config, List<RankResult> ranks, List<String> outsideErrors, List<HostTrace> traces,
                     JsonNode scope, JsonNode monitors) {
        this(config, ranks, outsideErrors, traces, scope, monitors, null);
    }

    /** With the communication matrix the transports counted ({@code --traffic}), or null when the run counted none. */
    public RunReport(RunConfig config, List<RankResult> ranks, List<String> outsideErrors, List<HostTrace> traces,
                     JsonNode scope, JsonNode monitors, TrafficMatrix traffic) {
        this(config, ranks, outsideErrors, traces, scope, monitors, traffic, null);
    }

    /** With how long the host processes' start, run and end took ({@link LaunchPhases}), or null in one JVM. */
    public RunReport(RunConfig config, List<RankResult> ranks, List<String> outsideErrors, List<HostTrace> traces,
                     JsonNode scope, JsonNode monitors, TrafficMatrix traffic, LaunchPhases launch) {
        this.config = config;
        this.launch = launch;
        this.traffic = traffic;
        if (config.job().traffic() != null && traffic == null) {
            errors.add("the traffic counters reported nothing");
        }
        this.scope = scope;
        this.monitors = monitors;
        if (config.monitoring().enabled() && monitors == null) {
            errors.add("the monitors reported nothing");
        }
        this.traces = List.copyOf(traces);
        this.collectorCount = config.collectors() ? CollectorPlacement.count(config.pathmap()) : 0;
        errors.addAll(outsideErrors);
        if (config.scope() != null && scope == null) {
            errors.add("the event scope's front-end reported nothing");
        } else if (scope != null && scope.hasNonNull("error")) {
            errors.add("scope: " + scope.get("error").asText());
        }
        this.ranks = List.copyOf(ranks);
        long maxWall = 0;
        double worstPerOp = 0;
        long compute = 0;
        long wallSum = 0;
        int sort = 0;
        boolean ok = ranks.size() == config.ranks();
        if (!ok) {
            errors.add("expected results from " + config.ranks() + " ranks, got " + ranks.size());
        }
        for (RankResult r : ranks) {
            ok &= r.resultOk();
            if (r.error() != null) {
                errors.add("rank " + r.rank() + ": " + r.error());
            } else if (!r.resultOk()) {
                errors.add("rank " + r.rank() + ": got a wrong result");
            }
            if (r.iterations() > 0) {
                merged.add(r.latencies());
                maxWall = Math.max(maxWall, r.wallNanos());
                double perOp = (double) r.wallNanos() / r.iterations();
                if (config.benchmark() == Workload.PINGPONG) {
                    perOp /= 2;
                }
                worstPerOp = Math.max(worstPerOp, perOp);
                compute += r.computeNanos();
                wallSum += r.wallNanos();
                sort = Math.max(sort, r.sortLength());
            }
        }
        this.resultOk = ok && errors.isEmpty();
        this.iterationUs = worstPerOp / 1_000.0;
        // compute-gsum's iterations include the sort; its allreduce latency is the per-call mean.
        this.meanUs = config.benchmark() == Workload.COMPUTE_GSUM ? merged.getMean() / 1_000.0 : iterationUs;
        this.wallSeconds = maxWall / 1e9;
        this.computeFraction = wallSum == 0 ? 0 : (double) compute / wallSum;
        this.sortLength = sort;
    }

    /** The communication matrix of a run with {@code --traffic}, or null. */
    public TrafficMatrix traffic() {
        return traffic;
    }

    /** compute-gsum: ints each sort took (the ranks agree on it); 0 for other benchmarks. */
    public int sortLength() {
        return sortLength;
    }

    /** The {@code monitors} block, or null for a run without monitors. */
    public JsonNode monitors() {
        return monitors;
    }

    /** The {@code scope} block the front-end reported, or null for a run without a scope. */
    public JsonNode scope() {
        return scope;
    }

    /** The slowest rank's timed loop (after its warm-up), seconds. */
    public double wallSeconds() {
        return wallSeconds;
    }

    public boolean resultOk() {
        return resultOk;
    }

    public double meanUs() {
        return meanUs;
    }

    public double percentileUs(double p) {
        return merged.getValueAtPercentile(p) / 1_000.0;
    }

    /** Every rank's result, by rank. */
    public List<RankResult> ranks() {
        return ranks;
    }

    public List<String> errors() {
        return List.copyOf(errors);
    }

    public RunConfig config() {
        return config;
    }

    /** What each host's event space recorded, by host; empty with collectors off. */
    /** Every rank's own result, as the ranks reported it. */
    public List<RankResult> rankResults() {
        return ranks;
    }

    public List<HostTrace> traces() {
        return traces;
    }

    /** Tuples the bounded buffers overwrote over the run, summed over hosts: what a post-mortem dump cannot see. */
    public long tuplesOverwritten() {
        return traces.stream().mapToLong(HostTrace::overwritten).sum();
    }

    public long tuplesWritten() {
        return traces.stream().mapToLong(HostTrace::tuplesWritten).sum();
    }

    /** Trace bytes recorded per timed call, summed over the hosts that know it; -1 if none does. */
    public double bytesPerCall() {
        double sum = -1;
        for (HostTrace t : traces) {
            double b = t.bytesPerCall(config.iterations());
            if (b >= 0) {
                sum = Math.max(sum, 0) + b;
            }
        }
        return sum;
    }

    public double bytesPerCallBusiestHost() {
        return traces.stream().mapToDouble(t -> t.bytesPerCall(config.iterations())).max().orElse(-1);
    }

    public long bufferBytesPerHost() {
        return traces.stream().mapToLong(HostTrace::bufferBytes).max().orElse(0);
    }

    private void collectorsJson(ObjectNode root) {
        ObjectNode collectors = root.putObject("collectors");
        collectors.put("count", collectorCount);
        if (config.collectors()) {
            CollectorSettings settings = config.collectorSettings();
            ArrayNode kinds = collectors.putArray("kinds");
            settings.kinds().stream().sorted().forEach(kinds::add);
            ArrayNode trees = collectors.putArray("trees");
            settings.trees().stream().sorted().forEach(trees::add);
        }
        if (!config.collectors()) {
            return;
        }
        collectors.put("tuples_written", tuplesWritten());
        collectors.put("tuples_overwritten", tuplesOverwritten());
        putBytes(collectors, "bytes_per_call", bytesPerCall());
        putBytes(collectors, "bytes_per_call_busiest_host", bytesPerCallBusiestHost());
        collectors.put("buffer_bytes_per_host", bufferBytesPerHost());
        collectors.put("hosts_reporting", traces.size());
        if (config.traceDump() != null) {
            collectors.put("trace_dump", config.traceDump().toString());
        } else {
            collectors.putNull("trace_dump");
        }
        ArrayNode hosts = collectors.putArray("per_host");
        for (HostTrace t : traces) {
            ObjectNode h = hosts.addObject();
            h.put("host", t.host());
            h.put("collectors", t.collectors());
            h.put("tuples_written", t.tuplesWritten());
            h.put("tuples_overwritten", t.overwritten());
            putBytes(h, "bytes_per_call", t.bytesPerCall(config.iterations()));
            h.put("buffer_bytes", t.bufferBytes());
        }
    }

    /** The run as the one run model: what {@link #toJson} writes at the top level, and every view reads. */
    public RunModel model() {
        return WorkloadModel.of(this);
    }

    /** Whether any rank finished its timed iterations, so that the latency figures describe something. */
    public boolean measured() {
        return merged.getTotalCount() > 0;
    }

    private void putMeasured(ObjectNode node, String field, double value) {
        if (measured()) {
            node.put(field, value);
        } else {
            node.putNull(field);
        }
    }

    private static void putBytes(ObjectNode node, String field, double bytes) {
        if (bytes < 0) {
            node.putNull(field);
        } else {
            node.put(field, Math.round(bytes * 10) / 10.0);
        }
    }

    /** The fields that say what was run, shared by every report about runs. */
    public static void putConfig(ObjectNode root, RunConfig config) {
        root.put("benchmark", config.benchmark().label());
        root.put("ranks", config.ranks());
        root.put("hosts", config.hosts());
        root.put("clusters", config.spec().topology().clusters().size());
        if (config.job().extension() != null) {
            // The layer over the trees (run --wan: the link file), so a report says what the ranks' hops went through.
            root.put(config.job().extension().name(), config.job().extension().argument());
        }
        root.put("transport", config.transport().label());
        root.put("tree", config.spec().shape().toString());
        root.put("trees", config.spec().trees());
        root.put("iterations", config.iterations());
        root.put("warmup", config.warmup());
        root.put("warmup_s", config.warmupTime().toMillis() / 1000.0);
        root.put("payload_bytes", config.payloadWords() * 8);
    }

    public ObjectNode toJson(ObjectMapper json) {
        RunModel model = model();
        ObjectNode root = model.toJson(json);
        putConfig(root, config);
        putMeasured(root, "wall_s", wallSeconds);
        ObjectNode latency = root.putObject(config.benchmark() == Workload.PINGPONG ? "pingpong_us"
                : config.benchmark() == Workload.ALLTOALL ? "alltoall_us" : "allreduce_us");
        // A run in which no rank finished its timed iterations measured nothing: its figures are absent, not zero.
        putMeasured(latency, "mean", meanUs);
        putMeasured(latency, "p50", percentileUs(50));
        putMeasured(latency, "p99", percentileUs(99));
        putMeasured(latency, "max", merged.getMaxValue() / 1_000.0);
        if (config.benchmark() == Workload.COMPUTE_GSUM) {
            putMeasured(root, "compute_fraction", computeFraction);
            putMeasured(root, "iteration_us", iterationUs);
            root.put("sort_length", sortLength);
        }
        collectorsJson(root);
        if (scope != null) {
            root.set("scope", scope);
        }
        if (monitors != null) {
            root.set("monitors", monitors);
        }
        if (config.faults().any()) {
            ObjectNode faults = root.putObject("faults");
            faults.put("slow_rank", config.faults().slowRank());
            faults.put("slow_us", config.faults().slowMicros());
            faults.put("noise", config.faults().noise());
            faults.put("noise_us", config.faults().noiseMicros());
        }
        if (launch != null) {
            launchJson(root.putObject("launch"), launch);
        }
        putMachine(root);
        root.put("date", Instant.now().toString());
        return root;
    }

    /**
     * {@code "launch": {hosts, phases: [{phase, s, end_s, host}], result_bytes, hello_after_start_s: {median, max},
     * summary}}, the summary being the text summary's line (the static report prints it).
     */
    static void launchJson(ObjectNode into, LaunchPhases launch) {
        into.put("hosts", launch.hosts());
        ArrayNode phases = into.putArray("phases");
        for (LaunchPhases.Phase p : launch.phases()) {
            ObjectNode phase = phases.addObject();
            phase.put("phase", p.name());
            phase.put("s", tenthsOfMs(p.seconds()));
            phase.put("end_s", tenthsOfMs(p.endS()));
            if (p.host() >= 0) {
                phase.put("host", p.host());
            } else {
                phase.putNull("host");
            }
        }
        into.put("result_bytes", launch.resultBytes());
        if (!Double.isNaN(launch.helloMedianS())) {
            ObjectNode hello = into.putObject("hello_after_start_s");
            hello.put("median", tenthsOfMs(launch.helloMedianS()));
            hello.put("max", tenthsOfMs(launch.helloMaxS()));
        }
        into.put("summary", launchLine(launch).strip());
    }

    /** {@code seconds} rounded to 0.1 ms, finer than any phase of a launch needs. */
    private static double tenthsOfMs(double seconds) {
        return Math.round(seconds * 1e4) / 1e4;
    }

    /**
     * One line: each phase of the host processes' start and end with its time, the host that ended it where it is the
     * slowest one's, and the bytes of results; the run phase is the work itself, printed above.
     */
    static String launchLine(LaunchPhases launch) {
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  start and end of %d host processes:",
                launch.hosts()));
        String sep = " ";
        for (LaunchPhases.Phase p : launch.phases()) {
            line.append(sep).append(p.name()).append(String.format(Locale.ROOT, " %.2f s", p.seconds()));
            if (p.name().equals(LaunchPhases.START) && !Double.isNaN(launch.helloMedianS())) {
                line.append(String.format(Locale.ROOT, " (a process to its hello: median %.2f s, max %.2f s)",
                        launch.helloMedianS(), launch.helloMaxS()));
            } else if (p.name().equals(LaunchPhases.RESULTS)) {
                line.append(String.format(Locale.ROOT, " (%.1f KiB)", launch.resultBytes() / 1024.0));
            }
            if (p.host() >= 0 && launch.hosts() > 1 && !p.name().equals(LaunchPhases.RUN)) {
                line.append(", last host ").append(p.host());
            }
            sep = "; ";
        }
        if (launch.phases().isEmpty()) {
            line.append(" no process registered");
        }
        return line.append('\n').toString();
    }

    /** {@code "machine": {cores, java, os}}, as every benchmark document has it. */
    public static void putMachine(ObjectNode root) {
        ObjectNode machine = root.putObject("machine");
        machine.put("cores", Runtime.getRuntime().availableProcessors());
        machine.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        machine.put("os", System.getProperty("os.name") + " " + System.getProperty("os.arch"));
    }

    /** compute-gsum: the slowest rank's time per iteration (sort + allreduce) in µs; for gsum the same as {@link #meanUs}. */
    public double iterationUs() {
        return iterationUs;
    }

    private static String bytes(double perCall) {
        return perCall < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f B", perCall);
    }

    /**
     * What the result check found: every rank exact; some rank got a wrong value (the only "WRONG"); or, when ranks
     * failed or are missing, how many of them were checked, so a failed run is not mistaken for a wrong answer.
     */
    private String resultsVerdict() {
        if (resultOk) {
            return "every rank got the exact expected value";
        }
        long wrong = ranks.stream().filter(r -> r.error() == null && !r.resultOk()).count();
        long exact = ranks.stream().filter(RankResult::resultOk).count();
        if (wrong > 0) {
            return "WRONG: " + wrong + " of " + config.ranks() + " ranks got a wrong value";
        }
        return "not all checked: the run failed (" + exact + " of " + config.ranks() + " ranks finished with the exact value)";
    }

    /** The summary for people: every number with its unit. */
    public String summary() {
        String op = config.benchmark() == Workload.PINGPONG ? "one-way latency"
                : config.benchmark() == Workload.SOR ? "iteration time"
                : config.benchmark() == Workload.ALLTOALL ? "all-to-all time" : "allreduce latency";
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%s: %d ranks on %d host(s), transport %s, tree %s × %d, %d iterations%n",
                config.benchmark().label(), config.ranks(), config.hosts(), config.transport(), config.spec().shape(),
                config.spec().trees(), config.iterations()));
        if (measured()) {
            out.append(String.format(Locale.ROOT, "  %s: mean %.2f µs, p50 %.2f µs, p99 %.2f µs, max %.2f µs%n", op, meanUs,
                    percentileUs(50), percentileUs(99), merged.getMaxValue() / 1_000.0));
        } else {
            out.append(String.format(Locale.ROOT, "  %s: not measured (no rank finished its timed iterations)%n", op));
        }
        if (measured()) {
            out.append(String.format(Locale.ROOT, "  wall time: %.3f s%n", wallSeconds));
        } else {
            out.append("  wall time: not measured\n");
        }
        if (config.benchmark() == Workload.COMPUTE_GSUM && measured()) {
            out.append(String.format(Locale.ROOT, "  iteration (sort + allreduce): %.2f µs, compute share: %.1f %% of rank time%n",
                    iterationUs, computeFraction * 100));
        }
        if (config.collectors()) {
            out.append(String.format(Locale.ROOT, "  collectors: %d, %d tuples written, %s per call (busiest host %s), "
                    + "buffers %d KiB per host%s%n", collectorCount, tuplesWritten(), bytes(bytesPerCall()),
                    bytes(bytesPerCallBusiestHost()), bufferBytesPerHost() / 1024,
                    config.traceDump() != null ? ", trace dump in " + config.traceDump() : ""));
            long overwritten = tuplesOverwritten();
            if (overwritten > 0) {
                out.append(String.format(Locale.ROOT, "  trace buffers: %d of the %d tuples were overwritten by newer ones "
                        + "(%.1f %%): a trace dump keeps only the newest per collector%s%n", overwritten, tuplesWritten(),
                        100.0 * overwritten / Math.max(1, tuplesWritten()), scope != null
                                ? String.format(Locale.ROOT, "; the event scope read all but %d of those written while it was open",
                                        scope.path("records_dropped").asLong())
                                : " (--collector-capacity, or an event scope reading while the job runs, keeps more)"));
            }
        } else {
            out.append("  collectors: off\n");
        }
        if (scope != null) {
            out.append(ScopeSummary.of(scope));
        }
        if (monitors != null) {
            out.append(MonitorSummary.of(monitors, config.pathmap(), 40));
        }
        RunModel model = model();
        if (model.verdict().load() != null && model.verdict().load().oversubscribed()) {
            out.append("  warning: ").append(model.verdict().load().warning()).append('\n');
        }
        if (monitors != null) {
            out.append("  ").append(RunText.coverage(model.coverage())).append('\n');
        }
        out.append("  results: ").append(resultsVerdict()).append('\n');
        if (launch != null) {
            out.append(launchLine(launch));
        }
        // At scale one failure echoes from every host: the first few, each on one line, and a count; all are in the JSON.
        for (int i = 0; i < Math.min(errors.size(), SHOWN_ERRORS); i++) {
            String e = errors.get(i);
            out.append("  error: ").append(e.length() <= SHOWN_ERROR_CHARS ? e : e.substring(0, SHOWN_ERROR_CHARS) + "…")
                    .append('\n');
        }
        if (errors.size() > SHOWN_ERRORS) {
            out.append("  … ").append(errors.size() - SHOWN_ERRORS).append(" more errors (all ").append(errors.size())
                    .append(" are in the JSON report's errors)\n");
        }
        return out.toString();
    }
}
