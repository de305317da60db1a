package org.eventspace.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What a process that ran part of a benchmark reports to the one that launched it, as one JSON line:
 * {@code {"ranks": [rank results], "traces": [host traces], "scope": scope block or absent}}. A TCP host process
 * ({@link TcpHostMain}) and a forked in-JVM run ({@link ForkedRun}) write it; {@link TcpRunner} and {@link ForkedRun}
 * read it. Immutable.
 *
 * @param ranks  the results of the ranks the process ran.
 * @param traces what the event spaces of its hosts recorded (empty with collectors off).
 * @param scope  the {@code scope} block of the front-end, or null if the process ran none.
 */
record ResultLine(List<RankResult> ranks, List<HostTrace> traces, JsonNode scope) {
    ResultLine {
        ranks = List.copyOf(ranks);
        traces = List.copyOf(traces);
    }

    String encode(ObjectMapper json) {
        ObjectNode line = json.createObjectNode();
        ArrayNode r = line.putArray("ranks");
        ranks.forEach(rank -> r.add(rank.toJson(json)));
        ArrayNode t = line.putArray("traces");
        traces.forEach(trace -> t.add(trace.toJson(json)));
        if (scope != null) {
            line.set("scope", scope);
        }
        return line.toString();
    }

    /** @throws IllegalArgumentException naming what is malformed. */
    static ResultLine decode(ObjectMapper json, String text) {
        JsonNode line;
        try {
            line = json.readTree(text);
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON: " + e.getMessage(), e);
        }
        List<RankResult> ranks = new ArrayList<>();
        line.path("ranks").forEach(r -> ranks.add(RankResult.fromJson(r)));
        List<HostTrace> traces = new ArrayList<>();
        line.path("traces").forEach(t -> traces.add(HostTrace.fromJson(t)));
        return new ResultLine(ranks, traces, line.hasNonNull("scope") ? line.get("scope") : null);
    }
}
