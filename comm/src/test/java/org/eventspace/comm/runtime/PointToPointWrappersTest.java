package org.eventspace.comm.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import org.eventspace.comm.path.Wrapper;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.testing.RankThreads;
import org.eventspace.comm.testing.TestClusters;
import org.junit.jupiter.api.Test;

/**
 * The door for point-to-point paths (built on demand, outside the pathmap): the sender's path and the serving
 * host's end of a hop each pass through the registered wrappers once, and every message through what they return.
 */
class PointToPointWrappersTest {
    private static final Duration BOUND = Duration.ofSeconds(60);

    /** Records which paths were wrapped and counts the messages through each side. */
    private static final class Recording implements PointToPointWrappers {
        final List<String> built = new CopyOnWriteArrayList<>();
        final AtomicLong sent = new AtomicLong();
        final AtomicLong served = new AtomicLong();

        @Override
        public Wrapper wrap(HostRuntime host, String mailbox, Side side, Wrapper wrapper) {
            built.add(host.hostName() + " " + mailbox + " " + side);
            AtomicLong count = side == Side.SEND ? sent : served;
            return m -> {
                count.incrementAndGet();
                wrapper.call(m);
            };
        }
    }

    private static void pingPong(PathmapSpec spec, Recording recording, int rounds) {
        CommOptions options = CommOptions.defaults(4).withTimeout(BOUND)
                .withKinds(WrapperKinds.builtIn().withPointToPoint(recording));
        try (InJvmCluster cluster = InJvmCluster.start(PathmapBuilder.build(spec), options)) {
            List<Long> received = RankThreads.values(cluster, BOUND, comm -> {
                long[] buf = new long[1];
                long got = 0;
                for (int i = 0; i < rounds; i++) {
                    if (comm.rank() == 0) {
                        comm.send(1, new long[] {i}, 1);
                        got += comm.recv(1, buf);
                    } else {
                        got += comm.recv(0, buf);
                        comm.send(0, buf, 1);
                    }
                }
                return got;
            });
            assertThat(received).containsExactly((long) rounds, (long) rounds);
        }
    }

    @Test
    void acrossHostsTheSenderAndTheServingHostEachWrapOnceAndSeeEveryMessage() {
        Recording recording = new Recording();
        pingPong(TestClusters.spec(2, 2, 1, TreeShape.FLAT), recording, 100);

        assertThat(recording.built).containsExactlyInAnyOrder("h0 p2p.0.1 SEND", "h1 p2p.0.1 SERVE",
                "h1 p2p.1.0 SEND", "h0 p2p.1.0 SERVE");
        assertThat(recording.sent.get()).isEqualTo(200);
        assertThat(recording.served.get()).isEqualTo(200);
    }

    @Test
    void onOneHostOnlyTheSendersPathIsWrapped() {
        Recording recording = new Recording();
        pingPong(TestClusters.spec(1, 2, 1, TreeShape.FLAT), recording, 50);

        assertThat(recording.built).containsExactlyInAnyOrder("h0 p2p.0.1 SEND", "h0 p2p.1.0 SEND");
        assertThat(recording.sent.get()).isEqualTo(100);
        assertThat(recording.served.get()).isZero();
    }
}
