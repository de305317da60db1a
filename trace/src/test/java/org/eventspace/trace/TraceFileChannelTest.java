package org.eventspace.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The optional {@code tag} and {@code communicator} of an MPI call's event: written only where recorded (so our own
 * workloads' traces do not change), merged across ranks as (value, ranklist) pairs, read back; an older MPI trace
 * without them reads as before; on a call of ours they are an error that names the place.
 */
class TraceFileChannelTest {
    private static final long NONE = EventNode.NONE;

    private static Trace twoRanks(boolean mpi) {
        RankTrace a = new RankTrace(0, TraceConfig.of(TimeEncoding.STATS));
        RankTrace b = new RankTrace(1, TraceConfig.of(TimeEncoding.STATS));
        for (int i = 0; i < 3; i++) {
            if (mpi) {
                a.record(Op.MPI_SEND, 1, -1, 1, 8, NONE, 4, 0, 10, 10);
                b.record(Op.MPI_SEND, 1, -1, -1, 8, NONE, 9, 0, 10, 10);
            } else {
                a.record(Op.SEND, 1, -1, 1, 8, NONE, 10, 10);
                b.record(Op.SEND, 1, -1, -1, 8, NONE, 10, 10);
            }
        }
        return Trace.mergeAll(List.of(a, b));
    }

    @Test
    void tagsMergeAsPairsAndReadBack() throws Exception {
        Trace t = twoRanks(true);
        ObjectNode json = TraceFile.toJson(t);
        String text = json.toString();
        assertThat(text).contains("\"tag\":[[4,[0,1,1]],[9,[1,1,1]]]").contains("\"communicator\":0");
        Trace read = TraceFile.fromJson(json, "t.json");
        assertThat(read.expand(1).get(0)).isEqualTo(new Trace.Call(Op.MPI_SEND, 1, -1, -1, 8, NONE, 9, 0));
        assertThat(read.expand(0)).isEqualTo(t.expand(0));
    }

    @Test
    void ourOwnWorkloadsTracesCarryNeither() {
        String text = TraceFile.toJson(twoRanks(false)).toString();
        assertThat(text).doesNotContain("\"tag\"").doesNotContain("\"communicator\"");
    }

    @Test
    void anMpiTraceWithoutThemReadsAsBefore() throws Exception {
        ObjectNode json = TraceFile.toJson(twoRanks(true));
        ObjectNode event = firstEvent(json);
        event.remove("tag");
        event.remove("communicator");
        Trace read = TraceFile.fromJson(json, "old.json");
        assertThat(read.expand(0).get(0).tag()).isEqualTo(NONE);
        assertThat(read.expand(0).get(0).communicator()).isEqualTo(NONE);
    }

    @Test
    void aTagOnOneOfOurCallsIsAnErrorNamingThePlace() {
        ObjectNode json = TraceFile.toJson(twoRanks(false));
        firstEvent(json).put("tag", 3);
        assertThatThrownBy(() -> TraceFile.fromJson(json, "bad.json")).isInstanceOf(TraceFormatException.class)
                .hasMessageContaining("bad.json").hasMessageContaining("/tag").hasMessageContaining("MPI program");
        ObjectNode other = TraceFile.toJson(twoRanks(true));
        firstEvent(other).put("tag", "five");
        assertThatThrownBy(() -> TraceFile.fromJson(other, "bad.json")).isInstanceOf(TraceFormatException.class)
                .hasMessageContaining("/tag");
    }

    @Test
    void packedCallsKeepTheirTagsAndCommunicators(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        // calls that never repeat: the object form would exceed the flat trace, so the writer packs them into arrays
        RankTrace a = new RankTrace(0, TraceConfig.of(TimeEncoding.STATS));
        for (int i = 0; i < 50; i++) {
            a.record(i % 2 == 0 ? Op.MPI_SEND : Op.MPI_BCAST, 1 + i, -1, i % 2 == 0 ? 1 : NONE, 8 + 7L * i,
                    i % 2 == 0 ? NONE : 0, i % 2 == 0 ? 100 + i : NONE, i % 3, 1000 + 13L * i, 500 + 11L * i);
        }
        Trace t = Trace.mergeAll(List.of(a));
        java.nio.file.Path file = dir.resolve("packed.trace.cbor");
        TraceFile.write(t, file);
        assertThat(java.nio.file.Files.size(file)).isLessThanOrEqualTo(t.flatBytes());
        ObjectNode json = TraceFile.toJson(t, TraceFile.Encoding.CBOR);
        assertThat(json.at("/groups/0/trace/0").isArray()).as("packed").isTrue();
        Trace read = TraceFile.read(file);
        assertThat(read.expand(0)).isEqualTo(t.expand(0));
        assertThat(read.expand(0).get(2).tag()).isEqualTo(102);
        assertThat(read.expand(0).get(5).communicator()).isEqualTo(2);
    }

    private static ObjectNode firstEvent(ObjectNode json) {
        ArrayNode trace = (ArrayNode) json.at("/groups/0/trace");
        ObjectNode n = (ObjectNode) trace.get(0);
        while (n.has("loop")) {
            n = (ObjectNode) n.get("body").get(0);
        }
        return n;
    }

}
