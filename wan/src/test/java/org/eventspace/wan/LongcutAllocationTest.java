package org.eventspace.wan;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.agrona.concurrent.SystemNanoClock;
import org.eventspace.comm.path.Message;
import org.eventspace.comm.transport.AgentThreads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The GC-free check of a message crossing a Longcut wrapper: once warm, neither the calling thread (stamp, queue,
 * park, wake) nor the gateway's scheduler thread (drain, schedule, release, park) allocates. Measured per thread with
 * the JVM's allocation counters, as comm's {@code HotPathAllocationTest} does; one allocation per message would show
 * as at least 16 bytes × the messages.
 */
@Timeout(120)
class LongcutAllocationTest {
    private static final int WARM = 3_000;
    private static final int CALLS = 3_000;
    private static final long SLACK = 4_096;
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void aMessageThroughTheGatewayAllocatesNothingInTheCallerOrTheScheduler() throws Exception {
        // 20 µs one way each direction, 10 Gbit/s: short enough for thousands of messages in a test.
        LinkDirection out = LinkDirection.constant("a", "b", 0.02, 10_000);
        LinkDirection back = LinkDirection.constant("a", "c", 0.02, 10_000);
        GatewayScheduler gateway = new GatewayScheduler("g", List.of(new LinkSchedule(out, 0), new LinkSchedule(back, 0)),
                SystemNanoClock.INSTANCE, 50_000, TimeUnit.SECONDS.toNanos(10));
        Longcut longcut = new Longcut(m -> m.word(0, m.word(0) + 1), gateway.register(), gateway.link("a>b"),
                gateway.link("a>c"));
        AgentRunner runner = AgentThreads.start(gateway, new NoOpIdleStrategy());
        try {
            Message message = new Message(8).length(8);
            AtomicLong callerBytes = new AtomicLong(-1);
            long[] schedulerBytes = new long[2];
            Thread caller = new Thread(() -> {
                for (int i = 0; i < WARM; i++) {
                    longcut.call(message);
                }
                long id = Thread.currentThread().getId();
                long before = THREADS.getThreadAllocatedBytes(id);
                schedulerBytes[0] = THREADS.getThreadAllocatedBytes(runner.thread().getId());
                for (int i = 0; i < CALLS; i++) {
                    longcut.call(message);
                }
                schedulerBytes[1] = THREADS.getThreadAllocatedBytes(runner.thread().getId());
                callerBytes.set(THREADS.getThreadAllocatedBytes(id) - before);
            }, "longcut-caller");
            caller.start();
            caller.join(Duration.ofSeconds(100).toMillis());
            assertThat(caller.isAlive()).isFalse();
            assertThat(message.word(0)).isEqualTo(WARM + CALLS);
            assertThat(callerBytes.get()).isBetween(0L, SLACK);
            assertThat(schedulerBytes[1] - schedulerBytes[0]).isBetween(0L, SLACK);
            assertThat(gateway.stats().released()).isEqualTo(2L * (WARM + CALLS));
        } finally {
            gateway.close();
            AgentThreads.awaitEnd(runner, Duration.ofSeconds(2));
        }
    }
}
