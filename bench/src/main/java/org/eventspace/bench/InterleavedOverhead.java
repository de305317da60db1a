package org.eventspace.bench;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.eventspace.events.CollectorSettings;
import org.eventspace.trace.TraceConfig;
import org.eventspace.trace.TracingComm;
import org.eventspace.run.RunConfig;
import org.eventspace.run.RunReport;
import org.eventspace.run.Workload;
import org.eventspace.run.RunEngine;
import org.eventspace.run.RankResult;
import org.eventspace.run.TracedRun;
import org.eventspace.run.AlternatingComm;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.traffic.TrafficScope;
import org.eventspace.events.CollectorKind;
import org.eventspace.events.EventCollector;
import org.eventspace.base.stats.Median;
import org.eventspace.job.JobTransport;
import org.eventspace.net.TrafficMatrix;

/**
 * What monitoring costs, resolved to a fraction of a percent (`bench overhead --interleave BLOCK`): one job runs gsum
 * on two identical trees, collectors (and, with {@code --monitor}, the monitors' analysis) on tree 0 only, and every
 * rank alternates call by call between them ({@link Workload#GSUM_INTERLEAVED}), timing each call. Separate off and on
 * runs on these shared machines differ by ±15 points on their own; here both sides share the process, the moment and
 * the ranks, so the machine's drift cancels in each pair.
 *
 * <p>Per block k of B pairs: d_k = mean over ranks of (tree-0 time − tree-1 time), base_k = mean over ranks of tree-1
 * time; the overhead is the mean of 100 · d_k / base_k over the N blocks with a 95 % confidence interval of Student's t
 * (the blocks are the independent samples: each sums B pairs, so the calls' heavy tail averages out). What keeps
 * monitoring work of a tree-0 call out of the next tree-1 call: a collector's work is inside its call (two clock reads
 * and a tuple write); the monitors' analysis threads run asynchronously, so with {@code --coschedule none} their work
 * lands on both trees' calls and the difference understates it (the separate-runs method of {@link CollectorOverhead}
 * sees it whole); with {@code --coschedule i|ii} they are released by tree-0 greds only and a pass is short, so most
 * of it lands in tree-0 calls.
 */
public final class InterleavedOverhead {
    public static final String SCHEMA = "eventspace.bench-overhead-interleaved/1";

    private InterleavedOverhead() {
    }

    /**
     * {@code base} as gsum-interleaved in blocks of {@code block} pairs, collectors on tree 0 only; if {@code base}
     * counts traffic, only tree 0's messages are counted too, so the pairs measure collectors and counters together.
     */
    public static RunConfig config(RunConfig base, int block) {
        if (base.spec().trees() != 2) {
            throw new IllegalArgumentException("the interleaved overhead needs a job of 2 trees, it has " + base.spec().trees());
        }
        return monitorTree(base, 0).interleaved(block);
    }

    /** Collectors (and the traffic counters, if the run counts any) on tree {@code tree} only. */
    private static RunConfig monitorTree(RunConfig config, int tree) {
        RunConfig c = config.withCollectorSettings(CollectorSettings.ALL.withTrees(Set.of(tree)));
        String traffic = c.job().traffic();
        if (traffic != null) {
            // onTrees replaces whatever trees the scope named (the first run's, for the crossover's second)
            c = c.withJob(c.job().withTraffic(TrafficScope.parse(traffic).onTrees(Set.of(tree))
                    .text()));
        }
        return c;
    }

    /**
     * Runs it twice, a crossover: collectors on tree 0, then on tree 1. The two trees are not quite alike (over TCP on a
     * quiet machine, tree 0 with collectors came out 8 % faster than tree 1 without, a CI of ±0.8: the trees' hops and
     * their service threads differ), so one run measures the collectors' cost plus the trees' difference and the other
     * the cost minus it; their mean is the cost, and half their difference the trees' bias, reported as such.
     */
    public static ObjectNode run(RunConfig config, ObjectMapper json) {
        try {
            return run(config, json, null);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * As {@link #run(RunConfig, ObjectMapper)}; with traffic counted, the first run's matrix (tree 0's messages) goes
     * to {@code trafficFile} if it is not null.
     */
    public static ObjectNode run(RunConfig config, ObjectMapper json, java.nio.file.Path trafficFile) throws java.io.IOException {
        RunConfig second = monitorTree(config, 1);
        RunReport first = RunEngine.run(config);
        if (trafficFile != null && first.traffic() != null) {
            ObjectNode what = json.createObjectNode();
            what.put("benchmark", config.benchmark().label());
            what.put("transport", config.transport().label());
            what.put("tree", config.spec().shape().toString());
            what.put("iterations", config.iterations());
            first.traffic().write(trafficFile, what);
        }
        ObjectNode a = analyse(config, first, json, 0);
        ObjectNode b = analyse(second, RunEngine.run(second), json, 1);
        ObjectNode root = crossover(a, b, json);
        if (config.job().traffic() != null) {
            root.put("design", config.job().collectors()
                    ? "crossover: collectors and traffic counters on tree 0, then on tree 1"
                    : "crossover: traffic counters (no collectors) on tree 0, then on tree 1");
        }
        return root;
    }

    /**
     * What recording a compressed trace costs (the ScalaTrace recorder, {@link TracingComm}), measured as the collectors
     * are: {@code base} as gsum-interleaved in blocks of {@code block} pairs with no collectors, every rank's calls
     * alternating between a {@link TracingComm} and the bare {@code Comm} ({@link AlternatingComm}) — the recorder on
     * tree 0's calls, then, the crossover, on tree 1's. In one JVM (where a call takes a fraction of a µs, so the
     * recorder's share is largest) or over TCP (each host process wraps its own ranks and reports what they recorded). The report
     * adds {@code record} (the time encoding) and {@code events_recorded} per run (the traced calls, every one kept).
     */
    public static ObjectNode runRecording(RunConfig base, int block, TraceConfig trace, ObjectMapper json) {
        if (base.spec().trees() != 2) {
            throw new IllegalArgumentException("the interleaved overhead needs a job of 2 trees, it has " + base.spec().trees());
        }
        RunConfig config = base.withCollectors(false).interleaved(block);
        ObjectNode[] runs = new ObjectNode[2];
        for (int traced = 0; traced < 2; traced++) {
            int parity = traced;
            AtomicLong recorded = new AtomicLong();
            RunReport report;
            if (config.transport() == JobTransport.TCP) {
                // Each host process wraps its own ranks the same way and reports what its recorders kept.
                List<JsonNode> programs = new java.util.ArrayList<>();
                report = RunEngine.overTcp(config, TracedRun.encodeAlternating(trace, parity), programs);
                for (JsonNode p : programs) {
                    recorded.addAndGet(p == null ? 0 : p.path("events_recorded").asLong());
                }
            } else {
                List<TracingComm> recorders = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
                report = RunEngine.inJvm(config, (rank, comm) -> {
                    TracingComm recorder = new TracingComm(comm, trace);
                    recorders.add(recorder);
                    return parity == 0 ? new AlternatingComm(recorder, comm) : new AlternatingComm(comm, recorder);
                });
                for (TracingComm r : recorders) {
                    recorded.addAndGet(r.trace().recorded());
                }
            }
            runs[traced] = analyse(config, report, json, traced);
            runs[traced].put("record", trace.encoding().fileName());
            runs[traced].put("events_recorded", recorded.get());
            // No collector is on either tree: the bar is the recorder's two clock reads plus 30 ns.
            runs[traced].put("clock_reads_on_critical_path", 2);
            runs[traced].put("added_ns_bar", 2 * runs[traced].path("clock_ns").asDouble() + 30);
        }
        ObjectNode root = crossover(runs[0], runs[1], json);
        root.put("design", "crossover: the recorder on tree 0's calls, then on tree 1's");
        return root;
    }

    /** The mean of the two runs' paired differences, its interval, and the trees' bias. */
    static ObjectNode crossover(ObjectNode a, ObjectNode b, ObjectMapper json) {
        ObjectNode root = a.deepCopy();
        root.put("design", "crossover: collectors on tree 0, then on tree 1");
        root.set("runs", json.createArrayNode().add(a).add(b));
        root.put("result_ok", a.path("result_ok").asBoolean() && b.path("result_ok").asBoolean());
        if (!a.path("overhead_pct").isNumber() || !b.path("overhead_pct").isNumber()) {
            root.putNull("overhead_pct");
            root.putNull("added_ns_per_call");
            return root;
        }
        for (String field : new String[] {"overhead_pct", "added_ns_per_call"}) {
            double ma = a.path(field).asDouble();
            double mb = b.path(field).asDouble();
            double ha = (a.path(field + "_ci95").get(1).asDouble() - a.path(field + "_ci95").get(0).asDouble()) / 2;
            double hb = (b.path(field + "_ci95").get(1).asDouble() - b.path(field + "_ci95").get(0).asDouble()) / 2;
            double mean = (ma + mb) / 2;
            double half = Math.sqrt(ha * ha + hb * hb) / 2;
            root.put(field, mean);
            root.putArray(field + "_ci95").add(mean - half).add(mean + half);
            root.put(field + "_tree_bias", (ma - mb) / 2);
        }
        root.put("off_ns_per_call", (a.path("off_ns_per_call").asDouble() + b.path("off_ns_per_call").asDouble()) / 2);
        if (a.has("gather_rate") && b.has("gather_rate")) {
            root.put("gather_rate", Math.min(a.path("gather_rate").asDouble(), b.path("gather_rate").asDouble()));
        }
        if (a.has("rank_pass_ns_p50") && b.has("rank_pass_ns_p50")) {
            root.put("rank_passes", a.path("rank_passes").asLong() + b.path("rank_passes").asLong());
            for (String field : new String[] {"rank_pass_ns_p50", "rank_pass_ns_mean"}) {
                root.put(field, (a.path(field).asDouble() + b.path(field).asDouble()) / 2);
            }
        }
        return root;
    }

    static ObjectNode analyse(RunConfig config, RunReport report, ObjectMapper json) {
        return analyse(config, report, json, 0);
    }

    /** One run's paired differences, {@code monitored} tree minus the other. */
    static ObjectNode analyse(RunConfig config, RunReport report, ObjectMapper json, int monitored) {
        ObjectNode root = json.createObjectNode();
        root.put("schema", SCHEMA);
        root.put("benchmark", config.benchmark().label());
        root.put("ranks", config.ranks());
        root.put("hosts", config.hosts());
        root.put("transport", config.transport().label());
        // How the processes waited and where they ran decide what a TCP figure means: say it with the figure.
        root.put("poll", config.job().poll().label());
        root.put("bind_to", config.job().binding().label());
        root.put("cores", Runtime.getRuntime().availableProcessors());
        root.put("tree", config.spec().shape().toString());
        root.put("block", config.block());
        root.put("monitored_tree", monitored);
        if (config.job().traffic() != null) {
            // What the counters counted, to show they were on: the monitored tree's messages only.
            root.put("traffic_scope", config.job().traffic());
            TrafficMatrix m = report.traffic();
            root.put("traffic_messages_counted", m == null ? 0 : TrafficMatrix.total(m.hostMatrix(-1, 1)));
        }
        List<RankResult> ranks = report.ranks();
        int blocks = ranks.isEmpty() ? 0 : ranks.get(0).blocks().length / 2;
        for (RankResult r : ranks) {
            blocks = Math.min(blocks, r.blocks().length / 2);
        }
        root.put("blocks", blocks);
        double[] pct = new double[blocks];
        double[] added = new double[blocks];
        double baseSum = 0;
        for (int k = 0; k < blocks; k++) {
            double d = 0;
            double base = 0;
            for (RankResult r : ranks) {
                long on = r.blocks()[2 * k + monitored];
                long off = r.blocks()[2 * k + 1 - monitored];
                d += on - off;
                base += off;
            }
            d /= ranks.size();
            base /= ranks.size();
            pct[k] = base == 0 ? 0 : 100 * d / base;
            added[k] = d / config.block();
            baseSum += base;
        }
        if (blocks >= 2) {
            double[] p = meanAndHalfWidth(pct);
            double[] a = meanAndHalfWidth(added);
            root.put("overhead_pct", p[0]);
            root.putArray("overhead_pct_ci95").add(p[0] - p[1]).add(p[0] + p[1]);
            root.put("added_ns_per_call", a[0]);
            root.putArray("added_ns_per_call_ci95").add(a[0] - a[1]).add(a[0] + a[1]);
            root.put("off_ns_per_call", baseSum / blocks / config.block());
        } else {
            root.putNull("overhead_pct");
            root.putNull("added_ns_per_call");
        }
        int reads = clockReadsOnCriticalPath(config);
        root.put("clock_reads_on_critical_path", reads);
        root.put("tuple_stores_on_critical_path", reads == 0 ? 0 : tupleStoresOnCriticalPath(config));
        double clock = clockNanos();
        root.put("clock_ns", clock);
        // The bar for one JVM (where an allreduce takes a fraction of a µs): what the collectors add per call should be
        // no more than the clock reads on the critical path times a clock read, plus 30 ns for the rest of the writes.
        root.put("added_ns_bar", reads * clock + 30);
        JsonNode monitors = report.monitors();
        if (monitors != null) {
            root.put("gather_rate", monitors.path("gather_rate").asDouble());
            JsonNode passNs = monitors.path("analysis").path("rank_pass_ns");
            if (passNs.isObject()) {
                // The passes the waiting ranks ran: their cost is in the measured side's time, not in any cpu_ms.
                root.put("rank_passes", monitors.path("analysis").path("rank_passes").asLong());
                root.put("rank_pass_ns_p50", passNs.path("p50").asDouble());
                root.put("rank_pass_ns_mean", passNs.path("mean").asDouble());
            }
            root.set("monitors", monitors);
        }
        root.put("result_ok", report.resultOk());
        root.set("errors", json.valueToTree(report.errors()));
        RunReport.putMachine(root);
        return root;
    }

    /**
     * Clock reads one call of tree 0 makes on its critical path: on the longest path from a rank to a root (the last
     * arriver runs its whole path while the others wait), two per collector (going down and coming back), one fewer for a
     * collector that takes its t4 from the collector below its gred or exchange ({@link EventCollector.ClockSharing}),
     * one fewer for a collector that takes its t2 from the collector above a gred of one port.
     */
    static int clockReadsOnCriticalPath(RunConfig config) {
        Pathmap pathmap = config.pathmap();
        int most = 0;
        for (int rank = 0; rank < config.ranks(); rank++) {
            int reads = 0;
            for (Node n : pathmap.path(0, rank)) {
                if (n.kind().equals(CollectorKind.NAME)) {
                    reads += CollectorKind.clockSharing(pathmap, n).criticalPathClockReads()
                            - (CollectorKind.takesDownClock(pathmap, n) ? 1 : 0);
                }
            }
            most = Math.max(most, reads);
        }
        return most;
    }

    /**
     * Tuples written on that path: one per collector on the longest path from a rank to a root, but for a butterfly's,
     * whose tuples are written while its exchange waits for the partner.
     */
    static int tupleStoresOnCriticalPath(RunConfig config) {
        Pathmap pathmap = config.pathmap();
        int most = 0;
        for (int rank = 0; rank < config.ranks(); rank++) {
            int collectors = 0;
            for (Node n : pathmap.path(0, rank)) {
                if (n.kind().equals(CollectorKind.NAME) && !CollectorKind.onButterfly(pathmap, n)) {
                    collectors++;
                }
            }
            most = Math.max(most, collectors);
        }
        return most;
    }

    /** One System.nanoTime() on this machine, now: the median of 21 batches of 100 000 reads. */
    static double clockNanos() {
        double[] batches = new double[21];
        long sink = 0;
        for (int b = 0; b < batches.length; b++) {
            long start = System.nanoTime();
            for (int i = 0; i < 100_000; i++) {
                sink += System.nanoTime();
            }
            batches[b] = (System.nanoTime() - start) / 100_000.0;
        }
        if (sink == 42) {
            System.out.print("");
        }
        return Median.of(batches);
    }

    /** The mean of {@code x} and the half-width of its 95 % confidence interval (Student's t, n − 1 degrees of freedom). */
    public static double[] meanAndHalfWidth(double[] x) {
        int n = x.length;
        double mean = 0;
        for (double v : x) {
            mean += v;
        }
        mean /= n;
        double ss = 0;
        for (double v : x) {
            ss += (v - mean) * (v - mean);
        }
        double sd = Math.sqrt(ss / (n - 1));
        return new double[] {mean, t975(n - 1) * sd / Math.sqrt(n)};
    }

    /** Student's t 0.975 quantile for {@code df} degrees of freedom (Cornish–Fisher expansion; within 0.2 % for df ≥ 3). */
    static double t975(int df) {
        double z = 1.959963984540054;
        double v = df;
        double z3 = z * z * z;
        double z5 = z3 * z * z;
        double z7 = z5 * z * z;
        return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v)
                + (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * v * v * v);
    }

    public static String summary(JsonNode r) {
        if (!r.path("overhead_pct").isNumber()) {
            return "interleaved overhead: not measured (" + r.path("runs").findValues("errors") + r.path("errors") + ")\n";
        }
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "interleaved overhead, %s: %d ranks on %d host(s), %s (poll %s, bound to %s, %d cores), "
                        + "tree %s, %d blocks of %d pairs%n",
                r.path("benchmark").asText(), r.path("ranks").asInt(), r.path("hosts").asInt(), r.path("transport").asText(),
                r.path("poll").asText(), r.path("bind_to").asText(), r.path("cores").asInt(),
                r.path("tree").asText(), r.path("blocks").asInt(), r.path("block").asInt()));
        out.append(String.format(Locale.ROOT, "  overhead: %+.2f %% (95 %% CI %+.2f … %+.2f), %+.1f ns per call (95 %% CI %+.1f … %+.1f) "
                        + "on %.1f ns without%n", r.path("overhead_pct").asDouble(), r.path("overhead_pct_ci95").get(0).asDouble(),
                r.path("overhead_pct_ci95").get(1).asDouble(), r.path("added_ns_per_call").asDouble(),
                r.path("added_ns_per_call_ci95").get(0).asDouble(), r.path("added_ns_per_call_ci95").get(1).asDouble(),
                r.path("off_ns_per_call").asDouble()));
        if (r.has("record")) {
            out.append(String.format(Locale.ROOT, "  measured: the trace recorder (time encoding %s), not collectors; %d calls recorded "
                    + "in the first run%n", r.path("record").asText(), r.path("events_recorded").asLong()));
        }
        if (r.has("traffic_scope")) {
            out.append(String.format(Locale.ROOT, "  measured: %s (scope %s); %d messages counted in the first run%n",
                    r.path("clock_reads_on_critical_path").asInt() == 0 ? "the traffic counters alone, no collectors"
                            : "collectors and traffic counters together", r.path("traffic_scope").asText(),
                    r.path("traffic_messages_counted").asLong()));
        }
        if (r.has("overhead_pct_tree_bias")) {
            out.append(String.format(Locale.ROOT, "  crossover of two runs (the measured side on tree 0, then on tree 1); the trees' own difference: "
                    + "%+.2f %%, %+.1f ns per call%n", r.path("overhead_pct_tree_bias").asDouble(),
                    r.path("added_ns_per_call_tree_bias").asDouble()));
        }
        out.append(String.format(Locale.ROOT, "  clock reads on the critical path: %d of %.1f ns (and %d tuple stores): bar for the added time %.1f ns%n",
                r.path("clock_reads_on_critical_path").asInt(), r.path("clock_ns").asDouble(),
                r.path("tuple_stores_on_critical_path").asInt(), r.path("added_ns_bar").asDouble()));
        if (r.has("gather_rate")) {
            out.append(String.format(Locale.ROOT, "  monitors: gather rate %.2f %%%n", 100 * r.path("gather_rate").asDouble()));
            if (r.has("rank_pass_ns_p50")) {
                out.append(String.format(Locale.ROOT, "  analysis passes run by the waiting ranks: %d; of the 1 in 256 timed, "
                        + "median %.0f ns, mean %.0f ns%n", r.path("rank_passes").asLong(), r.path("rank_pass_ns_p50").asDouble(),
                        r.path("rank_pass_ns_mean").asDouble()));
            }
        }
        out.append("  results: ").append(r.path("result_ok").asBoolean() ? "every rank got the exact expected value" : "WRONG")
                .append('\n');
        return out.toString();
    }
}
