package org.eventspace.bench;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

import org.eventspace.comm.pathmap.PathmapConfig;
import org.eventspace.events.CollectorSettings;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Carries a {@link RunConfig} from the launching process to its host processes as one command-line word
 * (base64 of JSON; the pathmap travels as an {@code eventspace.pathmap/1} document).
 */
final class RunConfigCodec {
    private static final String SCHEMA = "eventspace.run-config/1";
    private static final ObjectMapper JSON = new ObjectMapper();

    private RunConfigCodec() {
    }

    static String encode(RunConfig config) {
        ObjectNode node = JSON.createObjectNode();
        node.put("schema", SCHEMA);
        node.put("benchmark", config.benchmark().label());
        node.put("pathmap", PathmapConfig.write(config.spec()));
        node.put("transport", config.transport());
        node.put("iterations", config.iterations());
        node.put("warmup", config.warmup());
        node.put("warmup_ms", config.warmupTime().toMillis());
        node.put("timeout_ms", config.timeout().toMillis());
        node.put("payload_words", config.payloadWords());
        node.put("poll", config.poll());
        node.put("socket_buffer_bytes", config.socketBufferBytes());
        node.put("collectors", config.collectors());
        node.put("sort_length", config.sortLength());
        ObjectNode collect = node.putObject("collector_settings");
        config.collectorSettings().kinds().stream().sorted().forEach(collect.putArray("kinds")::add);
        config.collectorSettings().trees().stream().sorted().forEach(collect.putArray("trees")::add);
        collect.put("capacity", config.collectorSettings().capacity());
        if (config.scope() != null) {
            ObjectNode scope = node.putObject("scope");
            scope.put("shape", config.scope().shape());
            scope.put("gather", config.scope().gather());
            scope.put("filter", config.scope().filter());
            scope.put("interval_ms", config.scope().intervalMs());
        }
        if (config.traceDump() != null) {
            node.put("trace_dump", config.traceDump().toString());
        }
        return Base64.getEncoder().encodeToString(node.toString().getBytes(StandardCharsets.UTF_8));
    }

    private static CollectorSettings collectorSettings(JsonNode node) {
        java.util.Set<String> kinds = new java.util.HashSet<>();
        node.path("kinds").forEach(k -> kinds.add(k.asText()));
        java.util.Set<Integer> trees = new java.util.HashSet<>();
        node.path("trees").forEach(t -> trees.add(t.asInt()));
        return new CollectorSettings(kinds, trees, node.get("capacity").asInt());
    }

    static RunConfig decode(String word) {
        try {
            JsonNode node = JSON.readTree(Base64.getDecoder().decode(word));
            if (!SCHEMA.equals(node.path("schema").asText())) {
                throw new IllegalArgumentException("expected schema " + SCHEMA + ", got " + node.path("schema"));
            }
            return new RunConfig(Benchmark.parse(node.get("benchmark").asText()),
                    PathmapConfig.parse(node.get("pathmap").asText(), "run-config pathmap"), node.get("transport").asText(),
                    node.get("iterations").asInt(), node.get("warmup").asInt(),
                    Duration.ofMillis(node.get("warmup_ms").asLong()), Duration.ofMillis(node.get("timeout_ms").asLong()), node.get("payload_words").asInt(),
                    node.get("poll").asText(), node.get("socket_buffer_bytes").asInt(), node.get("collectors").asBoolean(),
                    node.hasNonNull("trace_dump") ? java.nio.file.Path.of(node.get("trace_dump").asText()) : null,
                    collectorSettings(node.get("collector_settings")), node.get("sort_length").asInt(),
                    node.hasNonNull("scope") ? new RunScope(node.get("scope").get("shape").asText(),
                            node.get("scope").get("gather").asText(), node.get("scope").get("filter").asText(),
                            node.get("scope").get("interval_ms").asInt()) : null);
        } catch (java.io.IOException | RuntimeException e) {
            throw new IllegalArgumentException("malformed run configuration argument: " + e.getMessage(), e);
        }
    }
}
