package org.eventspace.monitor;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import org.eventspace.comm.pathmap.Pathmap;

/**
 * The monitors block ({@link MonitorSnapshot#report}) as the lines of a run's text summary. The first line is the one a
 * user reads first: the slowest rank and the stage the time goes to.
 */
public final class MonitorSummary {
    private MonitorSummary() {
    }

    /**
     * As {@link #of(JsonNode)}, followed by the analysis tree of the busiest tree ({@link AnalysisTree#busiestTree}; at
     * most {@code treeLines} lines).
     */
    public static String of(JsonNode monitors, Pathmap pathmap, int treeLines) {
        int tree = AnalysisTree.busiestTree(pathmap, monitors);
        return of(monitors) + "    analysis tree (tree " + tree + (tree == 0 ? "" : ", the one whose greds made the most calls")
                + "):\n" + AnalysisTree.text(pathmap, tree, monitors, treeLines);
    }

    /**
     * A heaviest path's weight as text: two decimals, or two significant digits below 0.01. The weight is a product of
     * shares down the tree, so at a thousand ranks it is a few thousandths, which two decimals would print as 0.00.
     */
    public static String weight(double weight) {
        return String.format(Locale.ROOT, weight >= 0.01 || weight == 0 ? "%.2f" : "%.2g", weight);
    }

    public static String of(JsonNode monitors) {
        StringBuilder out = new StringBuilder();
        JsonNode lb = monitors.path("loadbalance");
        JsonNode wrappers = monitors.path("stats").path("wrappers");
        List<String> headline = new ArrayList<>();
        if (lb.path("verdict").has("words")) {
            // The one verdict rule's sentence (SlowestRankRule): a culprit with its certainty, or "within chance".
            headline.add(lb.path("verdict").path("words").asText());
        }
        String[] stage = slowestStage(wrappers);
        if (stage != null) {
            headline.add("the time goes to " + stage[0] + " (" + stage[1] + " µs mean)");
        }
        out.append("  monitors: ").append(headline.isEmpty() ? "no gred monitored" : String.join("; ", headline)).append('\n');
        if (lb.has("heaviest_path")) {
            List<String> path = new ArrayList<>();
            lb.path("heaviest_path").forEach(n -> path.add(n.asText()));
            out.append(String.format(Locale.ROOT, "    heaviest path (where calls wait, weight %s): %s → rank %d%n",
                    weight(lb.path("heaviest_path_weight").asDouble()), String.join(" → ", path),
                    lb.path("heaviest_path_rank").asInt()));
        }
        JsonNode ops = monitors.path("profile").path("operations");
        Iterator<Map.Entry<String, JsonNode>> it = ops.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode o = e.getValue();
            out.append(String.format(Locale.ROOT, "    profile %s: mean %.1f µs per rank, min rank %d (%.1f µs), max rank %d "
                            + "(%.1f µs), imbalance %.1f %%%n", e.getKey(), o.path("mean_us").asDouble(), o.path("min_rank").asInt(),
                    o.path("min_us").asDouble(), o.path("max_rank").asInt(), o.path("max_us").asDouble(),
                    o.path("imbalance_pct").asDouble()));
        }
        out.append(String.format(Locale.ROOT, "    analysis: %d threads, %.1f ms CPU, %d KiB; gather rate %.2f %% (%d tuples read, "
                        + "%d missed); %d calls joined, %d dropped%n",
                monitors.path("analysis").path("threads").asInt(), monitors.path("analysis").path("cpu_ms").asDouble(),
                monitors.path("analysis").path("memory_bytes").asLong() / 1024, 100 * monitors.path("gather_rate").asDouble(1),
                monitors.path("tuples_read").asLong(), monitors.path("tuples_missed").asLong(),
                monitors.path("calls_joined").asLong(), monitors.path("calls_dropped").asLong()));
        if (monitors.path("skipped").size() > 0) {
            out.append("    not monitored: ").append(monitors.path("skipped").size()).append(" (see monitors.skipped)\n");
        }
        return out.toString();
    }

    /**
     * {name, mean} of the stage with the largest mean over the calls: at a gred its arrival (first to last contributor),
     * reduce or broadcast stage (dissertation §7.1), a hop's two-way latency or a core's store latency.
     */
    static String[] slowestStage(JsonNode wrappers) {
        String best = null;
        double bestMean = -1;
        Iterator<Map.Entry<String, JsonNode>> it = wrappers.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode w = e.getValue();
            List<String[]> candidates = List.of(new String[] {"stages", "arrival", "arrival at "},
                    new String[] {"stages", "reduce", "reduce at "}, new String[] {"stages", "broadcast", "broadcast at "},
                    new String[] {"two_way_latency", null, "the hop "}, new String[] {"store_latency", null, "the store at "});
            for (String[] c : candidates) {
                JsonNode stat = c[1] == null ? w.path(c[0]) : w.path(c[0]).path(c[1]);
                double mean = stat.path("mean").isNumber() ? stat.path("mean").asDouble() : -1;
                if (mean > bestMean) {
                    bestMean = mean;
                    best = c[2] + e.getKey();
                }
            }
        }
        return best == null ? null : new String[] {best, String.format(Locale.ROOT, "%.1f", bestMean)};
    }
}
