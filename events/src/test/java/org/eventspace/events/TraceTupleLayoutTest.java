package org.eventspace.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteOrder;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/** The tuple and buffer layouts: sizes within our tuple budget (≤ 40 bytes), aligned fields, and a round trip of every field. */
class TraceTupleLayoutTest {
    @Test
    void tupleIsFortyBytesWithEveryLongAligned() {
        assertThat(TraceTupleLayout.LENGTH).isEqualTo(40).isLessThanOrEqualTo(40);
        assertThat(TraceTupleLayout.COLLECTOR_ID_OFFSET).isEqualTo(0);
        assertThat(TraceTupleLayout.OP_TYPE_OFFSET).isEqualTo(4);
        assertThat(TraceTupleLayout.FLAGS_OFFSET).isEqualTo(6);
        assertThat(TraceTupleLayout.SEQUENCE_OFFSET).isEqualTo(8);
        assertThat(TraceTupleLayout.VALUE_OFFSET).isEqualTo(16);
        assertThat(TraceTupleLayout.START_NS_OFFSET).isEqualTo(24);
        assertThat(TraceTupleLayout.END_NS_OFFSET).isEqualTo(32);
    }

    @Test
    void slotIsSeqlockPlusTupleAndSlotsStayLongAligned() {
        assertThat(TraceBufferLayout.SLOT_LENGTH).isEqualTo(48);
        assertThat(TraceBufferLayout.SLOT_TUPLE_OFFSET % 8).isZero();
        assertThat(TraceBufferLayout.HEADER_LENGTH).isEqualTo(128);
        assertThat(TraceBufferLayout.WRITE_POSITION_OFFSET).isEqualTo(64);
        assertThat(TraceBufferLayout.COLLECTOR_ID_OFFSET + Integer.BYTES).isLessThanOrEqualTo(TraceBufferLayout.WRITE_POSITION_OFFSET);
        assertThat(TraceBufferLayout.bufferLength(4096)).isEqualTo(128 + 4096 * 48);
    }

    @Test
    void everyFieldRoundTripsThroughABuffer() {
        TraceBuffer buffer = TraceBuffer.heap(4, 7);
        buffer.write(7, TraceOp.ALLREDUCE_MAX, TraceOp.FLAG_FAILED | TraceOp.FLAG_DOUBLE, Long.MAX_VALUE - 3,
                -42L, 1_000_000_007L, 1_000_000_512L);
        TraceBufferReader reader = buffer.newReader();
        TraceTupleFlyweight tuple = new TraceTupleFlyweight();

        assertThat(reader.readNext(tuple)).isTrue();
        assertThat(tuple.collectorId()).isEqualTo(7);
        assertThat(tuple.opType()).isEqualTo(TraceOp.ALLREDUCE_MAX);
        assertThat(tuple.flags()).isEqualTo(TraceOp.FLAG_FAILED | TraceOp.FLAG_DOUBLE);
        assertThat(tuple.failed()).isTrue();
        assertThat(tuple.sequence()).isEqualTo(Long.MAX_VALUE - 3);
        assertThat(tuple.value()).isEqualTo(-42L);
        assertThat(tuple.startNs()).isEqualTo(1_000_000_007L);
        assertThat(tuple.endNs()).isEqualTo(1_000_000_512L);
        assertThat(tuple.durationNs()).isEqualTo(505L);
        assertThat(reader.collectorId()).isEqualTo(7);
        assertThat(reader.byteOrder()).isEqualTo(ByteOrder.nativeOrder());
    }

    /** Paper §4.1: native order on write, parsed on read — a tuple written in the other order decodes the same. */
    @Test
    void flyweightDecodesEitherByteOrderAndSixteenBitFieldsAreUnsigned() {
        for (ByteOrder order : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN}) {
            UnsafeBuffer bytes = new UnsafeBuffer(new byte[8 + TraceTupleLayout.LENGTH]);
            int at = 8;
            bytes.putInt(at + TraceTupleLayout.COLLECTOR_ID_OFFSET, 0x01020304, order);
            bytes.putShort(at + TraceTupleLayout.OP_TYPE_OFFSET, (short) 0xFFFE, order);
            bytes.putShort(at + TraceTupleLayout.FLAGS_OFFSET, (short) 0x8001, order);
            bytes.putLong(at + TraceTupleLayout.SEQUENCE_OFFSET, 0x0102030405060708L, order);
            bytes.putLong(at + TraceTupleLayout.VALUE_OFFSET, -1L, order);
            bytes.putLong(at + TraceTupleLayout.START_NS_OFFSET, 11L, order);
            bytes.putLong(at + TraceTupleLayout.END_NS_OFFSET, 0x7000000000000001L, order);

            TraceTupleFlyweight tuple = new TraceTupleFlyweight().wrap(bytes, at, order);

            assertThat(tuple.collectorId()).isEqualTo(0x01020304);
            assertThat(tuple.opType()).isEqualTo(0xFFFE);
            assertThat(tuple.flags()).isEqualTo(0x8001);
            assertThat(tuple.sequence()).isEqualTo(0x0102030405060708L);
            assertThat(tuple.value()).isEqualTo(-1L);
            assertThat(tuple.startNs()).isEqualTo(11L);
            assertThat(tuple.endNs()).isEqualTo(0x7000000000000001L);
        }
    }
}
