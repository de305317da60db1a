package org.eventspace.monitor;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.events.analysis.GredCalls;
import org.eventspace.base.stats.StatisticsSummary;
import org.eventspace.events.TraceOp;
import org.eventspace.monitor.model.SlowestRankRule;
import org.eventspace.monitor.model.Verdict;

/**
 * What one process's monitors had at one moment: every monitored gred's metrics, the greds that could not be
 * monitored, and what the analysis cost. {@link #toJson} writes this process's part; {@link #report} merges the parts
 * of every process of a job (each gred is analysed on its own host, so parts never overlap) into the {@code monitors}
 * block of a run's report, computing the load-balance answer over the whole pathmap. Immutable.
 *
 * <p>JSON, times in µs: {@code greds} (per gred: host, tree, calls, contributors, last_arrivals and, with the
 * statistics monitor, down, up, below, stages (arrival, reduce, broadcast), arrival_wait_by_order and
 * departure_wait_by_order (element k: the wait of whichever contributor came k+1-th) and per port down, up, total, arrival_wait,
 * departure_wait, arrival_order, departure_order, each statistic {@code count, mean, sd, min, max, median}); {@code calls_dropped},
 * {@code tuples_failed}, {@code tuples_missed}; {@code analysis} (threads, lowest_priority_threads: how many of them run at the lowest scheduling priority, nice 19, cpu_ms,
 * memory_bytes, rank_passes, rank_passes_timed and rank_pass_ns: the passes waiting ranks ran, and the mean, p50
 * and p99 of those timed; merged over processes, p50 and p99 are the largest process's); {@code skipped}.
 */
public record MonitorSnapshot(Set<MonitorKind> kinds, List<GredSnapshot> greds, Map<Integer, long[][]> profiles,
                              List<String> skipped, long analysisCpuNanos, int analysisThreads, int lowestPriorityThreads,
                              RankPasses rankPasses) {
    public MonitorSnapshot {
        kinds = Set.copyOf(kinds);
        greds = List.copyOf(greds);
        profiles = Map.copyOf(profiles);
        skipped = List.copyOf(skipped);
    }

    MonitorSnapshot withCpuNanos(long nanos) {
        return new MonitorSnapshot(kinds, greds, profiles, skipped, nanos, analysisThreads, lowestPriorityThreads,
                rankPasses);
    }

    public GredSnapshot gred(String name) {
        return greds.stream().filter(g -> g.gred().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no monitored gred named " + name));
    }

    /** This process's part. */
    public ObjectNode toJson(ObjectMapper json) {
        List<String> k = new ArrayList<>();
        for (MonitorKind kind : MonitorKind.values()) {
            if (kinds.contains(kind)) {
                k.add(kind.label());
            }
        }
        boolean withStats = kinds.contains(MonitorKind.STATS);
        Map<String, GredPart> all = new LinkedHashMap<>();
        long dropped = 0;
        long failed = 0;
        long missed = 0;
        long read = 0;
        long memory = 0;
        for (GredSnapshot g : greds) {
            all.put(g.gred(), GredPart.of(g, withStats));
            dropped += g.dropped();
            failed += g.failed();
            missed += g.missed();
            read += g.read();
            memory += g.memoryBytes();
        }
        Map<String, Map<String, OpTime>> ranks = new LinkedHashMap<>();
        for (Map.Entry<Integer, long[][]> e : new java.util.TreeMap<>(profiles).entrySet()) {
            Map<String, OpTime> r = new LinkedHashMap<>();
            for (int op = 0; op < e.getValue()[0].length; op++) {
                if (e.getValue()[0][op] > 0) {
                    r.put(TraceOp.name(op), new OpTime(e.getValue()[0][op], e.getValue()[1][op] / 1_000.0));
                }
            }
            ranks.put(Integer.toString(e.getKey()), r);
        }
        return json.valueToTree(new Part(k, all, ranks, dropped, failed, missed, read,
                new Analysis(analysisThreads, lowestPriorityThreads, analysisCpuNanos / 1e6, memory, rankPasses.passes(),
                        rankPasses.timed(), rankPasses.timed() == 0 ? null : rankPasses), skipped));
    }

    /** One process's part of the {@code monitors} block, as {@link #report} reads it back. */
    @JsonPropertyOrder({"kinds", "greds", "ranks", "calls_dropped", "tuples_failed", "tuples_missed", "tuples_read",
            "analysis", "skipped"})
    record Part(List<String> kinds, Map<String, GredPart> greds, Map<String, Map<String, OpTime>> ranks,
                @JsonProperty("calls_dropped") long callsDropped, @JsonProperty("tuples_failed") long tuplesFailed,
                @JsonProperty("tuples_missed") long tuplesMissed, @JsonProperty("tuples_read") long tuplesRead,
                Analysis analysis, List<String> skipped) {
    }

    /**
     * A gred of {@link Part}: counts always, latencies (µs) only with the statistics monitor — the fields from
     * {@code down} on are absent without it.
     */
    @JsonPropertyOrder({"host", "tree", "calls", "contributors", "last_arrivals", "mean_arrival_wait_us", "span_us", "own_lateness_us",
            "interval_us", "down", "up",
            "below", "stages", "arrival_wait_by_order", "departure_wait_by_order", "ports"})
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record GredPart(int host, int tree, long calls, String[] contributors,
                    @JsonProperty("last_arrivals") long[] lastArrivals,
                    @JsonProperty("mean_arrival_wait_us") double[] meanArrivalWaitUs,
                    @JsonProperty("span_us") double spanUs, @JsonProperty("own_lateness_us") double[] ownLatenessUs,
                    @JsonProperty("interval_us") double[] intervalUs, Micros down, Micros up,
                    Micros below, Stages stages, @JsonProperty("arrival_wait_by_order") List<Micros> arrivalWaitByOrder,
                    @JsonProperty("departure_wait_by_order") List<Micros> departureWaitByOrder, List<PortPart> ports) {
        static GredPart of(GredSnapshot g, boolean withStats) {
            GredCalls c = g.calls();
            int n = c.ports();
            String[] contributors = new String[n];
            long[] last = new long[n];
            double[] waits = new double[n];
            double[] own = new double[n];
            double[] interval = new double[n];
            for (int p = 0; p < n; p++) {
                contributors[p] = g.contributors()[p];
                last[p] = c.lastArrivals(p);
                double wait = c.port(p, GredCalls.ARRIVAL_WAIT).mean();
                waits[p] = Double.isNaN(wait) ? 0 : wait / 1_000.0;
                double o = c.ownLatenessMedianNs(p);
                double i = c.intervalMedianNs(p);
                own[p] = Double.isNaN(o) ? 0 : o / 1_000.0;
                interval[p] = Double.isNaN(i) ? 0 : i / 1_000.0;
            }
            if (!withStats) {
                return new GredPart(g.host(), g.tree(), c.calls(), contributors, last, waits, c.spanNs() / 1_000.0, own, interval, null, null, null, null,
                        null, null, null);
            }
            List<Micros> byArrival = new ArrayList<>(n);
            List<Micros> byDeparture = new ArrayList<>(n);
            List<PortPart> ports = new ArrayList<>(n);
            for (int order = 0; order < n; order++) {
                byArrival.add(Micros.of(c.arrivalWaitByOrder(order)));
                byDeparture.add(Micros.of(c.departureWaitByOrder(order)));
            }
            for (int p = 0; p < n; p++) {
                ports.add(new PortPart(p, g.contributors()[p], Micros.of(c.port(p, GredCalls.DOWN)),
                        Micros.of(c.port(p, GredCalls.UP)), Micros.of(c.port(p, GredCalls.TOTAL)),
                        Micros.of(c.port(p, GredCalls.ARRIVAL_WAIT)), Micros.of(c.port(p, GredCalls.DEPARTURE_WAIT)),
                        c.arrivalOrder(p), c.departureOrder(p)));
            }
            return new GredPart(g.host(), g.tree(), c.calls(), contributors, last, waits, c.spanNs() / 1_000.0, own, interval, Micros.of(c.down()),
                    Micros.of(c.up()), Micros.of(c.below()),
                    new Stages(Micros.of(c.arrival()), Micros.of(c.down()), Micros.of(c.broadcast())),
                    byArrival, byDeparture, ports);
        }
    }

    /** The three stages of a collective at a gred (µs): the arrivals, the reduction below, the broadcast. */
    @JsonPropertyOrder({"arrival", "reduce", "broadcast"})
    record Stages(Micros arrival, Micros reduce, Micros broadcast) {
    }

    @JsonPropertyOrder({"port", "contributor", "down", "up", "total", "arrival_wait", "departure_wait", "arrival_order",
            "departure_order"})
    record PortPart(int port, String contributor, Micros down, Micros up, Micros total,
                    @JsonProperty("arrival_wait") Micros arrivalWait, @JsonProperty("departure_wait") Micros departureWait,
                    @JsonProperty("arrival_order") long[] arrivalOrder,
                    @JsonProperty("departure_order") long[] departureOrder) {
    }

    /** A rank's calls of one operation and the time they took. */
    @JsonPropertyOrder({"calls", "time_us"})
    record OpTime(long calls, @JsonProperty("time_us") double timeUs) {
    }

    /**
     * What the analysis cost: its threads' CPU time, and the passes the waiting ranks ran themselves (a butterfly's
     * idle work), which no analysis thread's CPU time includes: how many, and the mean ns of the one in 256 timed.
     */
    @JsonPropertyOrder({"threads", "lowest_priority_threads", "cpu_ms", "memory_bytes", "rank_passes",
            "rank_passes_timed", "rank_pass_ns"})
    record Analysis(int threads, @JsonProperty("lowest_priority_threads") int lowestPriorityThreads,
                    @JsonProperty("cpu_ms") double cpuMs, @JsonProperty("memory_bytes") long memoryBytes,
                    @JsonProperty("rank_passes") long rankPasses, @JsonProperty("rank_passes_timed") long rankPassesTimed,
                    @JsonProperty("rank_pass_ns") RankPasses rankPassNs) {
    }

    /**
     * The analysis passes waiting ranks ran (a butterfly's idle work): how many, how many were timed (one in 256), and
     * the timed ones' mean, median and 99th percentile, ns. A mean alone would be a preempted pass's: one pass in tens
     * of thousands that lost the CPU for milliseconds moves it by microseconds.
     */
    @JsonPropertyOrder({"mean", "p50", "p99"})
    public record RankPasses(@JsonIgnore long passes, @JsonIgnore long timed, double mean, double p50, double p99) {
        static RankPasses of(long passes, org.HdrHistogram.Histogram timed) {
            if (timed == null || timed.getTotalCount() == 0) {
                return new RankPasses(passes, 0, 0, 0, 0);
            }
            return new RankPasses(passes, timed.getTotalCount(), timed.getMean(), timed.getValueAtPercentile(50),
                    timed.getValueAtPercentile(99));
        }
    }

    /**
     * A {@link StatisticsSummary} of ns written in µs: NaN (no values) as null; {@code median}, the sliding window's,
     * only where a monitor keeps one (a window median of measured latencies is never NaN).
     */
    @JsonPropertyOrder({"count", "mean", "sd", "min", "max", "median"})
    record Micros(long count, Double mean, Double sd, Double min, Double max,
                  @JsonInclude(JsonInclude.Include.NON_NULL) Double median) {
        static Micros of(StatisticsSummary s) {
            return new Micros(s.count(), micros(s.mean()), micros(s.sd()), micros(s.min()), micros(s.max()),
                    s.windowMedian() == null ? null : micros(s.windowMedian()));
        }

        private static Double micros(double nanos) {
            return Double.isNaN(nanos) ? null : nanos / 1_000.0;
        }
    }

    /**
     * The {@code monitors} block of a job's report from the parts of its processes: greds, counters and analysis cost
     * merged; {@code loadbalance} (slowest rank, heaviest path, one per tree) computed over {@code pathmap}; and, with
     * the statistics monitor, {@code stats.wrappers}.
     */
    public static ObjectNode report(List<JsonNode> parts, Pathmap pathmap, ObjectMapper json) {
        ObjectNode root = json.createObjectNode();
        ObjectNode greds = json.createObjectNode();
        ObjectNode ranks = json.createObjectNode();
        ArrayNode skipped = json.createArrayNode();
        long dropped = 0;
        long failed = 0;
        long missed = 0;
        long calls = 0;
        int threads = 0;
        int lowest = 0;
        double cpuMs = 0;
        long rankPasses = 0;
        long rankPassesTimed = 0;
        double rankPassNanos = 0;
        double rankPassP50 = 0;
        double rankPassP99 = 0;
        long read = 0;
        long memory = 0;
        JsonNode kinds = json.createArrayNode();
        for (JsonNode part : parts) {
            if (part == null || part.isNull()) {
                continue;
            }
            kinds = part.path("kinds");
            part.path("greds").fields().forEachRemaining(e -> greds.set(e.getKey(), e.getValue()));
            part.path("ranks").fields().forEachRemaining(e -> ranks.set(e.getKey(), e.getValue()));
            part.path("skipped").forEach(skipped::add);
            dropped += part.path("calls_dropped").asLong();
            failed += part.path("tuples_failed").asLong();
            missed += part.path("tuples_missed").asLong();
            threads += part.path("analysis").path("threads").asInt();
            lowest += part.path("analysis").path("lowest_priority_threads").asInt();
            read += part.path("tuples_read").asLong();
            memory += part.path("analysis").path("memory_bytes").asLong();
            cpuMs += part.path("analysis").path("cpu_ms").asDouble();
            JsonNode a = part.path("analysis");
            rankPasses += a.path("rank_passes").asLong();
            long timed = a.path("rank_passes_timed").asLong();
            if (timed > 0) {
                rankPassesTimed += timed;
                rankPassNanos += timed * a.path("rank_pass_ns").path("mean").asDouble();
                rankPassP50 = Math.max(rankPassP50, a.path("rank_pass_ns").path("p50").asDouble());
                rankPassP99 = Math.max(rankPassP99, a.path("rank_pass_ns").path("p99").asDouble());
            }
        }
        Map<String, long[]> lastArrivals = new HashMap<>();
        Map<String, Long> callsByGred = new HashMap<>();
        greds.fields().forEachRemaining(e -> {
            JsonNode last = e.getValue().path("last_arrivals");
            long[] counts = new long[last.size()];
            for (int p = 0; p < counts.length; p++) {
                counts[p] = last.get(p).asLong();
            }
            lastArrivals.put(e.getKey(), counts);
            callsByGred.put(e.getKey(), e.getValue().path("calls").asLong());
        });
        for (long c : callsByGred.values()) {
            calls += c;
        }
        root.set("kinds", kinds);
        boolean loadbalance = false;
        boolean stats = false;
        for (JsonNode k : kinds) {
            loadbalance |= k.asText().equals(MonitorKind.LOADBALANCE.label());
            stats |= k.asText().equals(MonitorKind.STATS.label());
        }
        if (loadbalance) {
            ObjectNode lb = root.putObject("loadbalance");
            List<LoadBalance> trees = new ArrayList<>();
            for (int t = 0; t < pathmap.spec().trees(); t++) {
                trees.add(LoadBalance.of(pathmap, t, lastArrivals));
            }
            // The tree whose heaviest path is the most decided.
            LoadBalance best = trees.get(0);
            for (LoadBalance t : trees) {
                if (t.weight() > best.weight()) {
                    best = t;
                }
            }
            List<SlowestRankRule.Evidence> evidence = RankLateness.evidence(greds, pathmap);
            Verdict.SlowestRank slowest = SlowestRankRule.judge(evidence);
            lb.put("slowest_rank", slowest.rank() == null ? -1 : slowest.rank());
            lb.put("slowest_rank_z", slowest.z() == null ? 0 : slowest.z());
            lb.put("slowest_rank_beyond_chance", slowest.beyondChance());
            lb.put("slowest_rank_lateness_us", slowest.latenessUs() == null ? 0 : slowest.latenessUs());
            lb.put("slowest_rank_gred", slowest.where());
            lb.set("verdict", json.valueToTree(slowest));
            ObjectNode byRank = lb.putObject("ranks");
            for (SlowestRankRule.Evidence e : evidence) {
                ObjectNode r = byRank.putObject(Integer.toString(e.rank()));
                r.put("last_arrivals", e.lastArrivals());
                r.put("instances", e.instances());
                r.put("lateness_us", Math.round(e.latenessUs() * 10) / 10.0);
            }
            ArrayNode notJudged = lb.putArray("ranks_not_judged");
            RankLateness.notJudged(greds, pathmap).forEach(notJudged::add);
            ObjectNode waits = lb.putObject("collective_wait_us");
            RankLateness.waits(greds, pathmap)
                    .forEach((rank, us) -> waits.put(Integer.toString(rank), Math.round(us * 10) / 10.0));
            ArrayNode path = lb.putArray("heaviest_path");
            best.path().forEach(path::add);
            lb.put("heaviest_path_weight", best.weight());
            lb.put("heaviest_path_rank", best.slowestRank());
            ArrayNode perTree = lb.putArray("trees");
            for (LoadBalance t : trees) {
                ObjectNode o = perTree.addObject();
                o.put("tree", t.tree());
                o.put("slowest_rank", t.slowestRank());
                o.put("weight", t.weight());
                ArrayNode p = o.putArray("heaviest_path");
                t.path().forEach(p::add);
            }
            ObjectNode counts = lb.putObject("greds");
            greds.fields().forEachRemaining(e -> {
                ObjectNode g = counts.putObject(e.getKey());
                g.set("contributors", e.getValue().path("contributors"));
                g.set("last_arrivals", e.getValue().path("last_arrivals"));
                g.set("mean_arrival_wait_us", e.getValue().path("mean_arrival_wait_us"));
                g.set("calls", e.getValue().path("calls"));
                g.set("span_us", e.getValue().path("span_us"));
            });
        }
        if (stats) {
            ObjectNode wrappers = root.putObject("stats").putObject("wrappers");
            greds.fields().forEachRemaining(e -> {
                ObjectNode g = wrappers.putObject(e.getKey());
                for (String field : List.of("host", "tree", "calls", "down", "up", "below", "stages", "arrival_wait_by_order",
                        "departure_wait_by_order", "ports")) {
                    g.set(field, e.getValue().path(field));
                }
            });
            HopLatencies.add(wrappers, greds, pathmap, json);
        }
        root.set("profile", RankProfiles.report(ranks, json));
        root.put("calls_joined", calls);
        root.put("calls_dropped", dropped);
        root.put("tuples_failed", failed);
        root.put("tuples_missed", missed);
        root.put("tuples_read", read);
        // The EventSpace paper's measure (Table 2): of the tuples the monitored collectors wrote, the share analysed.
        root.put("gather_rate", read + missed == 0 ? 1.0 : (double) read / (read + missed));
        ObjectNode analysis = root.putObject("analysis");
        analysis.put("threads", threads);
        analysis.put("lowest_priority_threads", lowest);
        analysis.put("cpu_ms", cpuMs);
        analysis.put("memory_bytes", memory);
        analysis.put("rank_passes", rankPasses);
        analysis.put("rank_passes_timed", rankPassesTimed);
        if (rankPassesTimed > 0) {
            // Each process's median and 99th percentile are its own; merged, the largest: an upper bound, not a median.
            ObjectNode pass = analysis.putObject("rank_pass_ns");
            pass.put("mean", rankPassNanos / rankPassesTimed);
            pass.put("p50", rankPassP50);
            pass.put("p99", rankPassP99);
        } else {
            analysis.putNull("rank_pass_ns");
        }
        root.set("skipped", skipped);
        return root;
    }

    /**
     * The {@code live} section of a report: what the event scope had gathered of the monitors (a {@link Monitors#live}
     * block) — the scope round, every host's last version — and whether its answers equal those of the report made
     * from the processes' own parts ({@code agrees_with_final}: load balance, statistics and profile, numbers equal
     * to a relative 1e-9), as they do once the scope has every host's last set.
     */
    public static ObjectNode liveSection(JsonNode live, JsonNode report, ObjectMapper json) {
        ObjectNode out = json.createObjectNode();
        out.setAll((ObjectNode) live.path("live").deepCopy());
        boolean agrees = true;
        java.util.List<String> differ = new java.util.ArrayList<>();
        for (String block : List.of("loadbalance", "stats", "profile")) {
            if (!live.path(block).equals(NUMERIC, report.path(block))) {
                agrees = false;
                differ.add(block);
            }
        }
        out.put("agrees_with_final", agrees);
        if (!agrees) {
            ArrayNode d = out.putArray("differs_in");
            differ.forEach(d::add);
        }
        return out;
    }

    /** Numbers equal to a relative 1e-9 whatever their JSON type; other nodes by their own equality. */
    private static final java.util.Comparator<JsonNode> NUMERIC = (a, b) -> {
        if (a.isNumber() && b.isNumber()) {
            double x = a.doubleValue();
            double y = b.doubleValue();
            return Math.abs(x - y) <= 1e-9 * Math.max(1, Math.max(Math.abs(x), Math.abs(y))) ? 0 : 1;
        }
        return a.equals(b) ? 0 : 1;
    };
}
