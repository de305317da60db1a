package org.eventspace.ui;

import java.util.Iterator;
import java.util.Set;

import org.eventspace.base.json.Json;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A launcher's request that a job's host 0 serve the live dashboard: what {@code run --transport tcp --serve} and
 * {@code launch --serve} put in every host process's environment as {@link #ENV} (one line of JSON,
 * {@code eventspace.dashboard-request/1}), and {@link DashboardObserver} reads when the process joins the job.
 *
 * <pre>
 * {"schema": "eventspace.dashboard-request/1", "port": 0, "bind": "127.0.0.1",
 *  "name": "gsum", "description": "gsum, 4 ranks on 2 host processes", "injected_slow_rank": 3}
 * </pre>
 * {@code port} 0..65535 (0: any free port; host 0 prints the address it got), {@code bind} the address to listen on,
 * {@code name} and {@code description} the page's title line, {@code injected_slow_rank} the rank a fault was
 * injected into (−1: none). Immutable.
 */
public record DashboardRequest(int port, String bind, String name, String description, int injectedSlowRank) {
    /** The environment variable that carries the request. */
    public static final String ENV = "ES_DASHBOARD";
    public static final String SCHEMA = "eventspace.dashboard-request/1";
    private static final Set<String> FIELDS = Set.of("schema", "port", "bind", "name", "description", "injected_slow_rank");
    private static final ObjectMapper JSON = Json.mapper();

    public DashboardRequest {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException(ENV + ": port must be 0..65535 (0: any free port), got " + port);
        }
        if (bind == null || bind.isBlank()) {
            throw new IllegalArgumentException(ENV + ": bind must be an address, got '" + bind + "'");
        }
        if (injectedSlowRank < -1) {
            throw new IllegalArgumentException(ENV + ": injected_slow_rank must be a rank or -1 (none), got " + injectedSlowRank);
        }
        name = name == null ? "" : name;
        description = description == null ? "" : description;
    }

    /** The one line of JSON that goes into {@link #ENV}. */
    public String encode() {
        ObjectNode o = JSON.createObjectNode();
        o.put("schema", SCHEMA);
        o.put("port", port);
        o.put("bind", bind);
        o.put("name", name);
        o.put("description", description);
        o.put("injected_slow_rank", injectedSlowRank);
        return o.toString();
    }

    /**
     * Reads {@link #ENV}'s value.
     *
     * @throws IllegalArgumentException naming the variable, the field and what was expected.
     */
    public static DashboardRequest decode(String text) {
        JsonNode o;
        try {
            o = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(ENV + ": expected one JSON object (" + SCHEMA + "), got '" + cut(text)
                    + "': " + e.getOriginalMessage());
        }
        if (o == null || !o.isObject()) {
            throw new IllegalArgumentException(ENV + ": expected a JSON object (" + SCHEMA + "), got '" + cut(text) + "'");
        }
        if (!SCHEMA.equals(o.path("schema").asText(null))) {
            throw new IllegalArgumentException(ENV + ": /schema: expected \"" + SCHEMA + "\", got " + cut(String.valueOf(o.get("schema"))));
        }
        for (Iterator<String> names = o.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                throw new IllegalArgumentException(ENV + ": /" + cut(name) + ": not a field of " + SCHEMA + " (fields: "
                        + String.join(", ", new java.util.TreeSet<>(FIELDS)) + ")");
            }
        }
        return new DashboardRequest(integer(o, "port", 0), text(o, "bind", DashboardServer.LOOPBACK), text(o, "name", ""),
                text(o, "description", ""), integer(o, "injected_slow_rank", -1));
    }

    private static int integer(JsonNode o, String field, int absent) {
        JsonNode v = o.get(field);
        if (v == null) {
            return absent;
        }
        if (!v.isInt()) {
            throw new IllegalArgumentException(ENV + ": /" + field + ": expected an integer, got " + cut(v.toString()));
        }
        return v.intValue();
    }

    private static String text(JsonNode o, String field, String absent) {
        JsonNode v = o.get(field);
        if (v == null) {
            return absent;
        }
        if (!v.isTextual()) {
            throw new IllegalArgumentException(ENV + ": /" + field + ": expected a string, got " + cut(v.toString()));
        }
        return v.textValue();
    }

    private static String cut(String s) {
        return s == null ? "null" : s.length() <= 40 ? s : s.substring(0, 40) + "…";
    }
}
