package org.eventspace.job;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.eventspace.base.json.Json;
import org.eventspace.comm.launch.CpuBinding;
import org.eventspace.comm.pathmap.PathmapConfig;
import org.eventspace.comm.runtime.PathExtension;
import org.eventspace.events.CollectorSettings;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Carries a {@link JobConfig} from the process that launches a job to its host processes: a JSON object
 * ({@value #SCHEMA}; the pathmap travels as an {@code eventspace.pathmap/1} document), or one command-line word
 * (base64 of that JSON). Decoding validates everything again, as any input from outside.
 */
public final class JobConfigCodec {
    public static final String SCHEMA = "eventspace.job-config/1";
    /**
     * The most characters a message of {@link #decode} or {@link #fromJson} has: the project's bound for text that
     * quotes its input back (a 10 MB transport name is not echoed whole into a host process's log).
     */
    public static final int MAX_MESSAGE_CHARS = 1024;
    private static final ObjectMapper JSON = Json.mapper();

    private JobConfigCodec() {
    }

    public static ObjectNode toJson(JobConfig config) {
        CollectorSettings c = config.collectorSettings();
        ScopeSettings s = config.scope();
        PathExtension e = config.extension();
        return JSON.valueToTree(new Document(SCHEMA, PathmapConfig.write(config.spec()), config.transport().label(),
                config.timeout().toMillis(), config.poll().label(), config.socketBufferBytes(), config.binding().label(),
                config.collectors(),
                new Collect(c.kinds().stream().sorted().toList(), c.trees().stream().sorted().toList(), c.capacity()),
                s == null ? null : new Scope(s.shapeText(), s.gather().toString(), s.filter().text(), s.intervalMs()),
                config.traceDump() == null ? null : config.traceDump().toString(), config.traffic(),
                e == null ? null : new Extension(e.name(), e.argument())));
    }

    /** The {@value #SCHEMA} document; scope, trace dump, traffic and extension are absent when the job has none. */
    @JsonPropertyOrder({"schema", "pathmap", "transport", "timeout_ms", "poll", "socket_buffer_bytes", "bind", "collectors",
            "collector_settings", "scope", "trace_dump", "traffic", "extension"})
    record Document(String schema, String pathmap, String transport, @JsonProperty("timeout_ms") long timeoutMs,
                    String poll, @JsonProperty("socket_buffer_bytes") int socketBufferBytes, String bind,
                    boolean collectors, @JsonProperty("collector_settings") Collect collectorSettings,
                    @JsonInclude(JsonInclude.Include.NON_NULL) Scope scope,
                    @JsonProperty("trace_dump") @JsonInclude(JsonInclude.Include.NON_NULL) String traceDump,
                    @JsonInclude(JsonInclude.Include.NON_NULL) String traffic,
                    @JsonInclude(JsonInclude.Include.NON_NULL) Extension extension) {
    }

    /** {@code collector_settings}: kinds and trees sorted, so equal settings give equal documents. */
    @JsonPropertyOrder({"kinds", "trees", "capacity"})
    record Collect(List<String> kinds, List<Integer> trees, int capacity) {
    }

    @JsonPropertyOrder({"shape", "gather", "filter", "interval_ms"})
    record Scope(String shape, String gather, String filter, @JsonProperty("interval_ms") int intervalMs) {
    }

    /** The layer's name and its argument (null when it takes none), for the host process to make it again. */
    @JsonPropertyOrder({"name", "argument"})
    record Extension(String name, String argument) {
    }

    /** @throws IllegalArgumentException naming what is missing or malformed, in at most {@link #MAX_MESSAGE_CHARS} characters. */
    public static JobConfig fromJson(JsonNode node) {
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException("malformed job configuration: expected a JSON object, got "
                    + (node == null ? "nothing" : node.getNodeType()));
        }
        try {
            if (!SCHEMA.equals(node.path("schema").asText())) {
                throw new IllegalArgumentException("expected schema " + SCHEMA + ", got " + node.path("schema"));
            }
            JsonNode scope = node.get("scope");
            return new JobConfig(PathmapConfig.parse(required(node, "pathmap").asText(), "job-config pathmap"),
                    JobTransport.parse(required(node, "transport").asText()),
                    Duration.ofMillis(required(node, "timeout_ms").asLong()), PollMode.parse(required(node, "poll").asText()),
                    required(node, "socket_buffer_bytes").asInt(), required(node, "collectors").asBoolean(),
                    node.hasNonNull("trace_dump") ? Path.of(node.get("trace_dump").asText()) : null,
                    collectorSettings(required(node, "collector_settings")),
                    scope == null || scope.isNull() ? null : ScopeSettings.parse(required(scope, "shape").asText(),
                            required(scope, "gather").asText(), required(scope, "filter").asText(),
                            required(scope, "interval_ms").asInt()),
                    node.hasNonNull("traffic") ? node.get("traffic").asText() : null,
                    node.hasNonNull("bind") ? CpuBinding.parse(node.get("bind").asText()) : CpuBinding.NONE,
                    node.hasNonNull("extension") ? extension(node.get("extension")) : null);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(bounded("malformed job configuration: " + e.getMessage()), e);
        }
    }

    /** The layer named in {@code "extension": {"name", "argument"}}, made by its provider on this class path. */
    private static PathExtension extension(JsonNode node) {
        return PathExtension.Provider.named(required(node, "name").asText()).open(required(node, "argument").asText());
    }

    /** {@code message} if it has at most {@link #MAX_MESSAGE_CHARS} characters, else its start and its length. */
    public static String bounded(String message) {
        if (message.length() <= MAX_MESSAGE_CHARS) {
            return message;
        }
        return message.substring(0, MAX_MESSAGE_CHARS - 40) + "… (" + message.length() + " characters)";
    }

    private static JsonNode required(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            throw new IllegalArgumentException("missing field '" + field + "'");
        }
        return value;
    }

    private static CollectorSettings collectorSettings(JsonNode node) {
        Set<String> kinds = new HashSet<>();
        node.path("kinds").forEach(k -> kinds.add(k.asText()));
        Set<Integer> trees = new HashSet<>();
        node.path("trees").forEach(t -> trees.add(t.asInt()));
        return new CollectorSettings(kinds, trees, required(node, "capacity").asInt());
    }

    /** One command-line word: base64 of {@link #toJson}. */
    public static String encode(JobConfig config) {
        return Base64.getEncoder().encodeToString(toJson(config).toString().getBytes(StandardCharsets.UTF_8));
    }

    /** @throws IllegalArgumentException naming what is malformed, in at most {@link #MAX_MESSAGE_CHARS} characters. */
    public static JobConfig decode(String word) {
        JsonNode node;
        try {
            node = JSON.readTree(Base64.getDecoder().decode(word));
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException(bounded("malformed job configuration argument: " + e.getMessage()), e);
        }
        return fromJson(node);
    }
}
