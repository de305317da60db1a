package org.eventspace.comm.traffic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.eventspace.comm.traffic.TrafficCounterLayout.BYTES_RECEIVED_OFFSET;
import static org.eventspace.comm.traffic.TrafficCounterLayout.BYTES_SENT_OFFSET;
import static org.eventspace.comm.traffic.TrafficCounterLayout.MESSAGES_RECEIVED_OFFSET;
import static org.eventspace.comm.traffic.TrafficCounterLayout.MESSAGES_SENT_OFFSET;

import java.time.Duration;
import java.util.List;

import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.runtime.CommOptions;
import org.eventspace.comm.runtime.InJvmCluster;
import org.eventspace.comm.testing.RankThreads;
import org.eventspace.comm.testing.TestClusters;
import org.junit.jupiter.api.Test;

/**
 * The transports' traffic counters in a simulated job of one rank per host, where every message crosses a hop: what
 * each port counted, sent and received apart, per phase, and what a scope leaves out (ibprof paper §3.2).
 */
class TrafficCountersTest {
    private static final Duration BOUND = Duration.ofSeconds(60);
    private static final int RANKS = 4;

    private static InJvmCluster start(TrafficScope scope) {
        PathmapSpec spec = TestClusters.spec(RANKS, RANKS, 1, TreeShape.FLAT);
        Pathmap pathmap = PathmapBuilder.build(spec);
        return InJvmCluster.start(pathmap, CommOptions.defaults(pathmap.busyThreads()).withTraffic(scope));
    }

    private static TrafficCounters.Port port(InJvmCluster cluster, int host, TrafficCounters.PortKind kind, int id) {
        return cluster.host(host).traffic().ports().stream().filter(p -> p.kind() == kind && p.id() == id).findFirst()
                .orElseThrow(() -> new AssertionError("host " + host + " has no " + kind + " port " + id));
    }

    /** Rank r sends r + 1 words to every other rank, in rank order, then receives one message from each. */
    private static void sendToAll(org.eventspace.comm.Comm comm) {
        long[] data = new long[RANKS + 1];
        for (int d = 0; d < RANKS; d++) {
            if (d != comm.rank()) {
                comm.send(d, data, comm.rank() + 1);
            }
        }
        long[] into = new long[RANKS + 1];
        for (int s = 0; s < RANKS; s++) {
            if (s != comm.rank()) {
                comm.recv(s, into);
            }
        }
    }

    @Test
    void pointToPointCountsEachPairOnceAtEachEndAndNotTheAcknowledgement() {
        try (InJvmCluster cluster = start(TrafficScope.all())) {
            RankThreads.values(cluster, BOUND, comm -> {
                sendToAll(comm);
                return 0;
            });
            for (int r = 0; r < RANKS; r++) {
                TrafficCounters.Port p = port(cluster, r, TrafficCounters.PortKind.RANK, r);
                for (int peer = 0; peer < RANKS; peer++) {
                    long sent = peer == r ? 0 : 8L * (r + 1);
                    long received = peer == r ? 0 : 8L * (peer + 1);
                    assertThat(p.read(peer, 0, BYTES_SENT_OFFSET)).as("rank %d bytes to %d", r, peer).isEqualTo(sent);
                    assertThat(p.read(peer, 0, MESSAGES_SENT_OFFSET)).isEqualTo(peer == r ? 0 : 1);
                    assertThat(p.read(peer, 0, BYTES_RECEIVED_OFFSET)).as("rank %d bytes from %d", r, peer).isEqualTo(received);
                    assertThat(p.read(peer, 0, MESSAGES_RECEIVED_OFFSET)).isEqualTo(peer == r ? 0 : 1);
                    // the same messages under their operation, and under no other
                    assertThat(p.readOperation(peer, TrafficTag.SEND, BYTES_SENT_OFFSET)).isEqualTo(sent);
                    assertThat(p.readOperation(peer, TrafficTag.SEND, BYTES_RECEIVED_OFFSET)).isEqualTo(received);
                    assertThat(p.readOperation(peer, TrafficTag.ALLREDUCE, BYTES_SENT_OFFSET)).isZero();
                }
            }
        }
    }

    @Test
    void treeHopsCountUnderTheHostsBothWays() {
        int calls = 100;
        try (InJvmCluster cluster = start(TrafficScope.all())) {
            RankThreads.values(cluster, BOUND, comm -> {
                for (int i = 0; i < calls; i++) {
                    comm.allreduce(new long[] {1, 2}, 2, ReduceOp.SUM);
                }
                return 0;
            });
            int root = cluster.pathmap().root(0).host();
            for (int h = 0; h < RANKS; h++) {
                if (h == root) {
                    continue;
                }
                TrafficCounters.Port mine = port(cluster, h, TrafficCounters.PortKind.HOST, h);
                TrafficCounters.Port theirs = port(cluster, root, TrafficCounters.PortKind.HOST, root);
                // A flat tree: every other host's one rank calls the root gred over one hop, 2 words down, 2 words back.
                assertThat(mine.read(root, 0, BYTES_SENT_OFFSET)).isEqualTo(16L * calls);
                assertThat(mine.read(root, 0, MESSAGES_SENT_OFFSET)).isEqualTo(calls);
                assertThat(mine.read(root, 0, BYTES_RECEIVED_OFFSET)).isEqualTo(16L * calls);
                assertThat(theirs.read(h, 0, BYTES_RECEIVED_OFFSET)).isEqualTo(16L * calls);
                assertThat(theirs.read(h, 0, MESSAGES_SENT_OFFSET)).isEqualTo(calls);
                assertThat(mine.readOperation(root, TrafficTag.ALLREDUCE, BYTES_SENT_OFFSET)).isEqualTo(16L * calls);
                assertThat(theirs.readOperation(h, TrafficTag.ALLREDUCE, MESSAGES_SENT_OFFSET)).isEqualTo(calls);
                assertThat(mine.readOperation(root, TrafficTag.SEND, BYTES_SENT_OFFSET)).isZero();
            }
        }
    }

    @Test
    void aScopeOfPhasesCountsOnlyThoseAndNumbersPhasesByFirstMark() {
        TrafficScope scope = TrafficScope.parse("phases:exchange");
        try (InJvmCluster cluster = start(scope)) {
            RankThreads.values(cluster, BOUND, comm -> {
                comm.phase("setup");
                sendToAll(comm);
                comm.phase("exchange");
                sendToAll(comm);
                sendToAll(comm);
                comm.phase("setup");
                sendToAll(comm);
                return 0;
            });
            assertThat(scope.phaseNames()).containsExactly(TrafficScope.UNMARKED, "setup", "exchange");
            TrafficCounters.Port p = port(cluster, 1, TrafficCounters.PortKind.RANK, 1);
            assertThat(p.read(0, 1, BYTES_SENT_OFFSET)).as("setup is not counted").isZero();
            assertThat(p.read(0, 2, BYTES_SENT_OFFSET)).isEqualTo(2 * 16L);
            assertThat(p.read(0, 2, MESSAGES_SENT_OFFSET)).isEqualTo(2);
            assertThat(p.read(3, 2, BYTES_RECEIVED_OFFSET)).isEqualTo(2 * 32L);
        }
    }

    @Test
    void aScopeOfCollectivesLeavesTheOthersOut() {
        try (InJvmCluster cluster = start(TrafficScope.parse("collectives:send"))) {
            RankThreads.values(cluster, BOUND, comm -> {
                comm.allreduce(1L, ReduceOp.SUM);
                sendToAll(comm);
                comm.barrier();
                return 0;
            });
            int root = cluster.pathmap().root(0).host();
            int other = (root + 1) % RANKS;
            List<TrafficCounters.Port> ports = cluster.host(other).traffic().ports();
            TrafficCounters.Port hostPort = ports.stream().filter(p -> p.kind() == TrafficCounters.PortKind.HOST)
                    .findFirst().orElseThrow();
            assertThat(hostPort.read(root, 0, MESSAGES_SENT_OFFSET)).as("allreduce and barrier left out").isZero();
            assertThat(port(cluster, other, TrafficCounters.PortKind.RANK, other).read(root, 0, MESSAGES_SENT_OFFSET))
                    .isEqualTo(1);
        }
    }

    @Test
    void withoutAScopeNothingIsCountedAndPhasesAreOnlyChecked() {
        PathmapSpec spec = TestClusters.spec(2, 2, 1, TreeShape.FLAT);
        try (InJvmCluster cluster = TestClusters.start(spec)) {
            RankThreads.values(cluster, BOUND, comm -> {
                comm.phase("a");
                comm.allreduce(1L, ReduceOp.SUM);
                return 0;
            });
            assertThat(cluster.host(0).traffic().enabled()).isFalse();
            assertThat(cluster.host(0).traffic().ports()).isEmpty();
            assertThatThrownBy(() -> cluster.comm(0).phase("no spaces")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("phase name 'no spaces'");
        }
    }

    /**
     * Over TCP each process numbers its own ranks' phases: a message of a phase the receiving process has not seen marked
     * yet (its ranks are a little behind) is counted there too, because the sender's scope decides (the tag's counted
     * bit), not the receiver's. Before, the receiver looked the tag up in its own table and lost such a message.
     */
    @Test
    void theReceivingEndCountsWhatTheSenderCountsBeforeItSawThePhase() {
        TrafficScope sender = TrafficScope.parse("phases:solve");
        TrafficScope receiver = TrafficScope.parse("phases:solve");
        org.eventspace.comm.path.Message m = new org.eventspace.comm.path.Message(2).length(2)
                .tag(sender.tag(sender.phase("solve"), TrafficTag.SEND));
        TrafficCounters there = new TrafficCounters(1, 2, 2, receiver);
        there.server(true, 0, 1, 0).request(m);
        assertThat(there.ports().get(0).read(0, 1, BYTES_RECEIVED_OFFSET)).isEqualTo(16);
        org.eventspace.comm.path.Message other = new org.eventspace.comm.path.Message(2).length(2)
                .tag(sender.tag(sender.phase("setup"), TrafficTag.SEND));
        there.server(true, 0, 1, 0).request(other);
        assertThat(there.ports().get(0).read(0, 2, BYTES_RECEIVED_OFFSET)).as("setup is out of the scope").isZero();
    }

    @Test
    void aScopeOnOneTreeCountsThatTreesCollectivesAndEverySend() {
        int calls = 100;
        TrafficScope scope = TrafficScope.parse("all;trees:0");
        assertThat(scope.text()).isEqualTo("all;trees:0");
        assertThat(TrafficScope.parse(scope.text()).countsTree(1)).isFalse();
        PathmapSpec spec = TestClusters.spec(RANKS, RANKS, 2, TreeShape.FLAT);
        Pathmap pathmap = PathmapBuilder.build(spec);
        try (InJvmCluster cluster = InJvmCluster.start(pathmap, CommOptions.defaults(pathmap.busyThreads()).withTraffic(scope))) {
            RankThreads.values(cluster, BOUND, comm -> {
                for (int i = 0; i < calls; i++) {
                    comm.allreduce(new long[] {1}, 1, ReduceOp.SUM); // call i on tree i mod 2
                }
                sendToAll(comm);
                return 0;
            });
            long sent = 0;
            for (int h = 0; h < RANKS; h++) {
                TrafficCounters.Port host = port(cluster, h, TrafficCounters.PortKind.HOST, h);
                for (int peer = 0; peer < RANKS; peer++) {
                    sent += host.readOperation(peer, TrafficTag.ALLREDUCE, MESSAGES_SENT_OFFSET);
                }
            }
            // A flat tree of 4 hosts: per call, 3 requests to the root and 3 results back; tree 0 has half the calls.
            assertThat(sent).as("tree 0's half of the calls").isEqualTo(6L * calls / 2);
            assertThat(port(cluster, 0, TrafficCounters.PortKind.RANK, 0).readOperation(1, TrafficTag.SEND, BYTES_SENT_OFFSET))
                    .as("a send belongs to no tree").isEqualTo(8);
        }
        assertThatThrownBy(() -> TrafficScope.parse("all;tree:0")).hasMessageContaining("expected ';trees:T,…'");
        assertThatThrownBy(() -> TrafficScope.parse("all;trees:x")).hasMessageContaining("'x' is not a tree index");
    }

    @Test
    void everyKindHasAnOperationCellAndAName() {
        for (int k = 0; k < TrafficTag.KINDS; k++) {
            assertThat(TrafficTag.kindName(k)).doesNotStartWith("kind-");
        }
        assertThat(TrafficTag.kindName(TrafficTag.KINDS)).startsWith("kind-");
        assertThat(TrafficTag.KINDS).isLessThanOrEqualTo(TrafficTag.KIND_MASK + 1);
        assertThat(TrafficCounterLayout.operationCellOffset(0, TrafficTag.KINDS - 1) + TrafficCounterLayout.CELL_LENGTH)
                .isEqualTo(TrafficCounterLayout.cellOffset(1, 0));
    }

    @Test
    void scopesParseAndRefuseWithWhatWasExpected() {
        assertThat(TrafficScope.parse("all").mode()).isEqualTo(TrafficScope.Mode.ALL);
        assertThat(TrafficScope.parse("collectives:alltoall,send").text()).isEqualTo("collectives:alltoall,send");
        assertThat(TrafficScope.parse("phases:a,b").phases()).containsExactly("a", "b");
        assertThatThrownBy(() -> TrafficScope.parse("some")).hasMessageContaining("expected all, collectives:K,… or phases:P,…");
        assertThatThrownBy(() -> TrafficScope.parse("collectives:allreduce,fft"))
                .hasMessageContaining("'fft' is not a collective; expected one of send,allreduce");
        assertThatThrownBy(() -> TrafficScope.parse("phases:")).hasMessageContaining("expected a comma-separated list");
        assertThatThrownBy(() -> TrafficScope.parse("phases:a,b,c,d,e,f,g,h"))
                .hasMessageContaining("at most 7 phases");
        TrafficScope scope = TrafficScope.all();
        for (int i = 1; i < TrafficTag.MAX_PHASES; i++) {
            assertThat(scope.phase("p" + i)).isEqualTo(i);
        }
        assertThatThrownBy(() -> scope.phase("one-too-many")).hasMessageContaining("at most 7 phases");
    }
}
