package org.eventspace.run;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

import org.eventspace.base.json.Json;
import org.eventspace.job.JobConfigCodec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.eventspace.job.Labelled;
import org.eventspace.monitor.Analysis;
import org.eventspace.monitor.Coschedule;
import org.eventspace.monitor.MonitorKind;

/**
 * Carries a benchmark's own parameters from the launching process to its host processes (and to a forked run) as one
 * command-line word: base64 of JSON ({@value #SCHEMA}) holding the benchmark's fields and the job's configuration
 * ({@link JobConfigCodec}).
 */
public final class RunConfigCodec {
    public static final String SCHEMA = "eventspace.run-config/3";
    private static final ObjectMapper JSON = Json.mapper();

    private RunConfigCodec() {
    }

    public static String encode(RunConfig config) {
        ObjectNode node = JSON.createObjectNode();
        node.put("schema", SCHEMA);
        node.put("benchmark", config.benchmark().label());
        node.put("iterations", config.iterations());
        node.put("warmup", config.warmup());
        node.put("warmup_ms", config.warmupTime().toMillis());
        node.put("payload_words", config.payloadWords());
        node.put("sort_length", config.sortLength());
        node.put("block", config.block());
        node.set("job", JobConfigCodec.toJson(config.job()));
        ArrayNode monitors = node.putArray("monitors");
        config.monitoring().kinds().stream().map(MonitorKind::label).sorted().forEach(monitors::add);
        node.put("coschedule", config.monitoring().coschedule().label());
        node.put("analysis", config.monitoring().analysis().label());
        ObjectNode faults = node.putObject("faults");
        faults.put("slow_rank", config.faults().slowRank());
        faults.put("slow_us", config.faults().slowMicros());
        faults.put("noise", config.faults().noise());
        faults.put("noise_us", config.faults().noiseMicros());
        return Base64.getEncoder().encodeToString(node.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** @throws IllegalArgumentException naming what is malformed, in at most {@link JobConfigCodec#MAX_MESSAGE_CHARS} characters. */
    public static RunConfig decode(String word) {
        try {
            JsonNode node = JSON.readTree(Base64.getDecoder().decode(word));
            if (node == null || !node.isObject()) {
                throw new IllegalArgumentException("expected a JSON object, got " + (node == null ? "nothing" : node.getNodeType()));
            }
            if (!SCHEMA.equals(node.path("schema").asText())) {
                throw new IllegalArgumentException("expected schema " + SCHEMA + ", got " + node.path("schema"));
            }
            java.util.Set<MonitorKind> kinds = java.util.EnumSet.noneOf(MonitorKind.class);
            for (JsonNode k : node.path("monitors")) {
                kinds.add(Labelled.parse(MonitorKind.class, k.asText(), "monitor"));
            }
            Monitoring monitoring = new Monitoring(kinds, Labelled.parse(Coschedule.class, node.path("coschedule").asText("none"),
                    "coschedule"), Labelled.parse(Analysis.class, node.path("analysis").asText("distributed"), "analysis"));
            JsonNode f = node.path("faults");
            Faults faults = new Faults(f.path("slow_rank").asInt(-1), f.path("slow_us").asLong(), f.path("noise").asDouble(),
                    f.path("noise_us").asLong());
            return new RunConfig(Workload.parse(required(node, "benchmark").asText()), JobConfigCodec.fromJson(required(node, "job")),
                    required(node, "iterations").asInt(), required(node, "warmup").asInt(),
                    Duration.ofMillis(required(node, "warmup_ms").asLong()), required(node, "payload_words").asInt(),
                    required(node, "sort_length").asInt(), monitoring, faults, node.path("block").asInt());
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException(JobConfigCodec.bounded("malformed run configuration argument: "
                    + e.getMessage()), e);
        }
    }

    /** A field that must be there: a line that lacks it is refused naming it, not with a NullPointerException. */
    private static JsonNode required(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            throw new IllegalArgumentException("missing field '" + field + "'");
        }
        return value;
    }
}
