package org.eventspace.job;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What a process that ran part of a job reports to the one that launched it, as one JSON line ({@value #SCHEMA}):
 * {@code {"schema": …, "traces": [host traces], "scope": scope block or absent, "program": what the program reported,
 * "left_out": [what did not fit] or absent}}. A TCP host process and a forked in-JVM run write it
 * ({@link MonitoredJob#finish}); {@link JobLauncher} reads it. Immutable.
 *
 * @param traces  what the event spaces of its hosts recorded (empty with collectors off).
 * @param scope   the {@code scope} block of the front-end ({@link ScopeSnapshot#toJson}), or null if it ran none.
 * @param program what the program running the ranks reported (a benchmark: its ranks' results), or null.
 * @param leftOut what this host had but left out so that its line fits a limit ({@link #fitting}), a line each naming
 *                the part and its size; empty when nothing was.
 */
@JsonPropertyOrder({"schema", "traces", "scope", "program", "left_out"})
public record HostResult(List<HostTrace> traces, @JsonInclude(JsonInclude.Include.NON_NULL) JsonNode scope,
                         @JsonInclude(JsonInclude.Include.NON_NULL) JsonNode program,
                         @JsonProperty("left_out") @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> leftOut) {
    public static final String SCHEMA = "eventspace.host-result/1";
    /** The longest line accepted: a host's result is a few KB per rank; more is not ours. */
    public static final int MAX_LINE_CHARS = 64 << 20;

    public HostResult {
        traces = List.copyOf(traces);
        leftOut = List.copyOf(leftOut);
    }

    public HostResult(List<HostTrace> traces, JsonNode scope, JsonNode program) {
        this(traces, scope, program, List.of());
    }

    /**
     * This result, or, if its line is longer than {@code limitBytes} of UTF-8, one without its largest parts until it
     * fits: the scope block first, then the program's largest fields, each named with its size in {@link #leftOut}. The
     * traces' counts (a few numbers a host) always stay. Whatever is left out is reported, not silently lost: a run whose
     * monitors produced more than a line can carry still delivers every rank's value.
     */
    public HostResult fitting(ObjectMapper json, int limitBytes) {
        int length = bytes(json, this);
        if (length <= limitBytes) {
            return this;
        }
        List<String> out = new ArrayList<>(leftOut);
        if (scope != null) {
            out.add("scope (" + bytes(json, scope) + " bytes)");
        }
        ObjectNode fields = program != null && program.isObject() ? ((ObjectNode) program).deepCopy() : null;
        JsonNode kept = program;
        while (kept != null && bytes(json, new HostResult(traces, null, kept, out)) > limitBytes) {
            if (fields == null || fields.isEmpty()) {
                out.add("program (" + bytes(json, kept) + " bytes)");
                kept = null;
                break;
            }
            String largest = null;
            int largestBytes = -1;
            for (Iterator<String> names = fields.fieldNames(); names.hasNext(); ) {
                String name = names.next();
                int b = bytes(json, fields.get(name));
                if (b > largestBytes) {
                    largest = name;
                    largestBytes = b;
                }
            }
            fields.remove(largest);
            out.add("program." + largest + " (" + largestBytes + " bytes)");
            kept = fields;
        }
        return new HostResult(traces, null, kept, out);
    }

    private static int bytes(ObjectMapper json, Object value) {
        try {
            return json.writeValueAsBytes(value).length;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a host result as JSON", e);
        }
    }

    /** {@value #SCHEMA}, as every result line states it. */
    @JsonProperty("schema")
    public String schema() {
        return SCHEMA;
    }

    /** The one-line JSON document: {@code schema}, {@code traces}, and {@code scope} and {@code program} where present. */
    public String encode(ObjectMapper json) {
        try {
            return json.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a host result as JSON", e);
        }
    }

    /** @throws IllegalArgumentException naming what is malformed. */
    public static HostResult decode(ObjectMapper json, String text) {
        if (text.length() > MAX_LINE_CHARS) {
            throw new IllegalArgumentException("result line of " + text.length() + " chars exceeds " + MAX_LINE_CHARS);
        }
        JsonNode line;
        try {
            line = json.readTree(text);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON: " + e.getMessage(), e);
        }
        if (line == null || !line.isObject()) {
            throw new IllegalArgumentException("expected a JSON object");
        }
        if (!SCHEMA.equals(line.path("schema").asText())) {
            throw new IllegalArgumentException("expected schema " + SCHEMA + ", got " + abbreviate(line.path("schema").toString()));
        }
        List<HostTrace> traces = new ArrayList<>();
        line.path("traces").forEach(t -> traces.add(HostTrace.fromJson(t)));
        List<String> leftOut = new ArrayList<>();
        JsonNode left = line.path("left_out");
        if (!left.isMissingNode() && !left.isArray()) {
            throw new IllegalArgumentException("left_out: expected an array of strings, got " + abbreviate(left.toString()));
        }
        left.forEach(l -> leftOut.add(l.asText()));
        return new HostResult(traces, line.hasNonNull("scope") ? line.get("scope") : null,
                line.hasNonNull("program") ? line.get("program") : null, leftOut);
    }

    private static String abbreviate(String text) {
        return text.length() <= 80 ? text : text.substring(0, 80) + "…";
    }
}
