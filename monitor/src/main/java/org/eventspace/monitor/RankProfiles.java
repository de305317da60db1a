package org.eventspace.monitor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

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
            ObjectNode o = across.putObject(op);
            o.put("ranks", times.size());
            o.put("min_us", min[1]);
            o.put("min_rank", (int) min[0]);
            o.put("mean_us", mean);
            o.put("max_us", max[1]);
            o.put("max_rank", (int) max[0]);
            o.put("imbalance_pct", mean == 0 ? 0 : (max[1] / mean - 1) * 100);
        }
        return root;
    }
}
