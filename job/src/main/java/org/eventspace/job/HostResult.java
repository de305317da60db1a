package org.eventspace.job;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * What a process that ran part of a job reports to the one that launched it, as one JSON line ({@value #SCHEMA}):
 * {@code {"schema": …, "traces": [host traces], "scope": scope block or absent, "program": what the program reported}}.
 * A TCP host process and a forked in-JVM run write it ({@link MonitoredJob#finish}); {@link JobLauncher} reads it.
 * Immutable.
 *
 * @param traces  what the event spaces of its hosts recorded (empty with collectors off).
 * @param scope   the {@code scope} block of the front-end ({@link ScopeSnapshot#toJson}), or null if it ran none.
 * @param program what the program running the ranks reported (a benchmark: its ranks' results), or null.
 */
@JsonPropertyOrder({"schema", "traces", "scope", "program"})
public record HostResult(List<HostTrace> traces, @JsonInclude(JsonInclude.Include.NON_NULL) JsonNode scope,
                         @JsonInclude(JsonInclude.Include.NON_NULL) JsonNode program) {
    public static final String SCHEMA = "eventspace.host-result/1";
    /** The longest line accepted: a host's result is a few KB per rank; more is not ours. */
    public static final int MAX_LINE_CHARS = 64 << 20;

    public HostResult {
        traces = List.copyOf(traces);
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
        return new HostResult(traces, line.hasNonNull("scope") ? line.get("scope") : null,
                line.hasNonNull("program") ? line.get("program") : null);
    }

    private static String abbreviate(String text) {
        return text.length() <= 80 ? text : text.substring(0, 80) + "…";
    }
}
