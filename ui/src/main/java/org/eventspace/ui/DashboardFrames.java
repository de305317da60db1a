package org.eventspace.ui;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.monitor.model.RunModel;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Turns what a {@link DashboardSource} has now into one dashboard frame: the JSON every view draws from, and keeps the
 * history the over-time views need (ToM's histograms and the statistics band per scope round, EventSpace paper §4.3's
 * visualisation threads reading the newest state). Not thread-safe: one sampler calls {@link #next}; the frames it
 * returns are immutable once returned (nobody writes them again).
 *
 * <p>A frame ({@code GET /api/v1/frame}, schema {@value #SCHEMA}): {@code frame}, {@code sampled_at_ms},
 * {@code running}, {@code run}, {@code loadbalance}, {@code nodes} (per drawn node of every tree, the figures a node
 * may be coloured by), {@code ranks} (each rank's wait), {@code orders} (per gred, every port's arrival- and
 * departure-order counts), {@code timemap} (per tree, the stages of the slowest and of a typical path),
 * {@code histograms} (per scope event, its histogram of the last {@value #HISTORY} rounds), {@code band} (per event,
 * mean, sd, min, max of those rounds), {@code cost}, {@code stats} (the monitors' per-gred statistics as reported),
 * {@code not_measured} (what this run cannot measure, by field or view, with why: {@link DashboardSource#notMeasured})
 * and, once the run ended and its command said how, {@code outcome} ({@link #ended}); {@code verdict} and
 * {@code coverage} of the run model when the source makes one ({@link DashboardSource#model}).
 */
public final class DashboardFrames {
    public static final String SCHEMA = "eventspace.dashboard/1";
    /** Scope rounds the over-time views keep. */
    public static final int HISTORY = 120;

    private final ObjectMapper json;
    private final DashboardSource source;
    private final List<TreeView> trees = new ArrayList<>();
    private final long startNanos = System.nanoTime();
    private final Map<String, Deque<ObjectNode>> histories = new LinkedHashMap<>();
    private long frames;
    private long lastRound = -1;
    private long lastDeltaRound = -1;
    private double lastCpuMs;
    private long lastSampleNanos;
    private volatile Outcome outcome;
    private volatile RunModel lastModel;

    public DashboardFrames(DashboardSource source, ObjectMapper json) {
        this.source = source;
        this.json = json;
        Pathmap pathmap = source.pathmap();
        for (int t = 0; t < pathmap.spec().trees(); t++) {
            trees.add(TreeView.of(pathmap, t));
        }
        lastSampleNanos = startNanos;
    }

    public TreeView tree(int t) {
        return trees.get(t);
    }

    public int trees() {
        return trees.size();
    }

    /**
     * What runs, as {@code /api/v1/run} and a frame's {@code run} give it: field names in snake case with their unit,
     * and the wall time null while the run goes on (JSON has no NaN).
     */
    private ObjectNode run(DashboardSource.RunInfo info) {
        ObjectNode o = json.createObjectNode();
        o.put("name", info.name());
        o.put("description", info.description());
        o.put("ranks", info.ranks());
        o.put("hosts", info.hosts());
        o.put("tree", info.tree());
        o.put("trees", info.trees());
        o.put("filter", info.filter());
        o.put("injected_slow_rank", info.injectedSlowRank());
        if (Double.isFinite(info.wallSeconds())) {
            o.put("wall_s", info.wallSeconds());
        } else {
            o.putNull("wall_s");
        }
        return o;
    }

    /**
     * The next frame from the source's newest state.
     *
     * @param serverCpuPct what the dashboard's own threads cost, % of one core since the last frame (shown in the cost
     *                     view).
     */
    public ObjectNode next(double serverCpuPct) {
        long now = System.nanoTime();
        JsonNode monitors = source.monitors().orElse(null);
        JsonNode scope = source.scope().orElse(null);
        ObjectNode f = json.createObjectNode();
        f.put("schema", SCHEMA);
        f.put("frame", ++frames);
        f.put("sampled_at_ms", System.currentTimeMillis());
        f.put("uptime_s", (now - startNanos) / 1e9);
        f.put("running", source.running());
        f.set("run", run(source.info()));
        JsonNode lb = monitors == null ? null : monitors.get("loadbalance");
        f.set("loadbalance", lb == null ? json.nullNode() : lb);
        f.set("nodes", nodes(monitors));
        f.set("ranks", ranks(monitors));
        f.set("orders", orders(monitors));
        f.set("timemap", timemaps(monitors));
        addRound(scope);
        ObjectNode hist = f.putObject("histograms");
        ObjectNode band = f.putObject("band");
        for (Map.Entry<String, Deque<ObjectNode>> e : histories.entrySet()) {
            ArrayNode h = hist.putArray(e.getKey());
            ArrayNode b = band.putArray(e.getKey());
            for (ObjectNode r : e.getValue()) {
                h.add(r);
                b.add(bandOf(r));
            }
        }
        f.set("cost", cost(monitors, scope, serverCpuPct, now));
        f.set("stats", monitors == null ? json.nullNode() : monitors.path("stats").path("wrappers"));
        f.set("scope", scope == null ? json.nullNode() : scopeSummary(scope));
        f.set("not_measured", json.valueToTree(new TreeMap<>(source.notMeasured())));
        // The one run model's verdict and coverage (the same rule and words as the report and the summary).
        RunModel m = source.model().orElse(null);
        lastModel = m;
        if (m != null) {
            f.set("verdict", json.valueToTree(m.verdict()));
            f.set("coverage", json.valueToTree(m.coverage()));
        }
        Outcome ended = outcome;
        if (ended != null) {
            f.set("outcome", json.valueToTree(ended));
        }
        return f;
    }

    /**
     * How the run ended, as its command says it once the program or job returned: every frame from now on carries it
     * ({@code outcome}), so a page opened while the server keeps serving the final state shows the result too. Any
     * thread.
     */
    public void ended(Outcome how) {
        outcome = how;
    }

    /**
     * How a run ended: whether it did what it should ({@code ok}), the program's exit code (null: none, as for a run of
     * our own workloads, or a program stopped at its timeout), the lines its command printed as its summary, and when
     * (epoch ms).
     */
    @JsonPropertyOrder({"ok", "exit_code", "summary", "ended_at_ms"})
    public record Outcome(boolean ok,
                          @JsonProperty("exit_code") Integer exitCode,
                          List<String> summary,
                          @JsonProperty("ended_at_ms") long endedAtMs) {
        public Outcome {
            summary = List.copyOf(summary);
        }
    }

    /**
     * What the event stream sends of {@code full} (the frame {@link #next} just made): {@code "delta": true}, no
     * {@code stats} (the page's tables use {@code orders}), and in {@code histograms} and {@code band} only the rounds
     * newer than the previous delta's.
     */
    public ObjectNode delta(ObjectNode full) {
        ObjectNode d = full.deepCopy();
        d.put("delta", true);
        d.remove("stats");
        for (JsonNode r : d.path("ranks")) {
            ((ObjectNode) r).remove("profile"); // in /api/v1/stats; the page does not draw it
        }
        for (String view : List.of("histograms", "band")) {
            ObjectNode all = (ObjectNode) d.get(view);
            all.fields().forEachRemaining(e -> {
                ArrayNode fresh = json.createArrayNode();
                for (JsonNode r : e.getValue()) {
                    if (r.path("round").asLong() > lastDeltaRound) {
                        fresh.add(r);
                    }
                }
                e.setValue(fresh);
            });
        }
        lastDeltaRound = lastRound;
        return d;
    }

    /** Per drawn node of every tree, its figures: where it enters its gred, and the gred's own when it is one. */
    private ObjectNode nodes(JsonNode monitors) {
        ObjectNode all = json.createObjectNode();
        JsonNode stats = monitors == null ? null : monitors.path("stats").path("wrappers");
        JsonNode lbGreds = monitors == null ? null : monitors.path("loadbalance").path("greds");
        for (TreeView view : trees) {
            for (TreeView.Drawn d : view.nodes()) {
                ObjectNode n = all.putObject(d.id().startsWith("rank ") ? d.id() + "@t" + view.tree() : d.id());
                if (monitors == null) {
                    continue;
                }
                if (d.gred() != null) {
                    putPort(n, d.gred(), d.port(), stats, lbGreds);
                }
                if (d.kind().equals("gred")) {
                    JsonNode own = stats == null ? null : stats.get(d.id());
                    JsonNode lb = lbGreds == null ? null : lbGreds.get(d.id());
                    if (own != null) {
                        putNumber(n, "gred_down_us", own.path("down").path("mean"));
                        putNumber(n, "gred_up_us", own.path("up").path("mean"));
                    }
                    JsonNode calls = own != null ? own.get("calls") : lb != null ? lb.get("calls") : null;
                    if (calls != null) {
                        n.put("calls", calls.asLong());
                    }
                }
            }
        }
        return all;
    }

    /** The figures of port {@code port} of {@code gred}: last-arrival share, waits, latencies (µs means). */
    private static void putPort(ObjectNode n, String gred, int port, JsonNode stats, JsonNode lbGreds) {
        JsonNode lb = lbGreds == null ? null : lbGreds.get(gred);
        if (lb != null) {
            JsonNode last = lb.path("last_arrivals");
            long sum = 0;
            for (JsonNode c : last) {
                sum += c.asLong();
            }
            if (sum > 0 && port < last.size()) {
                n.put("last_share", trim((double) last.get(port).asLong() / sum));
            }
            putNumber(n, "arrival_wait_us", lb.path("mean_arrival_wait_us").path(port));
        }
        JsonNode p = stats == null ? null : stats.path(gred).path("ports").path(port);
        if (p != null && !p.isMissingNode()) {
            putNumber(n, "arrival_wait_us", p.path("arrival_wait").path("mean"));
            putNumber(n, "departure_wait_us", p.path("departure_wait").path("mean"));
            putNumber(n, "total_us", p.path("total").path("mean"));
            putNumber(n, "down_us", p.path("down").path("mean"));
            putNumber(n, "up_us", p.path("up").path("mean"));
        }
    }

    private static void putNumber(ObjectNode n, String field, JsonNode value) {
        if (value != null && value.isNumber()) {
            n.put(field, trim(value.asDouble()));
        }
    }

    /**
     * A figure to 4 significant digits or 0.001 µs, whichever is coarser: what a person reads, at a third of the bytes
     * (a frame of 256 ranks is mostly such numbers).
     */
    static double trim(double v) {
        if (!Double.isFinite(v) || v == 0) {
            return v;
        }
        double scale = Math.min(1000, Math.pow(10, 3 - Math.floor(Math.log10(Math.abs(v)))));
        return Math.round(v * scale) / scale;
    }

    /** Each rank's wait at its first gred, per tree (arrival wait: how long it waited for the others). */
    private ArrayNode ranks(JsonNode monitors) {
        ArrayNode out = json.createArrayNode();
        JsonNode stats = monitors == null ? null : monitors.path("stats").path("wrappers");
        JsonNode lbGreds = monitors == null ? null : monitors.path("loadbalance").path("greds");
        JsonNode profile = monitors == null ? null : monitors.path("profile");
        int ranks = source.info().ranks();
        for (int r = 0; r < ranks; r++) {
            ObjectNode o = out.addObject();
            o.put("rank", r);
            double wait = 0;
            double departure = 0;
            double last = 0;
            int seen = 0;
            for (TreeView view : trees) {
                TreeView.Drawn d = view.node("rank " + r);
                if (d == null || d.gred() == null) {
                    continue;
                }
                o.put("host", d.host());
                ObjectNode tmp = json.createObjectNode();
                if (monitors != null) {
                    putPort(tmp, d.gred(), d.port(), stats, lbGreds);
                }
                wait += tmp.path("arrival_wait_us").asDouble(0);
                departure += tmp.path("departure_wait_us").asDouble(0);
                last += tmp.path("last_share").asDouble(0);
                seen++;
            }
            if (seen > 0 && monitors != null) {
                o.put("arrival_wait_us", trim(wait / seen));
                o.put("departure_wait_us", trim(departure / seen));
                o.put("last_share", trim(last / seen));
            }
            if (profile != null) {
                JsonNode p = profile.path("ranks").path(Integer.toString(r));
                if (!p.isMissingNode()) {
                    o.set("profile", p);
                }
            }
        }
        return out;
    }

    /** Per gred, each port's contributor and its arrival- and departure-order counts (1st, 2nd, ...). */
    private ObjectNode orders(JsonNode monitors) {
        ObjectNode out = json.createObjectNode();
        JsonNode stats = monitors == null ? null : monitors.path("stats").path("wrappers");
        if (stats == null) {
            return out;
        }
        stats.fields().forEachRemaining(e -> {
            ArrayNode ports = out.putArray(e.getKey());
            for (JsonNode p : e.getValue().path("ports")) {
                ObjectNode o = ports.addObject();
                o.put("port", p.path("port").asInt());
                o.put("contributor", p.path("contributor").asText());
                // An order the monitors do not count (an MPI run of many ranks) is left out, not sent as null.
                for (String order : List.of("arrival_order", "departure_order")) {
                    if (p.path(order).isArray()) {
                        o.set(order, p.get(order));
                    }
                }
                putNumber(o, "arrival_wait_us", p.path("arrival_wait").path("mean"));
                putNumber(o, "total_us", p.path("total").path("mean"));
                putNumber(o, "departure_wait_us", p.path("departure_wait").path("mean"));
            }
        });
        return out;
    }

    /**
     * Per tree, the timemap (dissertation appendix 7.1 §3): the mean down and up time of every stage of the slowest
     * rank's path (the heaviest path's end) and of a typical one (the rank whose summed stage time is the median).
     */
    private ArrayNode timemaps(JsonNode monitors) {
        ArrayNode out = json.createArrayNode();
        JsonNode stats = monitors == null ? null : monitors.path("stats").path("wrappers");
        if (stats == null || stats.isMissingNode() || stats.isEmpty()) {
            return out;
        }
        JsonNode lbTrees = monitors.path("loadbalance").path("trees");
        for (TreeView view : trees) {
            int slowest = -1;
            for (JsonNode t : lbTrees) {
                if (t.path("tree").asInt() == view.tree()) {
                    slowest = t.path("slowest_rank").asInt(-1);
                }
            }
            List<double[]> sums = new ArrayList<>();
            for (TreeView.Drawn d : view.nodes()) {
                if (d.rank() >= 0 && d.rank() != slowest) {
                    double total = 0;
                    for (ObjectNode s : stages(view, d.id(), stats)) {
                        total += s.path("down_us").asDouble(0) + s.path("up_us").asDouble(0);
                    }
                    sums.add(new double[] {d.rank(), total});
                }
            }
            sums.sort(Comparator.comparingDouble(a -> a[1]));
            int typical = sums.isEmpty() ? -1 : (int) sums.get(sums.size() / 2)[0];
            ObjectNode o = out.addObject();
            o.put("tree", view.tree());
            ArrayNode paths = o.putArray("paths");
            if (slowest >= 0) {
                paths.add(timemapPath(view, "slowest", slowest, stats));
            }
            if (typical >= 0) {
                paths.add(timemapPath(view, "typical", typical, stats));
            }
        }
        return out;
    }

    private ObjectNode timemapPath(TreeView view, String label, int rank, JsonNode stats) {
        ObjectNode p = json.createObjectNode();
        p.put("label", label);
        p.put("rank", rank);
        ArrayNode stages = p.putArray("stages");
        stages(view, "rank " + rank, stats).forEach(stages::add);
        return p;
    }

    /**
     * The stages of a rank's path, from the rank toward the root (dissertation §7.1: an allreduce is arrival + reduce +
     * broadcast, and a path breaks into its greds, hops and store): every gred it passes with the mean down, up and
     * arrival wait of its port and the gred's own arrival, reduce and broadcast stages ({@code kind: "gred"}); every
     * remote hop with its two-way latency ({@code "hop"}: the statistics monitor's difference of the collectors on both
     * sides, no common clock needed); the core's store latency ({@code "store"}). Means in µs; a figure the monitors do
     * not have yet is left out.
     */
    private List<ObjectNode> stages(TreeView view, String id, JsonNode stats) {
        List<ObjectNode> out = new ArrayList<>();
        for (TreeView.Drawn d : view.pathToRoot(id)) {
            if (d.kind().equals("proxy")) {
                JsonNode hop = stats.path(d.id()).path("two_way_latency");
                if (hop.path("mean").isNumber()) {
                    ObjectNode s = json.createObjectNode();
                    s.put("stage", d.id());
                    s.put("kind", "hop");
                    s.put("host", d.host());
                    s.put("to_host", stats.path(d.id()).path("to_host").asInt(-1));
                    putNumber(s, "two_way_us", hop.path("mean"));
                    // the hop lies between the gred below it and the gred it enters, whose stage was taken already
                    int at = !out.isEmpty() && out.get(out.size() - 1).path("stage").asText().equals(d.gred()) ? out.size() - 1 : out.size();
                    out.add(at, s);
                }
            } else if (d.kind().equals("core")) {
                JsonNode store = stats.path(d.id()).path("store_latency");
                if (store.path("mean").isNumber()) {
                    ObjectNode s = json.createObjectNode();
                    s.put("stage", d.id());
                    s.put("kind", "store");
                    s.put("host", d.host());
                    putNumber(s, "store_us", store.path("mean"));
                    out.add(s);
                }
            }
            if (d.gred() == null || !d.kind().equals("rank") && !d.kind().equals("gred") && !d.kind().equals("proxy")) {
                continue;
            }
            // A proxy and the gred behind it feed the same port: one stage per gred, taken at the first node that enters it.
            if (out.stream().anyMatch(o -> o.path("stage").asText().equals(d.gred()))) {
                continue;
            }
            JsonNode port = stats.path(d.gred()).path("ports").path(d.port());
            JsonNode stages = stats.path(d.gred()).path("stages");
            ObjectNode s = json.createObjectNode();
            s.put("stage", d.gred());
            s.put("kind", "gred");
            s.put("port", d.port());
            s.put("host", view.node(d.gred()) != null ? view.node(d.gred()).host() : -1);
            putNumber(s, "down_us", port.path("down").path("mean"));
            putNumber(s, "up_us", port.path("up").path("mean"));
            putNumber(s, "arrival_wait_us", port.path("arrival_wait").path("mean"));
            putNumber(s, "arrival_us", stages.path("arrival").path("mean"));
            putNumber(s, "reduce_us", stages.path("reduce").path("mean"));
            putNumber(s, "broadcast_us", stages.path("broadcast").path("mean"));
            out.add(s);
        }
        return out;
    }

    /** Keeps the newest scope round's per-event result, once per round. */
    private void addRound(JsonNode scope) {
        if (scope == null) {
            return;
        }
        long round = scope.path("result_round").asLong(-1);
        JsonNode events = scope.path("result").path("events");
        if (round < 0 || round == lastRound || !events.isObject()) {
            return;
        }
        lastRound = round;
        Iterator<Map.Entry<String, JsonNode>> it = events.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            ObjectNode r = json.createObjectNode();
            r.put("round", round);
            r.put("t_s", trim((System.nanoTime() - startNanos) / 1e9));
            e.getValue().fields().forEachRemaining(f -> {
                if (!f.getKey().equals("round")) {
                    r.set(f.getKey(), f.getValue());
                }
            });
            Deque<ObjectNode> h = histories.computeIfAbsent(e.getKey(), k -> new ArrayDeque<>());
            h.addLast(r);
            while (h.size() > HISTORY) {
                h.removeFirst();
            }
        }
    }

    /**
     * One round's band: ToM's statistics filter gives mean, sd, min and max; from a histogram, min and max are the
     * round's exact bounds and mean and sd are taken at the bins' midpoints (within half a bin's width).
     */
    private ObjectNode bandOf(ObjectNode r) {
        ObjectNode b = json.createObjectNode();
        b.put("round", r.path("round").asLong());
        b.put("t_s", r.path("t_s").asDouble());
        if (r.has("mean")) {
            for (String f : List.of("count", "mean", "sd", "min", "max")) {
                b.set(f, r.path(f));
            }
            return b;
        }
        JsonNode bins = r.path("bins");
        double min = r.path("min").asDouble();
        double max = r.path("max").asDouble();
        int n = bins.size();
        double width = n == 0 ? 0 : (max - min) / n;
        double count = 0;
        double sum = 0;
        double sumSq = 0;
        for (int i = 0; i < n; i++) {
            double c = bins.get(i).asDouble();
            double mid = min + (i + 0.5) * width;
            count += c;
            sum += c * mid;
            sumSq += c * mid * mid;
        }
        double mean = count == 0 ? 0 : sum / count;
        b.put("count", (long) count);
        b.put("mean", trim(mean));
        b.put("sd", count == 0 ? 0 : trim(Math.sqrt(Math.max(0, sumSq / count - mean * mean))));
        b.put("min", min);
        b.put("max", max);
        return b;
    }

    /**
     * What monitoring costs (EventSpace paper §6): the analysis threads' CPU since the last frame as % of one core (an
     * upper bound on what they took from the ranks), the monitors' gather rate and tuples missed, the scope's rounds,
     * gather rate and round time, and the dashboard's own threads.
     */
    private ObjectNode cost(JsonNode monitors, JsonNode scope, double serverCpuPct, long now) {
        ObjectNode c = json.createObjectNode();
        double seconds = Math.max(1e-9, (now - lastSampleNanos) / 1e9);
        lastSampleNanos = now;
        if (monitors != null && monitors.has("analysis")) { // an MPI run's report does not keep its agent's CPU
            double cpuMs = monitors.path("analysis").path("cpu_ms").asDouble();
            double wall = source.info().wallSeconds();
            if (!source.running() && wall > 0) {
                c.put("analysis_cpu_pct", trim(cpuMs / 1e3 / wall * 100)); // a finished run: over its whole wall time
            } else if (source.running()) {
                c.put("analysis_cpu_pct", trim(Math.max(0, (cpuMs - lastCpuMs) / 1e3 / seconds * 100)));
            }
            c.put("analysis_cpu_ms", cpuMs);
            lastCpuMs = cpuMs;
            c.put("analysis_threads", monitors.path("analysis").path("threads").asInt());
        }
        if (monitors != null) {
            c.put("gather_rate", monitors.path("gather_rate").asDouble(1));
            c.put("tuples_read", monitors.path("tuples_read").asLong());
            c.put("tuples_missed", monitors.path("tuples_missed").asLong());
            c.put("calls_joined", monitors.path("calls_joined").asLong());
            if (monitors.has("calls_dropped")) {
                c.put("calls_dropped", monitors.path("calls_dropped").asLong());
            }
        }
        if (scope != null) {
            c.put("scope_rounds", scope.path("rounds").asLong());
            c.put("scope_gather_rate", scope.path("gather_rate").asDouble(1));
            c.put("scope_records_dropped", scope.path("records_dropped").asLong());
            c.put("scope_round_us", scope.path("round_us_mean").asDouble());
            c.set("scope_reduction_factor", scope.path("reduction_factor"));
        }
        c.put("cores", Runtime.getRuntime().availableProcessors());
        c.put("server_cpu_pct", serverCpuPct);
        return c;
    }

    private ObjectNode scopeSummary(JsonNode scope) {
        ObjectNode s = json.createObjectNode();
        for (String f : List.of("shape", "gather", "filter", "interval_ms", "rounds", "result_round", "error")) {
            if (scope.has(f)) {
                s.set(f, scope.get(f));
            }
        }
        return s;
    }

    /**
     * The run model the newest frame was made with ({@link DashboardSource#model()}): what {@code /metrics} serves, so
     * the page and the scrape agree.
     */
    public java.util.Optional<RunModel> model() {
        return java.util.Optional.ofNullable(lastModel);
    }

    /** The source's link loads ({@link DashboardSource#network()}), taken by the sampler with each frame. */
    public java.util.Optional<JsonNode> network() {
        return source.network();
    }
}
