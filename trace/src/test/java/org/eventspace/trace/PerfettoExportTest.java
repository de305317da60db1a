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

    /**
     * A ring of 4 ranks: each sends to rank + 1, receives from rank − 1, then an allreduce; 20 times. Otf2ExportTest
     * draws the same calls.
     */
    static Trace ring() {
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
        int collectiveFlows = 0;
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
                    // Perfetto reads a string id as hex: a number is the only id that means what it says.
                    assertThat(e.path("id").isIntegralNumber()).as("id of %s", e).isTrue();
                    assertThat(e.path("bp").asText()).isEqualTo(ph.equals("f") ? "e" : "");
                    if (e.path("name").asText().equals("message")) {
                        assertThat((ph.equals("s") ? flowStarts : flowEnds).put(e.path("id").asText(), e.path("tid").asInt()))
                                .as("one %s per id", ph).isNull();
                    } else {
                        collectiveFlows++;
                    }
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
        assertThat(summary.messageFlows()).isEqualTo(80);
        // each of the 20 allreduces chained rank 0 -> 1 -> 2 -> 3: 3 links, an s and an f each
        assertThat(summary.collectiveFlows()).isEqualTo(60);
        assertThat(collectiveFlows).isEqualTo(120);
        assertThat(summary.unmatched()).isZero();
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
        // A message one of whose ends was cut is not drawn half: every flow still has both ends.
        assertThat(flowsHaveBothEndsInSlices(root)).isPositive();
        assertThat(summary.unmatched()).isPositive();
    }

    /**
     * An MPI program's calls as the MPI recorder puts them: a ring of MPI_Sendrecv (peer: the destination) and a ring
     * of MPI_Send / MPI_Recv. Every MPI send is a flow start (only {@code Op.SEND} was, so an MPI trace had flow ends
     * and no start), and a sendrecv is both: a start and an end on each of its slices.
     */
    @Test
    void mpiSendsStartFlowsAndASendrecvIsBothHalves() throws Exception {
        List<RankTrace> ranks = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            RankTrace t = new RankTrace(r, TraceConfig.of(TimeEncoding.STATS));
            long next = ((r + 1) % 4) - r;
            long prev = ((r + 3) % 4) - r;
            for (int i = 0; i < 10; i++) {
                t.record(Op.MPI_SENDRECV, 3, -1, next, 64, EventNode.NONE, 400, 50);
                if (r % 2 == 0) {
                    t.record(Op.MPI_SEND, 4, -1, next, 8, EventNode.NONE, 10, 20);
                    t.record(Op.MPI_RECV, 5, -1, prev, 8, EventNode.NONE, 10, 20);
                } else {
                    t.record(Op.MPI_RECV, 5, -1, prev, 8, EventNode.NONE, 10, 20);
                    t.record(Op.MPI_SEND, 4, -1, next, 8, EventNode.NONE, 10, 20);
                }
            }
            ranks.add(t);
        }
        Trace trace = Trace.mergeAll(ranks);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PerfettoExport.Summary summary = new PerfettoExport(trace, 1_000_000).write(out);
        JsonNode root = new ObjectMapper().readTree(out.toByteArray());
        assertThat(flowsHaveBothEndsInSlices(root)).isEqualTo(4 * 10 * 2);
        assertThat(summary.messageFlows()).isEqualTo(80);
        assertThat(summary.unmatched()).isZero();
        // Each sendrecv slice holds the start of its send's flow and the end of its receive's.
        Map<String, Integer> phasesAtSendrecvs = new HashMap<>();
        List<JsonNode> sendrecvs = new ArrayList<>();
        for (JsonNode e : root.path("traceEvents")) {
            if (e.path("name").asText().equals("mpi_sendrecv")) {
                sendrecvs.add(e);
                assertThat(e.path("args").path("source").asInt()).isEqualTo((e.path("tid").asInt() + 3) % 4);
            }
        }
        for (JsonNode f : root.path("traceEvents")) {
            if (!f.path("name").asText().equals("message")) {
                continue;
            }
            for (JsonNode x : sendrecvs) {
                if (x.path("tid").asInt() == f.path("tid").asInt() && inside(f, x)) {
                    phasesAtSendrecvs.merge(f.path("ph").asText(), 1, Integer::sum);
                }
            }
        }
        assertThat(phasesAtSendrecvs).containsEntry("s", 40).containsEntry("f", 40);
    }

    private static boolean inside(JsonNode flow, JsonNode slice) {
        double ts = flow.path("ts").asDouble();
        double start = slice.path("ts").asDouble();
        return ts >= start && ts <= start + slice.path("dur").asDouble();
    }

    /**
     * The flow rules Perfetto binds by: every flow id has exactly one {@code s} and at least one {@code f}, each inside
     * a slice on its own track. Returns the number of ids.
     */
    static int flowsHaveBothEndsInSlices(JsonNode root) {
        Map<Integer, List<JsonNode>> slices = new HashMap<>();
        Map<Long, List<JsonNode>> flows = new HashMap<>();
        for (JsonNode e : root.path("traceEvents")) {
            switch (e.path("ph").asText()) {
                case "X" -> slices.computeIfAbsent(e.path("tid").asInt(), k -> new ArrayList<>()).add(e);
                case "s", "f" -> flows.computeIfAbsent(e.path("id").asLong(), k -> new ArrayList<>()).add(e);
                default -> {
                }
            }
        }
        flows.forEach((id, ends) -> {
            assertThat(ends.stream().filter(e -> e.path("ph").asText().equals("s")).count()).as("starts of flow %d", id)
                    .isEqualTo(1);
            assertThat(ends.stream().filter(e -> e.path("ph").asText().equals("f")).count()).as("ends of flow %d", id)
                    .isGreaterThanOrEqualTo(1);
            for (JsonNode end : ends) {
                assertThat(slices.getOrDefault(end.path("tid").asInt(), List.of())).as("a slice enclosing %s", end)
                        .anySatisfy(x -> assertThat(inside(end, x)).isTrue());
            }
        });
        return flows.size();
    }
}
