package org.eventspace.monitor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The per-rank profile block: per rank and operation, calls and time; per operation across ranks, the smallest,
 * mean and largest time, the ranks that had them, and the imbalance {@code (max / mean − 1) × 100} (the percent
 * imbalance of Pearce et al., 0 when every rank spent the same). Each rank keeps its identity: a slow rank is named,
 * not averaged into the ranks that share its path's shape.
 */
final class RankProfiles {
    private RankProfiles() {
    }

    /** {@code ranks}: rank → operation → {calls, time_us}, as the parts carry it. */
    static ObjectNode report(ObjectNode ranks, ObjectMapper json) {
        ObjectNode root = json.createObjectNode();
        ObjectNode byRank = root.putObject("ranks");
        TreeMap<Integer, JsonNode> sorted = new TreeMap<>();
        ranks.fields().forEachRemaining(e -> sorted.put(Integer.parseInt(e.getKey()), e.getValue()));
        TreeSet<String> ops = new TreeSet<>();
        for (Map.Entry<Integer, JsonNode> e : sorted.entrySet()) {
            byRank.set(Integer.toString(e.getKey()), e.getValue());
            e.getValue().fieldNames().forEachRemaining(ops::add);
        }
        ObjectNode across = root.putObject("operations");
        for (String op : ops) {
            List<double[]> times = new ArrayList<>(); // {rank, time}
            for (Map.Entry<Integer, JsonNode> e : sorted.entrySet()) {
                JsonNode o = e.getValue().path(op);
                times.add(new double[] {e.getKey(), o.isMissingNode() ? 0 : o.path("time_us").asDouble()});
            }
            double[] min = times.get(0);
            double[] max = times.get(0);
            double sum = 0;
            for (double[] t : times) {
                sum += t[1];
                min = t[1] < min[1] ? t : min;
                max = t[1] > max[1] ? t : max;
            }
            double mean = sum / times.size();
            across.set(op, json.valueToTree(new Spread(times.size(), min[1], (int) min[0], mean, max[1], (int) max[0],
                    mean == 0 ? 0 : (max[1] / mean - 1) * 100)));
        }
        return root;
    }

    /** One operation across the ranks: smallest, mean and largest time (µs), who had them, the percent imbalance. */
    @JsonPropertyOrder({"ranks", "min_us", "min_rank", "mean_us", "max_us", "max_rank", "imbalance_pct"})
    record Spread(int ranks, @JsonProperty("min_us") double minUs, @JsonProperty("min_rank") int minRank,
                  @JsonProperty("mean_us") double meanUs, @JsonProperty("max_us") double maxUs,
                  @JsonProperty("max_rank") int maxRank, @JsonProperty("imbalance_pct") double imbalancePct) {
    }
}
