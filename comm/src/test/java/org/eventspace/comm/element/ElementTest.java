package org.eventspace.comm.element;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.eventspace.comm.path.CommException;
import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.path.ValueType;
import org.eventspace.comm.path.WaitProofs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The PastSet element alone: sequence numbers, bounded discard with exact missed counts, newest, blocking reads. */
@Timeout(60)
class ElementTest {
    private final ElementRegistry registry = new ElementRegistry("h0");

    private static Message tuple(long... words) {
        Message m = new Message(words.length).op(ReduceOp.SUM).type(ValueType.LONG).length(words.length);
        for (int i = 0; i < words.length; i++) {
            m.word(i, words[i]);
        }
        return m;
    }

    @Test
    void writesGetConsecutiveSequenceNumbersFromZeroAndReadsReturnThemInOrder() {
        Element e = registry.allocate("seq", 8, 4);
        assertThat(e.nextSequence()).isZero();
        for (long s = 0; s < 5; s++) {
            Message m = tuple(s, s * 10, -s);
            assertThat(e.write(m)).isEqualTo(s);
            assertThat(m.sequence()).as("write stamps the message").isEqualTo(s);
        }
        assertThat(e.nextSequence()).isEqualTo(5);

        ElementCursor cursor = e.cursorAt(0);
        Message into = new Message(1);
        for (long s = 0; s < 5; s++) {
            assertThat(e.tryReadNext(cursor, into)).isTrue();
            assertThat(into.sequence()).isEqualTo(s);
            assertThat(into.length()).isEqualTo(3);
            assertThat(new long[] {into.word(0), into.word(1), into.word(2)}).containsExactly(s, s * 10, -s);
        }
        assertThat(e.tryReadNext(cursor, into)).as("nothing after the newest").isFalse();
        assertThat(cursor.next()).isEqualTo(5);
        assertThat(cursor.missed()).isZero();
    }

    @Test
    void aTupleKeepsItsOpTypeAndLengthIncludingEmptyAndFullTuples() {
        Element e = registry.allocate("shapes", 4, 3);
        e.write(new Message(1).op(ReduceOp.MAX).type(ValueType.DOUBLE).length(0));
        e.write(tuple(1, 2, 3).op(ReduceOp.SLOT));
        ElementCursor cursor = e.cursorAt(0);
        Message into = new Message(1);
        assertThat(e.tryReadNext(cursor, into)).isTrue();
        assertThat(into.length()).isZero();
        assertThat(into.op()).isEqualTo(ReduceOp.MAX);
        assertThat(into.type()).isEqualTo(ValueType.DOUBLE);
        assertThat(e.tryReadNext(cursor, into)).isTrue();
        assertThat(into.length()).isEqualTo(3);
        assertThat(into.op()).isEqualTo(ReduceOp.SLOT);
        assertThat(into.type()).isEqualTo(ValueType.LONG);
    }

    @Test
    void aFullElementDiscardsItsOldestAndALaggingCursorIsToldExactlyHowManyItMissed() {
        Element e = registry.allocate("bounded", 4, 1);
        for (long s = 0; s < 10; s++) {
            e.write(tuple(100 + s));
        }
        assertThat(e.cursorAtOldest().next()).as("holds 6..9").isEqualTo(6);
        assertThat(e.cursorAtNext().next()).isEqualTo(10);

        ElementCursor fromStart = e.cursorAt(0);
        Message into = new Message(1);
        assertThat(e.tryReadNext(fromStart, into)).isTrue();
        assertThat(into.sequence()).isEqualTo(6);
        assertThat(into.word(0)).isEqualTo(106);
        assertThat(fromStart.missed()).isEqualTo(6);

        // Read one more, then fall behind again by more than the capacity.
        assertThat(e.tryReadNext(fromStart, into)).isTrue();
        assertThat(into.sequence()).isEqualTo(7);
        for (long s = 10; s < 25; s++) {
            e.write(tuple(100 + s));
        }
        // Next wanted 8; the element holds 21..24, so 8..20 (13 tuples) are gone.
        assertThat(e.tryReadNext(fromStart, into)).isTrue();
        assertThat(into.sequence()).isEqualTo(21);
        assertThat(into.word(0)).isEqualTo(121);
        assertThat(fromStart.missed()).isEqualTo(6 + 13);
        int read = 3;
        while (e.tryReadNext(fromStart, into)) {
            read++;
        }
        assertThat(read + fromStart.missed()).as("read + missed = written").isEqualTo(25);

        ElementCursor current = e.cursorAtOldest();
        assertThat(e.tryReadNext(current, into)).isTrue();
        assertThat(current.missed()).as("a cursor at the oldest misses nothing").isZero();
    }

    @Test
    void aCursorAtNextSeesOnlyLaterTuples() {
        Element e = registry.allocate("later", 4, 1);
        e.write(tuple(1));
        e.write(tuple(2));
        ElementCursor cursor = e.cursorAtNext();
        Message into = new Message(1);
        assertThat(e.tryReadNext(cursor, into)).isFalse();
        e.write(tuple(3));
        assertThat(e.tryReadNext(cursor, into)).isTrue();
        assertThat(into.word(0)).isEqualTo(3);
        assertThat(into.sequence()).isEqualTo(2);
        assertThat(cursor.missed()).isZero();
    }

    @Test
    void readNewestReturnsTheLastTupleWrittenOrNothing() {
        Element e = registry.allocate("newest", 2, 2);
        Message into = new Message(1);
        assertThat(e.readNewest(into)).isFalse();
        for (long s = 0; s < 7; s++) {
            e.write(tuple(s, -s));
            assertThat(e.readNewest(into)).isTrue();
            assertThat(into.sequence()).isEqualTo(s);
            assertThat(into.word(0)).isEqualTo(s);
            assertThat(into.word(1)).isEqualTo(-s);
        }
    }

    @Test
    void aBlockingReadWaitsForTheWriteAndTimesOutNamingTheElement() throws Exception {
        Element e = registry.allocate("p2p.3.5", 4, 2);
        ElementCursor cursor = e.cursorAt(0);
        AtomicReference<Thread> readerThread = new AtomicReference<>();
        CompletableFuture<Long> reader = CompletableFuture.supplyAsync(() -> {
            readerThread.set(Thread.currentThread());
            Message into = new Message(1);
            e.readNext(cursor, into, Duration.ofSeconds(30).toNanos());
            return into.word(0);
        });
        while (readerThread.get() == null) {
            Thread.onSpinWait();
        }
        // Past its 10 000 spins, parked on the element: the write below must wake it, not the reader's own polling.
        WaitProofs.awaitParked(readerThread.get(), () -> LockSupport.getBlocker(readerThread.get()) == e, Duration.ofSeconds(20));
        e.write(tuple(77));
        // The read's own timeout is 30 s; finishing within the bound means the write woke it.
        assertThat(reader.get(10, TimeUnit.SECONDS)).isEqualTo(77);

        Message into = new Message(1);
        assertThatThrownBy(() -> e.readNext(cursor, into, Duration.ofMillis(50).toNanos()))
                .isInstanceOf(CommException.class)
                .hasMessageContaining("element p2p.3.5")
                .hasMessageContaining("sequence 1")
                .hasMessageContaining("50 ms");
    }

    @Test
    void aTupleLongerThanTheElementAllowsIsRefusedWithBothSizes() {
        Element e = registry.allocate("small", 4, 2);
        assertThatThrownBy(() -> e.write(tuple(1, 2, 3)))
                .isInstanceOf(CommException.class)
                .hasMessageContaining("element small")
                .hasMessageContaining("at most 2 words")
                .hasMessageContaining("length=3");
        assertThat(e.nextSequence()).as("nothing written").isZero();
    }

    @Test
    void theRegistryAllocatesExplicitlyAndRefusesAConflictingShape() {
        Element e = registry.allocate("t0.result", 16, 8);
        assertThat(registry.allocate("t0.result", 16, 8)).isSameAs(e);
        assertThat(registry.get("t0.result")).isSameAs(e);
        assertThat(registry.contains("t0.result")).isTrue();
        assertThatThrownBy(() -> registry.allocate("t0.result", 32, 8))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("capacity=16").hasMessageContaining("capacity=32");
        assertThatThrownBy(() -> registry.get("nope")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nope").hasMessageContaining("h0");
        assertThatThrownBy(() -> registry.allocate("odd", 6, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("power of two").hasMessageContaining("capacity=6");
    }
}
