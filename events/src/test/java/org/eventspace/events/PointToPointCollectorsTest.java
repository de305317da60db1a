package org.eventspace.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.Topology;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.runtime.CommOptions;
import org.eventspace.comm.runtime.InJvmCluster;
import org.eventspace.comm.runtime.WrapperKinds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Point-to-point sends, built outside the pathmap, are traced too: a collector on the sender's path and one on the
 * serving host, whose tuples join by the mailbox's sequence; a host out of budget keeps sending, untraced.
 */
@Timeout(60)
class PointToPointCollectorsTest {
    private static final int SENDS = 100;

    private static void sendAndReceive(InJvmCluster cluster) throws Exception {
        org.eventspace.comm.Comm rank0 = cluster.comm(0);
        org.eventspace.comm.Comm rank1 = cluster.comm(1);
        Thread receiver = new Thread(() -> {
            long[] buf = new long[1];
            for (int i = 0; i < SENDS; i++) {
                rank1.recv(0, buf);
            }
        });
        receiver.start();
        for (int i = 0; i < SENDS; i++) {
            rank0.send(1, new long[] {i}, 1);
        }
        receiver.join(30_000);
        assertThat(receiver.isAlive()).isFalse();
    }

    @Test
    void aSendAcrossHostsIsTimedOnBothSidesOfTheHop() throws Exception {
        Map<Integer, EventSpace> spaces = new ConcurrentHashMap<>();
        PathmapSpec spec = PathmapSpec.of(Topology.simulated(1, 2, 1), 2, 1, TreeShape.FLAT);
        CommOptions options = CommOptions.defaults(4).withTimeout(Duration.ofSeconds(20)).withKinds(WrapperKinds.builtIn()
                .withPointToPoint(new PointToPointCollectors(h -> spaces.computeIfAbsent(h.host(),
                        id -> EventSpace.direct("h" + id, 1 << 20, 64)))));
        try (InJvmCluster cluster = InJvmCluster.start(PathmapBuilder.build(spec), options)) {
            sendAndReceive(cluster);
        }
        EventSpace.Entry send = spaces.get(0).entries().get(0);
        EventSpace.Entry serve = spaces.get(1).entries().get(0);
        assertThat(send.collectorName()).isEqualTo("p2p.0.1.send");
        assertThat(serve.collectorName()).isEqualTo("p2p.0.1.serve");
        assertThat(send.collectorId()).isGreaterThanOrEqualTo(PointToPointCollectors.FIRST_ID);
        assertThat(send.buffer().capacity()).isEqualTo(PointToPointCollectors.CAPACITY);

        TraceBufferReader sent = send.buffer().newReader();
        TraceBufferReader served = serve.buffer().newReader();
        TraceTupleFlyweight s = new TraceTupleFlyweight();
        TraceTupleFlyweight v = new TraceTupleFlyweight();
        for (int i = 0; i < SENDS; i++) {
            assertThat(sent.readNext(s)).isTrue();
            assertThat(served.readNext(v)).isTrue();
            assertThat(s.opType()).isEqualTo(TraceOp.SEND);
            assertThat(v.sequence()).as("both sides name the send by the mailbox's sequence").isEqualTo(s.sequence());
            // t1 <= t2 <= t3 <= t4: the serving host's part lies inside the sender's (one clock in one JVM).
            assertThat(s.startNs()).isLessThanOrEqualTo(v.startNs());
            assertThat(v.endNs()).isLessThanOrEqualTo(s.endNs());
        }
        assertThat(sent.readNext(s)).isFalse();
    }

    @Test
    void aHostOutOfBudgetKeepsSendingUntraced() throws Exception {
        // A budget too small for one 256-tuple buffer.
        EventSpace tiny = EventSpace.direct("h0", 4096, 64);
        PathmapSpec spec = PathmapSpec.of(Topology.simulated(1, 1, 2), 2, 1, TreeShape.FLAT);
        CommOptions options = CommOptions.defaults(2).withTimeout(Duration.ofSeconds(20))
                .withKinds(WrapperKinds.builtIn().withPointToPoint(new PointToPointCollectors(h -> tiny)));
        try (InJvmCluster cluster = InJvmCluster.start(PathmapBuilder.build(spec), options)) {
            sendAndReceive(cluster);
        }
        assertThat(tiny.entries()).isEqualTo(List.of());
    }
}
