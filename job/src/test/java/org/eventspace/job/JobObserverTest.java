package org.eventspace.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;

import org.eventspace.comm.launch.JobEnvironment;
import org.eventspace.comm.transport.tcp.JobSecret;
import org.eventspace.comm.launch.Rendezvous;
import org.eventspace.comm.path.Gred;
import org.eventspace.comm.pathmap.TreeShape;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A joined job asks the registered {@link JobObserver}s once it started, tells a watch when it finishes and when it
 * closes, in that order; an observer that refuses stops the join and leaves nothing open. One host over loopback TCP,
 * with its own rendezvous in this JVM.
 */
@Timeout(60)
class JobObserverTest {
    @BeforeEach
    void clear() {
        RecordingObserver.EVENTS.clear();
    }

    @Test
    void aWatchIsToldOfTheStartTheFinishAndTheCloseInOrder() {
        JobSecret secret = JobSecret.random();
        try (Rendezvous rendezvous = Rendezvous.start("127.0.0.1", 0, secret, 1, Duration.ofSeconds(20))) {
            JobConfig config = JobConfig.of(JobConfig.shortcut(2, 1, 1, TreeShape.hier(2)), JobTransport.TCP)
                    .withScope(ScopeSettings.parse("flat", "seq", "stats", 50));
            try (MonitoredJob job = MonitoredJob.join(config, environment(rendezvous, secret), p -> Gred.ReleaseListener.NONE,
                    Map.of(RecordingObserver.ENV, "yes"))) {
                assertThat(RecordingObserver.EVENTS).containsExactly("watch host 0 front-end");
                job.runRanks(rank -> {
                    job.comm(rank).barrier();
                    return true;
                }, Duration.ofSeconds(20));
                job.finish(null);
                assertThat(RecordingObserver.EVENTS).containsExactly("watch host 0 front-end", "finishing");
            }
            assertThat(RecordingObserver.EVENTS).containsExactly("watch host 0 front-end", "finishing", "close");
        }
    }

    @Test
    void withoutTheRequestNothingWatches() {
        JobSecret secret = JobSecret.random();
        try (Rendezvous rendezvous = Rendezvous.start("127.0.0.1", 0, secret, 1, Duration.ofSeconds(20));
             MonitoredJob job = MonitoredJob.join(JobConfig.of(JobConfig.shortcut(1, 1, 1, TreeShape.hier(2)), JobTransport.TCP),
                     environment(rendezvous, secret), p -> Gred.ReleaseListener.NONE, Map.of())) {
            assertThat(job.host()).isZero();
        }
        assertThat(RecordingObserver.EVENTS).isEmpty();
    }

    @Test
    void anObserverThatRefusesStopsTheJoinWithItsMessage() {
        JobSecret secret = JobSecret.random();
        try (Rendezvous rendezvous = Rendezvous.start("127.0.0.1", 0, secret, 1, Duration.ofSeconds(20))) {
            assertThatThrownBy(() -> MonitoredJob.join(JobConfig.of(JobConfig.shortcut(1, 1, 1, TreeShape.hier(2)),
                    JobTransport.TCP), environment(rendezvous, secret), p -> Gred.ReleaseListener.NONE,
                    Map.of(RecordingObserver.ENV, "fail"))).hasMessage("ES_TEST_OBSERVER: refused on purpose");
        }
        assertThat(RecordingObserver.EVENTS).isEmpty();
    }

    private static JobEnvironment environment(Rendezvous rendezvous, JobSecret secret) {
        InetSocketAddress at = InetSocketAddress.createUnresolved("127.0.0.1", rendezvous.address().getPort());
        return new JobEnvironment(0, 1, "test", at, false, secret, Duration.ofSeconds(20), 0);
    }
}
