package org.eventspace.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;

import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.path.Wrapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The GC-free check of the collector's write path (EventSpace paper §4.1: no allocation on the application's critical
 * path), measured per thread with the JVM's allocation counter, so that no GC has to happen for a leak to
 * show: one 16-byte allocation per write would show as 1.6 MB over the 100 000 writes.
 */
@Timeout(60)
class WriteAllocationTest {
    private static final int WARM = 200_000;
    private static final int WRITES = 100_000;
    private static final long LIMIT = 1024;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void bufferWriteAllocatesNothing() {
        TraceBuffer buffer = TraceBuffer.direct(1024);
        for (int i = 0; i < WARM; i++) {
            buffer.write(1, TraceOp.ALLREDUCE_SUM, i, i, i, i + 1);
        }
        long before = THREADS.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < WRITES; i++) {
            buffer.write(1, TraceOp.ALLREDUCE_SUM, i, i, i, i + 1);
        }
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        assertThat(allocated).as("bytes allocated by %d writes", WRITES).isLessThan(LIMIT);
        assertThat(buffer.writePosition()).isEqualTo(WARM + WRITES);
    }

    @Test
    void collectorCallAllocatesNothing() {
        TraceBuffer buffer = TraceBuffer.direct(1024);
        Wrapper fakeNext = m -> m.sequence(m.sequence() + 1).word(0, m.word(0) * 2);
        EventCollector collector = new EventCollector(4, buffer, fakeNext);
        Message message = new Message(4).op(ReduceOp.SUM).length(1).word(0, 3);
        for (int i = 0; i < WARM; i++) {
            collector.call(message.word(0, i));
        }
        long before = THREADS.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < WRITES; i++) {
            collector.call(message.word(0, i));
        }
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        assertThat(allocated).as("bytes allocated by %d collector calls", WRITES).isLessThan(LIMIT);
        assertThat(buffer.writePosition()).isEqualTo(WARM + WRITES);
    }

    @Test
    void readingAllocatesNothingEither() {
        TraceBuffer buffer = TraceBuffer.direct(1024);
        TraceBufferReader reader = buffer.newReader();
        TraceTupleFlyweight tuple = new TraceTupleFlyweight();
        long sum = 0;
        for (int round = 0; round < 2; round++) {
            long before = THREADS.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < WRITES; i++) {
                buffer.write(1, TraceOp.ALLREDUCE_SUM, i, i, i, i + 1);
                if (reader.readNext(tuple)) {
                    sum += tuple.value();
                }
            }
            long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
            if (round == 1) {
                assertThat(allocated).as("bytes allocated by %d writes and reads", WRITES).isLessThan(LIMIT);
            }
        }
        assertThat(sum).isPositive();
    }
}
