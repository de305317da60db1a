package org.eventspace.ui;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Closing the dashboard never waits on its sampler: a frame of a large job on a loaded machine can take the sampler's
 * lowered thread seconds, and Agrona's own close would wait for it, retrying every five seconds, for ever if the frame
 * never ends. The sampler ends after the frame it is taking.
 */
@Timeout(60)
class DashboardServerCloseTest {
    @Test
    void closeReturnsWhileTheSamplerIsStuckInAFrameAndTheSamplerEndsAfterIt() throws Exception {
        CountDownLatch inFrame = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean hold = new java.util.concurrent.atomic.AtomicBoolean();
        DashboardSource stuck = new RunningFileSource("run.json", CraftedRuns.mpiRun()) {
            @Override
            public Optional<JsonNode> monitors() {
                if (hold.get()) {
                    inFrame.countDown();
                    // Deaf to interrupts, as a frame busy merging a large job's monitors is; bounded all the same.
                    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(50);
                    while (release.getCount() > 0 && System.nanoTime() - end < 0) {
                        try {
                            release.await(100, TimeUnit.MILLISECONDS);
                        } catch (InterruptedException e) {
                            // Not this frame's business.
                        }
                    }
                }
                return file.monitors();
            }
        };
        DashboardServer server = DashboardServer.start(stuck, DashboardServer.LOOPBACK, 0, 20);
        Thread sampler = null;
        try {
            hold.set(true);
            assertThat(inFrame.await(20, TimeUnit.SECONDS)).as("the sampler entered a frame that does not end").isTrue();
            sampler = samplerThread();
            assertThat(sampler).as("the sampler's thread").isNotNull();

            Thread closer = new Thread(server::close, "test-closer");
            closer.start();
            closer.join(TimeUnit.SECONDS.toMillis(15));
            assertThat(closer.isAlive()).as("close() still waiting for the sampler's frame after 15 s").isFalse();
            assertThat(sampler.isAlive()).as("the sampler is still in its frame").isTrue();
        } finally {
            release.countDown();
            server.close();
        }
        sampler.join(TimeUnit.SECONDS.toMillis(15));
        assertThat(sampler.isAlive()).as("the sampler's thread ends once its frame ends").isFalse();
    }

    private static Thread samplerThread() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("es-dashboard-sampler"))
                .findFirst().orElse(null);
    }
}
