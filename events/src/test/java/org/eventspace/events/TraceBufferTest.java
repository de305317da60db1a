package org.eventspace.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** One writer, readers at their own pace: order, overwrite of the oldest, and exact missed counts. */
class TraceBufferTest {
    private final TraceTupleFlyweight tuple = new TraceTupleFlyweight();

    private static void writeNumbered(TraceBuffer buffer, long from, long to) {
        for (long i = from; i < to; i++) {
            buffer.write(3, TraceOp.ALLREDUCE_SUM, i, i * 10, 1000 + i, 2000 + i);
        }
    }

    @Test
    void readsEveryTupleInWriteOrderThenReportsNothingNew() {
        TraceBuffer buffer = TraceBuffer.direct(16);
        TraceBufferReader reader = buffer.newReader();
        assertThat(reader.readNext(tuple)).isFalse();

        writeNumbered(buffer, 0, 5);
        for (long i = 0; i < 5; i++) {
            assertThat(reader.readNext(tuple)).isTrue();
            assertThat(tuple.sequence()).isEqualTo(i);
            assertThat(tuple.value()).isEqualTo(i * 10);
            assertThat(tuple.startNs()).isEqualTo(1000 + i);
            assertThat(tuple.endNs()).isEqualTo(2000 + i);
        }
        assertThat(reader.readNext(tuple)).isFalse();
        assertThat(reader.missed()).isZero();
        assertThat(reader.position()).isEqualTo(5);
        assertThat(buffer.writePosition()).isEqualTo(5);

        writeNumbered(buffer, 5, 6);
        assertThat(reader.readNext(tuple)).isTrue();
        assertThat(tuple.sequence()).isEqualTo(5);
    }

    @Test
    void lappedReaderResumesAtOldestHeldAndCountsExactlyWhatWasOverwritten() {
        TraceBuffer buffer = TraceBuffer.heap(8);
        TraceBufferReader lagging = buffer.newReader();
        TraceBufferReader keepingUp = buffer.newReader();

        writeNumbered(buffer, 0, 4);
        for (int i = 0; i < 4; i++) {
            assertThat(keepingUp.readNext(tuple)).isTrue();
        }
        writeNumbered(buffer, 4, 20);

        // 20 written, 8 held (12..19): the lagging reader lost 0..11.
        assertThat(lagging.readNext(tuple)).isTrue();
        assertThat(tuple.sequence()).isEqualTo(12);
        assertThat(lagging.missed()).isEqualTo(12);
        // The other had read 0..3, so it lost 4..11.
        assertThat(keepingUp.readNext(tuple)).isTrue();
        assertThat(tuple.sequence()).isEqualTo(12);
        assertThat(keepingUp.missed()).isEqualTo(8);

        int read = 1;
        while (lagging.readNext(tuple)) {
            assertThat(tuple.sequence()).isEqualTo(12 + read);
            read++;
        }
        assertThat(read).isEqualTo(8);
        assertThat(read + lagging.missed()).isEqualTo(buffer.writePosition());
    }

    @Test
    void newReaderStartsAtOldestHeldAndSeekToEndSkipsWithoutCounting() {
        TraceBuffer buffer = TraceBuffer.direct(4);
        writeNumbered(buffer, 0, 10);

        TraceBufferReader fromOldest = buffer.newReader();
        assertThat(fromOldest.position()).isEqualTo(6);
        assertThat(fromOldest.readNext(tuple)).isTrue();
        assertThat(tuple.sequence()).isEqualTo(6);
        assertThat(fromOldest.missed()).isZero();

        TraceBufferReader fromNow = buffer.newReader().seekToEnd();
        assertThat(fromNow.readNext(tuple)).isFalse();
        writeNumbered(buffer, 10, 11);
        assertThat(fromNow.readNext(tuple)).isTrue();
        assertThat(tuple.sequence()).isEqualTo(10);
        assertThat(fromNow.missed()).isZero();
    }

    @Test
    void capacityMustBeAPowerOfTwoInRange() {
        assertThatThrownBy(() -> TraceBuffer.heap(100)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("power of two").hasMessageContaining("capacity=100");
        assertThatThrownBy(() -> TraceBuffer.direct(1)).hasMessageContaining("capacity=1");
        assertThatThrownBy(() -> TraceBuffer.direct(1 << 25)).hasMessageContaining("capacity=" + (1 << 25));
        assertThatThrownBy(() -> TraceBuffer.heap(8, -5)).hasMessageContaining("collectorId=-5");
    }
}
