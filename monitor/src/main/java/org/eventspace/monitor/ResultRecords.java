package org.eventspace.monitor;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.eventspace.scope.filter.ScopeRecord;

/**
 * A host's part of the monitors' results ({@link MonitorSnapshot#toJson}) as the small records a scope gathers, and
 * back: one record per number or text of the part, its event the place in the part and its value the number. This is
 * how the analysis threads' results travel through an event scope (EventSpace paper §4.3), leaving the merge of the
 * parts to the one code that merges them at the end ({@link MonitorSnapshot#report}).
 *
 * <p>Places are written as in a JSON pointer ({@code /greds/t0.gred.h1.0/ports/[1]/down/mean}): an object's key as is
 * (with {@code ~}, {@code /} and {@code =} escaped as {@code ~0}, {@code ~1} and {@code ~2}), an array's index in brackets. A text's record
 * carries it after {@code =} with value 0; a null has value NaN and event {@code place!}; a boolean value 1 or 0 and event
 * {@code place?}. Empty objects and arrays are
 * not sent, and read back as absent (every reader of a part uses {@code path()}, which treats both alike).
 */
final class ResultRecords {
    /** The field a host's last part carries, true: its monitors stopped and nothing newer will come. */
    static final String FINAL = "final";
    /** The event of that field's record. */
    private static final String FINAL_EVENT = "/" + FINAL + "?";

    private ResultRecords() {
    }

    /** Whether {@code records} (a set, header or not) are a host's last part ({@link #FINAL}). */
    static boolean isFinal(List<ScopeRecord> records) {
        for (ScopeRecord r : records) {
            if (r.event().equals(FINAL_EVENT)) {
                return r.value() != 0;
            }
        }
        return false;
    }

    /**
     * A host's published set: the records of {@code part} and its {@link #FINAL} field, {@code last}. The field is in
     * every set, true or false, so that a host's last set has the same events as the one before it and a leaf passes it
     * as values only (a field that appeared only in the last set made every host's last set travel whole, names and
     * all, in the round that drains the scope at the end). Sets the field in {@code part} itself (a fresh part per
     * publication: copying it would double what a publication costs the analysis thread).
     */
    static List<ScopeRecord> flatten(ObjectNode part, long round, boolean last) {
        part.remove(FINAL);
        part.put(FINAL, last);
        return flatten(part, round);
    }

    /** The records of {@code part}, in document order; {@code round} is the producer's version. */
    static List<ScopeRecord> flatten(JsonNode part, long round) {
        List<ScopeRecord> out = new ArrayList<>();
        flatten(part, "", round, out);
        return out;
    }

    private static void flatten(JsonNode node, String place, long round, List<ScopeRecord> out) {
        if (node.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> it = node.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                flatten(e.getValue(), place + "/" + escape(e.getKey()), round, out);
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                flatten(node.get(i), place + "/[" + i + "]", round, out);
            }
        } else if (node.isNumber()) {
            out.add(new ScopeRecord(-1, place, round, node.asDouble()));
        } else if (node.isNull()) {
            out.add(new ScopeRecord(-1, place + "!", round, Double.NaN));
        } else if (node.isBoolean()) {
            out.add(new ScopeRecord(-1, place + "?", round, node.asBoolean() ? 1 : 0));
        } else {
            out.add(new ScopeRecord(-1, place + "=" + node.asText(), round, 0));
        }
    }

    /**
     * The part the records describe. Integral values come back as longs, others as doubles.
     *
     * @throws IllegalArgumentException naming the record whose place is malformed.
     */
    static ObjectNode unflatten(List<ScopeRecord> records, ObjectMapper json) {
        ObjectNode root = json.createObjectNode();
        for (int i = 0; i < records.size(); i++) {
            ScopeRecord r = records.get(i);
            String event = r.event();
            int eq = event.indexOf('=');
            String place = eq >= 0 ? event.substring(0, eq) : event;
            boolean isNull = eq < 0 && place.endsWith("!");
            boolean isBoolean = eq < 0 && place.endsWith("?");
            if (isNull || isBoolean) {
                place = place.substring(0, place.length() - 1);
            }
            if (!place.startsWith("/")) {
                throw new IllegalArgumentException("result record " + i + ": place '" + place + "' does not start with /");
            }
            String[] steps = place.substring(1).split("/", -1);
            JsonNode at = root;
            for (int s = 0; s < steps.length; s++) {
                boolean last = s == steps.length - 1;
                boolean nextIsIndex = !last && isIndex(steps[s + 1]);
                at = step(at, steps[s], last, nextIsIndex, i);
                if (last) {
                    JsonNode value = eq >= 0 ? json.getNodeFactory().textNode(event.substring(eq + 1))
                            : isNull ? json.getNodeFactory().nullNode()
                            : isBoolean ? json.getNodeFactory().booleanNode(r.value() != 0) : number(json, r.value());
                    put(at, steps[s], value, i);
                }
            }
        }
        return root;
    }

    /** Into container {@code at}, the child {@code step} (made if absent), or at itself when the step is the last. */
    private static JsonNode step(JsonNode at, String step, boolean last, boolean childIsArray, int record) {
        if (last) {
            return at;
        }
        if (isIndex(step)) {
            ArrayNode a = array(at, step, record);
            JsonNode child = a.get(index(step));
            if (child.isNull()) {
                child = childIsArray ? a.arrayNode() : a.objectNode();
                a.set(index(step), child);
            }
            return child;
        }
        ObjectNode o = object(at, step, record);
        String key = unescape(step);
        JsonNode child = o.get(key);
        return child != null ? child : childIsArray ? o.putArray(key) : o.putObject(key);
    }

    private static void put(JsonNode at, String step, JsonNode value, int record) {
        if (isIndex(step)) {
            array(at, step, record).set(index(step), value);
        } else {
            object(at, step, record).set(unescape(step), value);
        }
    }

    /** {@code at} as an array long enough for index {@code step}. */
    private static ArrayNode array(JsonNode at, String step, int record) {
        if (!at.isArray()) {
            throw new IllegalArgumentException("result record " + record + ": index " + step + " into an object");
        }
        ArrayNode a = (ArrayNode) at;
        int index = index(step);
        while (a.size() <= index) {
            a.addNull();
        }
        return a;
    }

    private static ObjectNode object(JsonNode at, String step, int record) {
        if (!at.isObject()) {
            throw new IllegalArgumentException("result record " + record + ": key " + step + " into an array");
        }
        return (ObjectNode) at;
    }

    private static JsonNode number(ObjectMapper json, double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return json.getNodeFactory().numberNode((long) v);
        }
        return json.getNodeFactory().numberNode(v);
    }

    private static boolean isIndex(String step) {
        return step.length() >= 3 && step.charAt(0) == '[' && step.charAt(step.length() - 1) == ']';
    }

    private static int index(String step) {
        try {
            int i = Integer.parseInt(step.substring(1, step.length() - 1));
            if (i < 0 || i > 1 << 20) {
                throw new NumberFormatException();
            }
            return i;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("result record: index " + step + " is not 0.." + (1 << 20));
        }
    }

    private static String escape(String key) {
        if (key.startsWith("[")) {
            throw new IllegalArgumentException("a result key may not start with '[': " + key);
        }
        return key.replace("~", "~0").replace("/", "~1").replace("=", "~2");
    }

    private static String unescape(String step) {
        return step.replace("~2", "=").replace("~1", "/").replace("~0", "~");
    }
}
