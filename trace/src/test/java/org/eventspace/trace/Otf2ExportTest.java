package org.eventspace.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The compressed trace's event stream for OTF2, checked against what an OTF2 event trace must be (each location's
 * events in time order, every Enter closed by the Leave of its region, MPI records on a defined communicator with a
 * peer inside it) and against the trace: an Enter/Leave pair per recorded call of each rank, a send record per send
 * matched by a receive record of the peer, a collective begin/end per collective, at the times the Perfetto export
 * draws the same calls.
 */
class Otf2ExportTest {
    @Test
    void everyCallIsAnEnterAndALeaveInOrderWithItsMessageAndCollectiveRecords() {
        CallTimeline t = new Otf2Export(PerfettoExportTest.ring(), 1_000_000).timeline();
        assertThat(t.problems()).isEmpty();
        assertThat(t.ranks()).isEqualTo(4);
        assertThat(t.communicators().get(Otf2Export.WORLD).members()).containsExactly(0, 1, 2, 3);
        for (int rank = 0; rank < 4; rank++) {
            List<CallTimeline.Event> events = t.events(rank);
            assertThat(events.stream().filter(e -> e instanceof CallTimeline.Enter).count()).isEqualTo(60);
            assertThat(events.stream().filter(e -> e instanceof CallTimeline.Leave).count()).isEqualTo(60);
            assertThat(events.stream().filter(e -> e instanceof CallTimeline.Send).count()).isEqualTo(20);
            assertThat(events.stream().filter(e -> e instanceof CallTimeline.Receive).count()).isEqualTo(20);
            assertThat(events.stream().filter(e -> e instanceof CallTimeline.CollectiveBegin).count()).isEqualTo(20);
            // a send's record sits right after its Enter, a receive's right before its Leave
            for (int i = 0; i < events.size(); i++) {
                if (events.get(i) instanceof CallTimeline.Send) {
                    assertThat(events.get(i - 1)).isInstanceOf(CallTimeline.Enter.class);
                }
                if (events.get(i) instanceof CallTimeline.Receive || events.get(i) instanceof CallTimeline.CollectiveEnd) {
                    assertThat(events.get(i + 1)).isInstanceOf(CallTimeline.Leave.class);
                }
            }
        }
        CallTimeline.Counts c = t.counts();
        assertThat(c.enters()).isEqualTo(240);
        assertThat(c.collectiveEnds()).isEqualTo(80);
        assertThat(t.regions()).extracting(CallTimeline.Region::name).containsExactlyInAnyOrder("send", "recv",
                "allreduce_long");
        CallTimeline.CollectiveEnd end = (CallTimeline.CollectiveEnd) t.events(0).stream()
                .filter(e -> e instanceof CallTimeline.CollectiveEnd).findFirst().orElseThrow();
        assertThat(end.kind()).isEqualTo("ALLREDUCE");
        assertThat(end.root()).isEqualTo(-1);
        assertThat(end.sentBytes()).as("one word of 8 bytes").isEqualTo(8);
    }

    @Test
    void everySendIsMatchedByAReceiveOfItsPeer() {
        CallTimeline t = new Otf2Export(PerfettoExportTest.ring(), 1_000_000).timeline();
        Map<String, Integer> channels = new HashMap<>();
        for (int rank = 0; rank < t.ranks(); rank++) {
            for (CallTimeline.Event e : t.events(rank)) {
                if (e instanceof CallTimeline.Send s) {
                    assertThat(s.peer()).isEqualTo((rank + 1) % 4);
                    assertThat(s.bytes()).isEqualTo(16);
                    channels.merge(rank + "->" + s.peer(), 1, Integer::sum);
                } else if (e instanceof CallTimeline.Receive r) {
                    channels.merge(r.peer() + "->" + rank, -1, Integer::sum);
                }
            }
        }
        assertThat(channels).hasSize(4).allSatisfy((channel, balance) -> assertThat(balance).as(channel).isZero());
    }

    @Test
    void callsAreWhereThePerfettoExportDrawsThem() throws Exception {
        Trace trace = PerfettoExportTest.ring();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new PerfettoExport(trace, 1_000_000).write(out);
        Map<Integer, List<JsonNode>> slices = new HashMap<>();
        for (JsonNode e : new ObjectMapper().readTree(out.toByteArray()).path("traceEvents")) {
            if (e.path("ph").asText().equals("X")) {
                slices.computeIfAbsent(e.path("tid").asInt(), k -> new ArrayList<>()).add(e);
            }
        }
        CallTimeline t = new Otf2Export(trace, 1_000_000).timeline();
        for (int rank = 0; rank < 4; rank++) {
            List<CallTimeline.Event> enters = t.events(rank).stream().filter(e -> e instanceof CallTimeline.Enter).toList();
            List<CallTimeline.Event> leaves = t.events(rank).stream().filter(e -> e instanceof CallTimeline.Leave).toList();
            List<JsonNode> x = slices.get(rank);
            assertThat(enters).hasSameSizeAs(x);
            for (int i = 0; i < x.size(); i++) {
                double ts = x.get(i).path("ts").asDouble();
                double dur = x.get(i).path("dur").asDouble();
                assertThat((double) enters.get(i).timeNs()).as("rank %d call %d's entry", rank, i)
                        .isCloseTo(ts * 1000, Offset.offset(1.0));
                assertThat((double) leaves.get(i).timeNs()).as("rank %d call %d's exit", rank, i)
                        .isCloseTo((ts + dur) * 1000, Offset.offset(1.0));
                assertThat(t.regions().get(((CallTimeline.Enter) enters.get(i)).region()).name())
                        .isEqualTo(x.get(i).path("name").asText());
            }
        }
    }

    @Test
    void nonBlockingCallsCarryTheirRequestsAndSendrecvsBothHalves() {
        List<RankTrace> ranks = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            RankTrace t = new RankTrace(r, TraceConfig.of(TimeEncoding.STATS));
            long other = 1 - 2L * r;
            t.record(Op.MPI_ISEND, 1, -1, other, 64, EventNode.NONE, 100, 10);
            t.record(Op.MPI_IRECV, 2, -1, other, 64, EventNode.NONE, 100, 10);
            t.record(Op.MPI_WAITALL, 3, -1, EventNode.NONE, EventNode.NONE, EventNode.NONE, 100, 10);
            t.record(Op.MPI_SENDRECV, 4, -1, other, 32, EventNode.NONE, 100, 10);
            t.record(Op.MPI_BCAST, 5, -1, EventNode.NONE, 128, 1, 100, 10);
            ranks.add(t);
        }
        CallTimeline t = new Otf2Export(Trace.mergeAll(ranks), 1000).timeline();
        assertThat(t.problems()).isEmpty();
        CallTimeline.Counts c = t.counts();
        assertThat(c.isends()).isEqualTo(2);
        assertThat(c.isendCompletes()).isEqualTo(2);
        assertThat(c.irecvRequests()).isEqualTo(2);
        assertThat(c.irecvs()).isEqualTo(2);
        assertThat(c.sends()).as("the sendrecvs' send halves").isEqualTo(2);
        assertThat(c.receives()).as("the sendrecvs' receive halves, their source found").isEqualTo(2);
        List<CallTimeline.Event> r0 = t.events(0);
        CallTimeline.Isend isend = (CallTimeline.Isend) r0.get(1);
        assertThat(isend.peer()).isEqualTo(1);
        assertThat(r0.get(2)).isEqualTo(new CallTimeline.IsendComplete(r0.get(3).timeNs(), isend.request()));
        CallTimeline.CollectiveEnd bcast = (CallTimeline.CollectiveEnd) t.events(1).stream()
                .filter(e -> e instanceof CallTimeline.CollectiveEnd).findFirst().orElseThrow();
        assertThat(bcast.kind()).isEqualTo("BCAST");
        assertThat(bcast.root()).isEqualTo(1);
        assertThat(bcast.sentBytes()).isEqualTo(128);
        assertThat(t.regions()).extracting(CallTimeline.Region::name).contains("MPI_Isend", "MPI_Irecv", "MPI_Waitall",
                "MPI_Sendrecv", "MPI_Bcast");
        assertThat(t.regions().stream().filter(x -> x.name().equals("MPI_Bcast")).findFirst().orElseThrow().role())
                .isEqualTo(CallTimeline.Role.ONE2ALL);
    }

    @Test
    void theLimitCutsEachRanksCallsAndSaysSo() {
        Otf2Export export = new Otf2Export(PerfettoExportTest.ring(), 7);
        CallTimeline t = export.timeline();
        assertThat(t.problems()).isEmpty();
        assertThat(export.summary().truncated()).isTrue();
        assertThat(export.summary().calls()).isEqualTo(4 * 7);
    }

    @Test
    void collectiveKindsAreOtf2Operations() {
        assertThat(Otf2Export.collectiveKind("allreduce_doubles")).isEqualTo("ALLREDUCE");
        assertThat(Otf2Export.collectiveKind("broadcast")).isEqualTo("BCAST");
        assertThat(Otf2Export.collectiveKind("MPI_Iallreduce")).isEqualTo("ALLREDUCE");
        assertThat(Otf2Export.collectiveKind("MPI_Reduce_scatter_block")).isEqualTo("REDUCE_SCATTER_BLOCK");
        assertThat(Otf2Export.collectiveKind("MPI_Ineighbor_alltoallv")).isEqualTo("ALLTOALLV");
        assertThat(Otf2Export.collectiveKind("MPI_Comm_split")).isEqualTo("CREATE_HANDLE");
        assertThat(Otf2Export.collectiveKind("MPI_Comm_free")).isEqualTo("DESTROY_HANDLE");
        assertThat(Otf2Export.regionName(Op.MPI_REDUCE_SCATTER_BLOCK)).isEqualTo("MPI_Reduce_scatter_block");
        assertThat(Otf2Export.collective(Op.MPI_COMM_FREE)).as("collective in MPI, and in the rank files").isTrue();
        assertThat(Otf2Export.role(Op.MPI_COMM_FREE)).isEqualTo(CallTimeline.Role.OTHER);
        assertThat(Otf2Export.role(Op.MPI_WAIT)).isEqualTo(CallTimeline.Role.FUNCTION);
    }

    @Test
    void aTimelineOutOfOrderOrWithAnUnclosedRegionIsNamedAndRefused() {
        CallTimeline t = new CallTimeline("job", 2);
        t.communicator(new CallTimeline.Communicator(0, "MPI_COMM_WORLD", List.of(0, 1)));
        int region = t.region("MPI_Send", CallTimeline.Role.POINT2POINT, true);
        t.add(0, new CallTimeline.Enter(10, region));
        t.add(0, new CallTimeline.Send(5, 3, 0, 0, 8));
        t.add(0, new CallTimeline.Leave(20, region + 1));
        t.add(1, new CallTimeline.Enter(10, region));
        assertThat(t.problems()).hasSize(5).anySatisfy(p -> assertThat(p).contains("earlier than"))
                .anySatisfy(p -> assertThat(p).contains("rank 3 is not in communicator MPI_COMM_WORLD"))
                .anySatisfy(p -> assertThat(p).contains("innermost open one is 0"))
                .anySatisfy(p -> assertThat(p).contains("rank 0: 1 regions entered and never left"))
                .anySatisfy(p -> assertThat(p).contains("rank 1: 1 regions entered and never left"));
        assertThatThrownBy(() -> Otf2Writer.write(t, Path.of("/nonexistent")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("not a valid event trace");
    }

    @Test
    void theStreamIsVersionedAndNamesEveryDefinitionBeforeItsEvents() throws Exception {
        CallTimeline t = new Otf2Export(PerfettoExportTest.ring(), 2).timeline();
        StringWriter w = new StringWriter();
        long lines = Otf2Writer.stream(t, w);
        List<String> text = w.toString().lines().toList();
        assertThat(text).hasSize((int) lines);
        assertThat(text.get(0)).isEqualTo(Otf2Writer.STREAM_VERSION);
        assertThat(text.get(text.size() - 1)).isEqualTo("end");
        int events = text.indexOf("events");
        assertThat(text.subList(0, events)).contains("location 3 3 rank 3", "comm 0 4 0 1 2 3 MPI_COMM_WORLD",
                "region 0 point2point mpi send");
        assertThat(text.get(events + 1)).startsWith("e 0 ");
        assertThat(text.subList(events + 1, text.size() - 1)).allSatisfy(l -> assertThat(l).matches("[a-z]{1,2} \\d+ \\d+.*"));
    }
}
