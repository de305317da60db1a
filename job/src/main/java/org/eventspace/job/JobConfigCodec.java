package org.eventspace.job;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.HashSet;
import java.util.Set;

import org.eventspace.base.json.Json;
import org.eventspace.comm.launch.CpuBinding;
import org.eventspace.comm.pathmap.PathmapConfig;
import org.eventspace.comm.runtime.PathExtension;
import org.eventspace.events.CollectorSettings;

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
        ObjectNode node = JSON.createObjectNode();
        node.put("schema", SCHEMA);
        node.put("pathmap", PathmapConfig.write(config.spec()));
        node.put("transport", config.transport().label());
        node.put("timeout_ms", config.timeout().toMillis());
        node.put("poll", config.poll().label());
        node.put("socket_buffer_bytes", config.socketBufferBytes());
        node.put("bind", config.binding().label());
        node.put("collectors", config.collectors());
        ObjectNode collect = node.putObject("collector_settings");
        config.collectorSettings().kinds().stream().sorted().forEach(collect.putArray("kinds")::add);
        config.collectorSettings().trees().stream().sorted().forEach(collect.putArray("trees")::add);
        collect.put("capacity", config.collectorSettings().capacity());
        if (config.scope() != null) {
            ObjectNode scope = node.putObject("scope");
            scope.put("shape", config.scope().shapeText());
            scope.put("gather", config.scope().gather().toString());
            scope.put("filter", config.scope().filter().text());
            scope.put("interval_ms", config.scope().intervalMs());
        }
        if (config.traceDump() != null) {
            node.put("trace_dump", config.traceDump().toString());
        }
        if (config.traffic() != null) {
            node.put("traffic", config.traffic());
        }
        if (config.extension() != null) {
            ObjectNode extension = node.putObject("extension");
            extension.put("name", config.extension().name());
            extension.put("argument", config.extension().argument());
        }
        return node;
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
