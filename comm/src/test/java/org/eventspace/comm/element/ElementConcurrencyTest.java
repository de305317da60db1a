package org.eventspace.comm.element;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.path.ValueType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Writers and readers on one small element at once. Every tuple is self-describing (its words all carry the
 * same value, and its length is derived from that value), so a reader can tell a torn copy from a whole one;
 * every reader's (read + missed) must equal what was written after its start. Bounded by a tuple count,
 * not by time; no timing is asserted.
 */
class ElementConcurrencyTest {
    private static final int TUPLES = 200_000;
    private static final int CAPACITY = 16;
    private static final int MAX_WORDS = 24;

    /** The value a writer stamps into every word: writer id in the top bits, its own counter below. */
    private static long stamp(int writer, long counter) {
        return ((long) writer << 40) | counter;
    }

    /** Length of a tuple carrying {@code value}: varies so a length torn from another tuple shows. */
    private static int lengthOf(long value) {
        return 1 + Math.floorMod(value * 7, MAX_WORDS);
    }

    record ReaderReport(long read, long missed, long startedAt, String problem) {
    }

    @ParameterizedTest(name = "{0} writer(s), 2 readers")
    @ValueSource(ints = {1, 2})
    void readersSeeOnlyWholeTuplesAndAccountForEveryTupleWritten(int writers) throws Exception {
        Element e = new ElementRegistry("h0").allocate("trace", CAPACITY, MAX_WORDS);
        int perWriter = TUPLES / writers;
        long total = (long) perWriter * writers;
        ExecutorService pool = Executors.newFixedThreadPool(writers + 2);
        try {
            List<Future<ReaderReport>> readers = new ArrayList<>();
            // One reader polls (tryReadNext), the other blocks (readNext), so both the spinning and the
            // parking paths meet concurrent writers.
            readers.add(pool.submit(reader(e, total, writers, false)));
            readers.add(pool.submit(reader(e, total, writers, true)));
            List<Future<?>> writerFutures = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                final int writer = w;
                writerFutures.add(pool.submit(() -> {
                    Message m = new Message(MAX_WORDS).op(ReduceOp.SLOT).type(ValueType.LONG);
                    for (long c = 0; c < perWriter; c++) {
                        long value = writers == 1 ? c : stamp(writer, c);
                        int length = lengthOf(value);
                        m.length(length);
                        for (int i = 0; i < length; i++) {
                            m.word(i, value);
                        }
                        long sequence = e.write(m);
                        if (writers == 1 && sequence != c) {
                            throw new AssertionError("single writer: tuple " + c + " got sequence " + sequence);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : writerFutures) {
                f.get(60, TimeUnit.SECONDS);
            }
            assertThat(e.nextSequence()).isEqualTo(total);
            for (Future<ReaderReport> f : readers) {
                ReaderReport report = f.get(60, TimeUnit.SECONDS);
                assertThat(report.problem()).as("reader problem").isNull();
                assertThat(report.read() + report.missed()).as("read + missed from the reader's start")
                        .isEqualTo(total - report.startedAt());
                assertThat(report.read()).as("a reader reads something").isPositive();
            }
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    private static Callable<ReaderReport> reader(Element e, long total, int writers, boolean blocking) {
        return () -> {
            ElementCursor cursor = e.cursorAt(0);
            long startedAt = cursor.next();
            Message into = new Message(1);
            long read = 0;
            long lastSequence = -1;
            long[] lastCounter = new long[writers];
            Arrays.fill(lastCounter, -1);
            while (cursor.next() < total) {
                if (blocking) {
                    e.readNext(cursor, into, Duration.ofSeconds(30).toNanos());
                } else if (!e.tryReadNext(cursor, into)) {
                    Thread.onSpinWait();
                    continue;
                }
                read++;
                long value = into.word(0);
                String problem = check(into, value, writers, lastSequence, lastCounter);
                if (problem != null) {
                    return new ReaderReport(read, cursor.missed(), startedAt, problem);
                }
                lastSequence = into.sequence();
                if (cursor.next() != lastSequence + 1) {
                    return new ReaderReport(read, cursor.missed(), startedAt,
                            "cursor at " + cursor.next() + " after reading sequence " + lastSequence);
                }
            }
            return new ReaderReport(read, cursor.missed(), startedAt, null);
        };
    }

    private static String check(Message into, long value, int writers, long lastSequence, long[] lastCounter) {
        long sequence = into.sequence();
        if (sequence <= lastSequence) {
            return "sequence " + sequence + " after " + lastSequence;
        }
        if (into.length() != lengthOf(value)) {
            return "tuple " + sequence + " has length " + into.length() + " but its words say " + lengthOf(value);
        }
        for (int i = 1; i < into.length(); i++) {
            if (into.word(i) != value) {
                return "torn tuple " + sequence + ": word 0 = " + value + ", word " + i + " = " + into.word(i);
            }
        }
        if (writers == 1) {
            if (value != sequence) {
                return "tuple " + sequence + " carries " + value;
            }
        } else {
            int writer = (int) (value >>> 40);
            long counter = value & ((1L << 40) - 1);
            if (writer < 0 || writer >= writers || counter <= lastCounter[writer]) {
                return "tuple " + sequence + " from writer " + writer + " counter " + counter + " out of order";
            }
            lastCounter[writer] = counter;
        }
        return null;
    }
}
