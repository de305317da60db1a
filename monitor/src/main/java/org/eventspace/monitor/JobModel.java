package org.eventspace.monitor;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.eventspace.base.json.Json;
import org.eventspace.monitor.model.Coverage;
import org.eventspace.monitor.model.RankRecord;
import org.eventspace.monitor.model.RunModel;
import org.eventspace.monitor.model.SlowestRankRule;
import org.eventspace.monitor.model.Verdict;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A job of ours as the one run model ({@link RunModel}), from its {@code monitors} block ({@link MonitorSnapshot#report})
 * and what each rank returned: each rank with its result, and — when the load-balance monitor ran — its last arrivals,
 * lateness and wait at the gred its path enters; with the profile, its calls and time per operation; the verdict of
 * {@link SlowestRankRule} and the heaviest path; what the collectors wrote and the analysis missed. Used at the end of a
 * run (the report) and while it runs (the dashboard, {@code /metrics}).
 */
public final class JobModel {
    private JobModel() {
    }

    /**
     * What a job is, apart from its monitors.
     *
     * @param benchmark  the workload's name.
     * @param hostOf     each rank's host.
     * @param transport  {@code jvm} or {@code tcp}.
     * @param wallS      the timed part's wall time, null if not measured (or while running).
     */
    public record Job(String benchmark, int[] hostOf, int hosts, String transport, Double wallS) {
    }

    /** How one rank ended: null error and ok when it returned the exact result. */
    public record Outcome(int rank, boolean ok, String error) {
    }

    /**
     * The model; {@code outcomes} null while the job runs (no rank has returned), {@code monitors} null without
     * monitors.
     */
    public static RunModel of(Job job, JsonNode monitors, List<Outcome> outcomes, List<String> errors,
                              long tuplesWritten, long tuplesOverwritten) {
        int ranks = job.hostOf().length;
        boolean running = outcomes == null;
        JsonNode lb = monitors == null ? null : monitors.get("loadbalance");
        Map<Integer, Outcome> results = new HashMap<>();
        if (outcomes != null) {
            outcomes.forEach(r -> results.put(r.rank(), r));
        }
        Map<Integer, double[]> waits = waitsByRank(lb);
        JsonNode profiles = monitors == null ? null : monitors.path("profile").path("ranks");
        List<RankRecord> perRank = new ArrayList<>(ranks);
        List<Coverage.UnfinishedRank> unfinished = new ArrayList<>();
        boolean ok = !running && errors.isEmpty();
        for (int r = 0; r < ranks; r++) {
            Outcome result = results.get(r);
            String error = running ? null : result == null ? "rank " + r + ": no result arrived"
                    : result.error() != null ? "rank " + r + ": " + result.error()
                    : !result.ok() ? "rank " + r + ": got a wrong result" : null;
            boolean finished = result != null && result.error() == null;
            ok &= result != null && result.ok();
            if (!running && !finished) {
                unfinished.add(new Coverage.UnfinishedRank(r, result == null ? "no result arrived" : result.error()));
            }
            JsonNode evidence = lb == null ? null : lb.path("ranks").get(Integer.toString(r));
            double[] w = waits.get(r);
            JsonNode behindProxy = lb == null ? null : lb.path("collective_wait_us").get(Integer.toString(r));
            perRank.add(new RankRecord(r, job.hostOf()[r], finished, null, error,
                    calls(profiles, r), null, w != null ? Double.valueOf(round(w[0])) : behindProxy != null ? Double.valueOf(behindProxy.asDouble()) : null,
                    evidence == null ? null : evidence.path("lateness_us").asDouble(),
                    evidence == null ? null : evidence.path("last_arrivals").asLong(),
                    evidence == null ? null : evidence.path("instances").asLong(), null, null, profile(profiles, r)));
        }
        Verdict.SlowestRank slowest = slowest(lb);
        Verdict.HeaviestPath heaviest = null;
        if (lb != null && lb.path("heaviest_path").isArray() && lb.path("heaviest_path").size() > 0) {
            List<String> path = new ArrayList<>();
            lb.path("heaviest_path").forEach(n -> path.add(n.asText()));
            int end = lb.path("heaviest_path_rank").asInt(-1);
            heaviest = new Verdict.HeaviestPath(path, end < 0 ? null : end, lb.path("heaviest_path_weight").asDouble(),
                    slowest.rank() != null && slowest.rank() == end);
        }
        int toolThreads = monitors == null ? 0 : monitors.path("analysis").path("threads").asInt();
        // Every host of `run` is on this machine (threads of one JVM, or host processes on loopback).
        Verdict.Load load = Verdict.Load.of(Runtime.getRuntime().availableProcessors(), ranks, toolThreads);
        List<String> allErrors = RunModel.errorsOf(perRank, errors);
        if (!running && !ok && allErrors.isEmpty()) {
            allErrors.add("the run's results did not check out");
        }
        String fault = unfinished.isEmpty() ? null : "rank " + unfinished.get(0).rank() + " did not finish ("
                + unfinished.get(0).reason() + ")" + (unfinished.size() > 1 ? " nor did " + (unfinished.size() - 1)
                + " other(s)" : "");
        String headline = fault == null ? slowest.words() : fault + "; " + slowest.words();
        long read = monitors == null ? 0 : monitors.path("tuples_read").asLong();
        long missed = monitors == null ? tuplesOverwritten : monitors.path("tuples_missed").asLong();
        Coverage coverage = new Coverage(tuplesWritten, read, missed, Coverage.gatherRate(read, missed), 0, 0, 0, 0,
                monitors == null ? 0 : monitors.path("calls_dropped").asLong(), unfinished);
        return new RunModel(RunModel.SCHEMA, RunModel.WORKLOAD, job.benchmark(), ranks, job.hosts(), job.transport(),
                job.wallS(), running || ok, running ? List.of() : allErrors, perRank, RunModel.operationsOf(perRank),
                new Verdict(slowest, heaviest, load, headline), coverage);
    }

    private static Verdict.SlowestRank slowest(JsonNode lb) {
        if (lb == null || !lb.has("verdict")) {
            return SlowestRankRule.none("no verdict: the load-balance monitor did not run (--monitor loadbalance)");
        }
        try {
            return Json.mapper().convertValue(lb.get("verdict"), Verdict.SlowestRank.class);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("the monitors' verdict does not read back: " + e.getMessage(), e);
        }
    }

    /** Per rank its total wait at the gred its path enters (mean wait × calls, summed over its trees), µs. */
    private static Map<Integer, double[]> waitsByRank(JsonNode lb) {
        Map<Integer, double[]> out = new HashMap<>();
        if (lb == null) {
            return out;
        }
        lb.path("greds").fields().forEachRemaining(e -> {
            JsonNode g = e.getValue();
            JsonNode contributors = g.path("contributors");
            long calls = g.path("calls").asLong();
            for (int p = 0; p < contributors.size(); p++) {
                String who = contributors.get(p).asText();
                if (who.startsWith("rank ") && !who.contains(",")) {
                    int rank = Integer.parseInt(who.substring("rank ".length()));
                    out.computeIfAbsent(rank, k -> new double[1])[0] += g.path("mean_arrival_wait_us").path(p).asDouble() * calls;
                }
            }
        });
        return out;
    }

    private static Long calls(JsonNode profiles, int rank) {
        JsonNode p = profiles == null ? null : profiles.get(Integer.toString(rank));
        if (p == null) {
            return null;
        }
        long calls = 0;
        for (JsonNode op : p) {
            calls += op.path("calls").asLong();
        }
        return calls;
    }

    private static Map<String, RankRecord.Calls> profile(JsonNode profiles, int rank) {
        JsonNode p = profiles == null ? null : profiles.get(Integer.toString(rank));
        if (p == null) {
            return null;
        }
        Map<String, RankRecord.Calls> out = new LinkedHashMap<>();
        List<String> names = new ArrayList<>();
        p.fieldNames().forEachRemaining(names::add);
        names.sort(Comparator.naturalOrder());
        for (String op : names) {
            out.put(op, new RankRecord.Calls(p.path(op).path("calls").asLong(), p.path(op).path("time_us").asDouble()));
        }
        return out;
    }

    private static double round(double x) {
        return Math.round(x * 10.0) / 10.0;
    }
}
