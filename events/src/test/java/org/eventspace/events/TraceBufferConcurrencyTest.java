package org.eventspace.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One writer and three readers on a small buffer, so that readers are lapped over and over while they copy
 * (our test bar): every tuple a reader gets is whole — all its fields are functions of its sequence,
 * which is also the position it was read at — and for every reader {@code read + missed} is exactly the
 * number of tuples written since it started.
 */
@Timeout(60)
class TraceBufferConcurrencyTest {
    private static final int WRITES = 2_000_000;
    private static final int CAPACITY = 64;

    static int collectorOf(long i) {
        return (int) (i * 31);
    }

    static int opOf(long i) {
        return (int) (i & 0xFFFF);
    }

    static int flagsOf(long i) {
        return (int) ((i >>> 16) & 0xFFFF);
    }

    static long valueOf(long i) {
        return i * 0x9E3779B97F4A7C15L;
    }

    static long startOf(long i) {
        return ~i;
    }

    static long endOf(long i) {
        return i ^ 0x5555_5555_5555_5555L;
    }

    record Outcome(long start, long read, long missed, long end) {
    }

    @Test
    void readersNeverSeeTornTuplesAndAccountForEveryTupleWritten() throws Exception {
        TraceBuffer buffer = TraceBuffer.direct(CAPACITY);
        AtomicBoolean done = new AtomicBoolean();
        CountDownLatch readersReady = new CountDownLatch(3);
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<Outcome>> readers = new ArrayList<>();
            for (int r = 0; r < 3; r++) {
                int pause = r; // reader 0 reads flat out, the others dawdle and get lapped more
                boolean fromNow = r == 1;
                readers.add(threads.submit(() -> read(buffer, fromNow, pause, done, readersReady)));
            }
            Future<?> writer = threads.submit(() -> {
                for (long i = 0; i < WRITES; i++) {
                    if (i == CAPACITY * 4) {
                        awaitQuietly(readersReady);
                    }
                    buffer.write(collectorOf(i), opOf(i), flagsOf(i), i, valueOf(i), startOf(i), endOf(i));
                }
                done.set(true);
            });
            writer.get(50, TimeUnit.SECONDS);
            long totalMissed = 0;
            for (Future<Outcome> reader : readers) {
                Outcome o = reader.get(50, TimeUnit.SECONDS);
                assertThat(o.end()).isEqualTo(WRITES);
                assertThat(o.read() + o.missed()).as("read + missed of %s", o).isEqualTo(WRITES - o.start());
                assertThat(o.read()).isPositive();
                totalMissed += o.missed();
            }
            assertThat(buffer.writePosition()).isEqualTo(WRITES);
            // Not a correctness condition, but the test means nothing if nobody was ever lapped.
            assertThat(totalMissed).isPositive();
        } finally {
            done.set(true);
            threads.shutdownNow();
            assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Outcome read(TraceBuffer buffer, boolean fromNow, int pause, AtomicBoolean done, CountDownLatch ready) {
        TraceBufferReader reader = buffer.newReader();
        if (fromNow) {
            reader.seekToEnd();
        }
        long start = reader.position();
        ready.countDown();
        TraceTupleFlyweight tuple = new TraceTupleFlyweight();
        long read = 0;
        long last = -1;
        while (!Thread.currentThread().isInterrupted()) {
            boolean finished = done.get();
            if (reader.readNext(tuple)) {
                long i = tuple.sequence();
                assertThat(i).isEqualTo(reader.position() - 1).isGreaterThan(last);
                if (tuple.collectorId() != collectorOf(i) || tuple.opType() != opOf(i) || tuple.flags() != flagsOf(i)
                        || tuple.value() != valueOf(i) || tuple.startNs() != startOf(i) || tuple.endNs() != endOf(i)) {
                    throw new AssertionError("torn tuple at position " + (reader.position() - 1) + ": " + tuple);
                }
                last = i;
                read++;
                for (int spin = 0; spin < pause * 20; spin++) {
                    Thread.onSpinWait();
                }
            } else if (finished) {
                break; // the writer was done before this empty read: everything is accounted for
            } else {
                Thread.onSpinWait();
            }
        }
        return new Outcome(start, read, reader.missed(), reader.position());
    }
}
