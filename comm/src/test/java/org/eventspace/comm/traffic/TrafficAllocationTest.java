package org.eventspace.comm.traffic;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;

import org.eventspace.comm.path.Message;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The GC-free check of counting a message where it leaves (the ibprof paper's counters sit on the send path): the
 * thread's allocation counter over 100 000 counted requests and replies, so one 16-byte allocation per message would
 * show as 1.6 MB.
 */
@Timeout(60)
class TrafficAllocationTest {
    private static final int WARM = 200_000;
    private static final int MESSAGES = 100_000;
    private static final long LIMIT = 1024;
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void countingAMessageAllocatesNothing() {
        TrafficScope scope = TrafficScope.all();
        TrafficCounters counters = new TrafficCounters(0, 8, 4, scope);
        TrafficCounters.Channel tree = counters.client(false, -1, -1, 3);
        TrafficCounters.Channel send = counters.client(true, 2, 5, 3);
        Message message = new Message(4).length(4).tag(scope.tag(scope.phase("solve"), TrafficTag.SEND));
        for (int i = 0; i < WARM; i++) {
            send.request(message);
            tree.request(message);
            tree.reply(message);
        }
        long before = THREADS.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < MESSAGES; i++) {
            send.request(message);
            tree.request(message);
            tree.reply(message);
        }
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        assertThat(allocated).as("bytes allocated by %d counted messages", 3 * MESSAGES).isLessThan(LIMIT);
        TrafficCounters.Port rankPort = counters.ports().stream().filter(p -> p.kind() == TrafficCounters.PortKind.RANK)
                .findFirst().orElseThrow();
        assertThat(rankPort.read(5, 1, TrafficCounterLayout.BYTES_SENT_OFFSET)).isEqualTo(32L * (WARM + MESSAGES));
        assertThat(rankPort.read(5, 1, TrafficCounterLayout.MESSAGES_SENT_OFFSET)).isEqualTo(WARM + MESSAGES);
    }

    @Test
    void aMessageOutsideTheScopeCostsOneLookupAndTouchesNoCounter() {
        TrafficScope scope = TrafficScope.parse("collectives:alltoall");
        TrafficCounters counters = new TrafficCounters(0, 8, 4, scope);
        TrafficCounters.Channel send = counters.client(true, 2, 5, 3);
        Message message = new Message(4).length(4).tag(scope.tag(0, TrafficTag.SEND));
        for (int i = 0; i < WARM; i++) {
            send.request(message);
        }
        long before = THREADS.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < MESSAGES; i++) {
            send.request(message);
        }
        assertThat(THREADS.getCurrentThreadAllocatedBytes() - before).isLessThan(LIMIT);
        assertThat(counters.ports().get(0).read(5, 0, TrafficCounterLayout.MESSAGES_SENT_OFFSET)).isZero();
    }
}
