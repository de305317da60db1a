package org.eventspace.trace;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The timeline export checked against the trace-event format's documented rules (Chrome "Trace Event Format": a JSON
 * object with a {@code traceEvents} array; complete events "X" with name, ph, pid, tid, ts and dur in µs; metadata "M"
 * naming processes and threads; flow events "s"/"f" with a shared id), and against the trace: one complete event per
 * recorded call of each rank, in order, not overlapping on a track, every send's flow ending at its receive.
 */
class PerfettoExportTest {
    private static final Set<String> PHASES = Set.of("X", "M", "s", "f");

    /** A ring of 4 ranks: each sends to rank + 1, receives from rank − 1, then an allreduce; 20 times. */
    private static Trace ring() {
        List<RankTrace> ranks = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            RankTrace t = new RankTrace(r, TraceConfig.of(TimeEncoding.HIST));
            for (int i = 0; i < 20; i++) {
                long peerOut = ((r + 1) % 4) - r;
                long peerIn = ((r + 3) % 4) - r;
                t.record(Op.SEND, 7, -1, peerOut, 2, EventNode.NONE, 1000 + 10 * r, 500);
                t.record(Op.RECV, 8, -1, peerIn, 2, EventNode.NONE, 100, 2000);
                t.record(Op.ALLREDUCE_LONG, 9, 0, EventNode.NONE, 1, EventNode.NONE, 3000 + (i % 3) * 1000, 700);
            }
            ranks.add(t);
        }
        return Trace.mergeAll(ranks);
    }

    @Test
    void theTimelineFollowsTheFormatAndTheTrace() throws Exception {
        Trace trace = ring();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PerfettoExport.Summary summary = new PerfettoExport(trace, 1_000_000).write(out);
        JsonNode root = new ObjectMapper().readTree(out.toByteArray());
        assertThat(root.path("otherData").path("schema").asText()).isEqualTo(PerfettoExport.SCHEMA);
        JsonNode events = root.path("traceEvents");
        assertThat(events.isArray()).isTrue();
        Map<Integer, List<JsonNode>> slices = new HashMap<>();
        Map<String, Integer> flowStarts = new HashMap<>();
        Map<String, Integer> flowEnds = new HashMap<>();
        int threadNames = 0;
        for (JsonNode e : events) {
            String ph = e.path("ph").asText();
            assertThat(PHASES).as("phase of %s", e).contains(ph);
            assertThat(e.path("name").isTextual()).as("name of %s", e).isTrue();
            assertThat(e.path("pid").isInt()).isTrue();
            switch (ph) {
                case "M" -> {
                    assertThat(e.path("args").path("name").isTextual()).isTrue();
                    if (e.path("name").asText().equals("thread_name")) {
                        threadNames++;
                    }
                }
                case "X" -> {
                    assertThat(e.path("ts").isNumber() && e.path("ts").asDouble() >= 0).as("ts of %s", e).isTrue();
                    assertThat(e.path("dur").isNumber() && e.path("dur").asDouble() >= 0).as("dur of %s", e).isTrue();
                    slices.computeIfAbsent(e.path("tid").asInt(), k -> new ArrayList<>()).add(e);
                }
                default -> {
                    assertThat(e.path("id").isTextual()).isTrue();
                    assertThat(e.path("bp").asText()).isEqualTo("e");
                    (ph.equals("s") ? flowStarts : flowEnds).put(e.path("id").asText(), e.path("tid").asInt());
                }
            }
        }
        assertThat(threadNames).isEqualTo(4);
        for (int r = 0; r < 4; r++) {
            List<Trace.Call> calls = trace.expand(r);
            List<JsonNode> track = slices.get(r);
            assertThat(track).hasSize(calls.size());
            double end = 0;
            for (int i = 0; i < calls.size(); i++) {
                JsonNode e = track.get(i);
                assertThat(e.path("name").asText()).isEqualTo(calls.get(i).op().fileName());
                assertThat(e.path("ts").asDouble()).as("rank %d event %d starts after the previous ended", r, i)
                        .isGreaterThanOrEqualTo(end - 1e-9);
                end = e.path("ts").asDouble() + e.path("dur").asDouble();
            }
            // The allreduces are numbered alike on every rank: one collective instance per number.
            assertThat(track.stream().filter(e -> e.path("name").asText().equals("allreduce_long"))
                    .mapToLong(e -> e.path("args").path("instance").asLong()).toArray())
                    .containsExactly(java.util.stream.LongStream.range(0, 20).toArray());
        }
        // Every message drawn from its sender's track to its receiver's.
        assertThat(flowStarts).hasSize(80);
        assertThat(flowEnds.keySet()).isEqualTo(flowStarts.keySet());
        flowStarts.forEach((id, from) -> assertThat(flowEnds.get(id)).isEqualTo((from + 1) % 4));
        assertThat(summary.events()).isEqualTo(240);
        assertThat(summary.flows()).isEqualTo(160);
        assertThat(summary.truncated()).isFalse();
    }

    @Test
    void aLimitCutsEachRankAndSaysSo() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PerfettoExport.Summary summary = new PerfettoExport(ring(), 10).write(out);
        assertThat(summary.events()).isEqualTo(40);
        assertThat(summary.truncated()).isTrue();
        JsonNode root = new ObjectMapper().readTree(out.toByteArray());
        long slices = 0;
        for (JsonNode e : root.path("traceEvents")) {
            slices += e.path("ph").asText().equals("X") ? 1 : 0;
        }
        assertThat(slices).isEqualTo(40);
    }
}
