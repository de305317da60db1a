package org.eventspace.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.eventspace.comm.path.Message;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.Topology;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.traffic.TrafficCounters;
import org.eventspace.comm.traffic.TrafficScope;
import org.eventspace.comm.traffic.TrafficTag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Two processes' parts merged into one matrix, written and read back; parts whose phases disagree are refused. */
class TrafficMatrixTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** 4 ranks on 2 hosts: ranks 0, 1 on h0 and 2, 3 on h1. */
    private static final PathmapSpec SPEC = PathmapSpec.of(Topology.simulated(1, 2, 2), 4, 1, TreeShape.FLAT);

    @TempDir
    Path dir;

    @Test
    void partsOfTwoProcessesMergeIntoRankAndHostMatricesAndSurviveTheFile() throws Exception {
        TrafficScope scope0 = TrafficScope.all();
        TrafficScope scope1 = TrafficScope.all();
        TrafficCounters h0 = new TrafficCounters(0, 4, 2, scope0);
        TrafficCounters h1 = new TrafficCounters(1, 4, 2, scope1);
        int phase0 = scope0.phase("solve");
        assertThat(scope1.phase("solve")).isEqualTo(phase0);
        Message m = new Message(3).length(3).tag(scope0.tag(phase0, TrafficTag.SEND));
        // Rank 1 (h0) sends rank 2 (h1) one 24-byte message, counted at both ends.
        h0.client(true, 1, 2, 1).request(m);
        h1.server(true, 1, 2, 0).request(m);
        // One tree hop h1 -> h0 with its reply (a collective's result going back).
        Message tree = new Message(1).length(1).tag(scope1.tag(0, TrafficTag.ALLREDUCE));
        h1.client(false, -1, -1, 0).request(tree);
        h0.server(false, -1, -1, 1).request(tree);
        h0.server(false, -1, -1, 1).reply(tree);
        h1.client(false, -1, -1, 0).reply(tree);
        TrafficMatrix merged = TrafficMatrix.merge(List.of(TrafficMatrix.part(List.of(h0), JSON),
                TrafficMatrix.part(List.of(h1), JSON)), SPEC);
        assertThat(merged.phases()).containsExactly(TrafficScope.UNMARKED, "solve");
        assertThat(merged.rankMatrix(1, 0)[1][2]).isEqualTo(24);
        assertThat(merged.rankMatrix(1, 2)[1][2]).isEqualTo(24);
        assertThat(merged.rankMatrix(-1, 1)[1][2]).isEqualTo(1);
        long[][] hostBytes = merged.hostMatrix(-1, 0);
        assertThat(hostBytes[0][1]).as("rank 1's message and the tree's reply").isEqualTo(24 + 8);
        assertThat(hostBytes[1][0]).as("the tree's request").isEqualTo(8);
        assertThat(TrafficMatrix.total(merged.hostMatrix(-1, 0))).isEqualTo(TrafficMatrix.total(merged.hostMatrix(-1, 2)));
        // Per operation: the point-to-point message under send, the tree hop under allreduce; together the total.
        assertThat(merged.operations()).containsExactly("send", "allreduce");
        assertThat(merged.rankMatrixOf(0, 0)[1][2]).isEqualTo(24);
        assertThat(merged.hostMatrixOf(0, 0)[0][1]).isEqualTo(24);
        assertThat(merged.hostMatrixOf(1, 0)[1][0]).as("the tree's request").isEqualTo(8);
        assertThat(merged.hostMatrixOf(1, 0)[0][1]).as("the tree's reply").isEqualTo(8);
        assertThat(TrafficMatrix.total(merged.rankMatrixOf(1, 0))).as("a tree hop belongs to the hosts").isZero();
        for (int f = 0; f < 4; f++) {
            assertThat(TrafficMatrix.total(merged.hostMatrixOf(0, f)) + TrafficMatrix.total(merged.hostMatrixOf(1, f)))
                    .isEqualTo(TrafficMatrix.total(merged.hostMatrix(-1, f)));
        }
        Path file = dir.resolve("t.json");
        merged.write(file, null);
        TrafficMatrix read = TrafficMatrix.read(file);
        assertThat(read.hostMatrix(-1, 0)).isDeepEqualTo(hostBytes);
        assertThat(read.rankMatrix(1, 3)).isDeepEqualTo(merged.rankMatrix(1, 3));
        assertThat(read.operations()).containsExactly("send", "allreduce");
        assertThat(read.hostMatrixOf(1, 2)).isDeepEqualTo(merged.hostMatrixOf(1, 2));
    }

    @Test
    void processesThatNumberedThePhasesDifferentlyAreRefused() {
        ObjectNode a = part("setup", "solve");
        ObjectNode b = part("solve", "setup");
        assertThatThrownBy(() -> TrafficMatrix.merge(List.of(a, b), SPEC))
                .hasMessageContaining("traffic part 1: phase 1 is 'solve' there but 'setup' in an earlier part");
    }

    @Test
    void aDamagedFileIsRefusedNamingThePlace() throws Exception {
        TrafficMatrix m = TrafficMatrix.merge(List.of(part()), SPEC);
        Path file = dir.resolve("t.json");
        m.write(file, null);
        ObjectNode doc = (ObjectNode) JSON.readTree(file.toFile());
        ((ArrayNode) doc.at("/phases/0/host/bytes_sent/1")).set(0, JSON.getNodeFactory().numberNode(-5));
        Files.writeString(file, doc.toString());
        assertThatThrownBy(() -> TrafficMatrix.read(file)).hasMessageContaining("t.json: /phases/0/host/bytes_sent/1/0: "
                + "expected a count >= 0, got -5");
    }

    private static ObjectNode part(String... phases) {
        ObjectNode p = JSON.createObjectNode();
        p.put("scope", "all");
        ArrayNode names = p.putArray("phases").add(TrafficScope.UNMARKED);
        for (String ph : phases) {
            names.add(ph);
        }
        p.putArray("ports");
        return p;
    }
}
