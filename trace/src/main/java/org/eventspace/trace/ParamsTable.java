package org.eventspace.trace;

import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Parameters that differ by rank, each distinct list of (value, ranklist) pairs written once: the file's
 * {@code params_table}, which an event's {@code peer}, {@code words} or {@code root} names as {@code [index]}
 * (docs/TRACE-FORMAT.md, "Shared parameters").
 *
 * <p>Why: ScalaTrace's location-independent end-points (Ratn et al. §3.2) make a halo exchange's peer one value on the
 * inner ranks, but the edges and the directions of a grid remain (value, ranklist) pairs, and a stencil repeats the
 * same few pairs at every one of its exchange calls (LAMMPS at 4 ranks: two peer lists, at 210 events). Written once,
 * each such call carries a two-byte reference instead of its pairs. Only lists used twice or more are shared (one
 * used once is cheaper inline). Stateless.
 */
final class ParamsTable {
    /** The top-level field holding the table. */
    static final String FIELD = "params_table";
    private static final String[] PARAMS = {"peer", "words", "root"};

    private ParamsTable() {
    }

    /**
     * Rewrites a trace document made by {@link TraceFile#toJson} in place: every list of (value, ranklist) pairs that
     * two or more events hold moves into one {@value #FIELD}, and the events name it as {@code [index]}.
     */
    static void compact(ObjectNode root) {
        JsonNode groups = root.get("groups");
        if (groups == null || !groups.isArray()) {
            return;
        }
        Map<JsonNode, Integer> uses = new LinkedHashMap<>();
        for (JsonNode g : groups) {
            visit(g.get("trace"), uses, null);
        }
        Map<JsonNode, Integer> index = new LinkedHashMap<>();
        uses.forEach((list, n) -> {
            if (n >= 2) {
                index.put(list, index.size());
            }
        });
        if (index.isEmpty()) {
            return;
        }
        for (JsonNode g : groups) {
            visit(g.get("trace"), null, index);
        }
        ArrayNode table = root.putArray(FIELD);
        index.keySet().forEach(table::add);
    }

    /** Counts the lists into {@code uses}, or replaces those in {@code index} by their reference. */
    private static void visit(JsonNode nodes, Map<JsonNode, Integer> uses, Map<JsonNode, Integer> index) {
        if (nodes == null || !nodes.isArray()) {
            return;
        }
        for (JsonNode n : nodes) {
            if (n.has("body")) {
                visit(n.get("body"), uses, index);
                continue;
            }
            for (String name : PARAMS) {
                JsonNode v = n.get(name);
                if (v == null || !v.isArray() || isReference(v)) {
                    continue;
                }
                if (uses != null) {
                    uses.merge(v, 1, Integer::sum);
                } else if (index.containsKey(v)) {
                    ((ObjectNode) n).putArray(name).add(index.get(v));
                }
            }
        }
    }

    /** {@code [index]}: one integer in an array, which a list of pairs (each an array) never is. */
    static boolean isReference(JsonNode v) {
        return v.isArray() && v.size() == 1 && v.get(0).isIntegralNumber();
    }
}
