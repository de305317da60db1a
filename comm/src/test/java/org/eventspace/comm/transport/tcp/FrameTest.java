package org.eventspace.comm.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.path.ValueType;
import org.junit.jupiter.api.Test;

class FrameTest {
    private final ByteBuffer bytes = ByteBuffer.allocateDirect(FrameLayout.frameLength(64) + FrameLayout.MAX_ERROR_LENGTH);
    private final Frame frame = new Frame().wrap(bytes);

    @Test
    void layoutOffsetsFollowEachOtherAndAlignThePayload() {
        assertThat(FrameLayout.OP_CODE_OFFSET).isEqualTo(4);
        assertThat(FrameLayout.SEQUENCE_OFFSET).isEqualTo(8);
        assertThat(FrameLayout.WORD_COUNT_OFFSET).isEqualTo(16);
        assertThat(FrameLayout.PAYLOAD_OFFSET).isEqualTo(24).isEqualTo(FrameLayout.HEADER_LENGTH);
        assertThat(HandshakeLayout.SECRET_OFFSET).isEqualTo(12);
        assertThat(HandshakeLayout.FIXED_LENGTH).isEqualTo(64);
    }

    @Test
    void requestRoundTripsEveryField() throws IOException {
        Message sent = new Message(8).op(ReduceOp.MAX).type(ValueType.DOUBLE).sequence(0x0102030405060708L).length(5);
        for (int i = 0; i < 5; i++) {
            sent.word(i, Double.doubleToRawLongBits(-1.5 * i) ^ (long) i << 40);
        }
        int length = frame.encode(sent);
        assertThat(length).isEqualTo(24 + 5 * 8);
        frame.checkWellFormed(length);

        Message got = new Message(1);
        frame.decodeRequest(got);
        assertThat(got.op()).isEqualTo(ReduceOp.MAX);
        assertThat(got.type()).isEqualTo(ValueType.DOUBLE);
        assertThat(got.sequence()).isEqualTo(0x0102030405060708L);
        assertThat(got.length()).isEqualTo(5);
        for (int i = 0; i < 5; i++) {
            assertThat(got.word(i)).isEqualTo(sent.word(i));
        }
    }

    @Test
    void aConditionalCallsConditionTravelsInTheValueTypeBytesHighNibble() throws IOException {
        Message sent = new Message(1).op(ReduceOp.SUM).type(ValueType.DOUBLE).length(1).word(0, 3)
                .until(org.eventspace.comm.path.Condition.LESS_EQUAL.code());
        int length = frame.encode(sent);
        frame.checkWellFormed(length);
        assertThat(bytes.get(FrameLayout.VALUE_TYPE_OFFSET)).isEqualTo((byte) (ValueType.DOUBLE.ordinal() | 4 << 4));
        Message got = new Message(1);
        frame.decodeRequest(got);
        assertThat(got.type()).isEqualTo(ValueType.DOUBLE);
        assertThat(org.eventspace.comm.path.Condition.ofCode(got.until()))
                .isEqualTo(org.eventspace.comm.path.Condition.LESS_EQUAL);
        Message plain = new Message(1).op(ReduceOp.SUM).type(ValueType.LONG).length(1);
        frame.checkWellFormed(frame.encode(plain));
        frame.decodeRequest(got);
        assertThat(got.until()).isZero();
        bytes.put(FrameLayout.VALUE_TYPE_OFFSET, (byte) (ValueType.LONG.ordinal() | 5 << 4));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> frame.checkWellFormed(32))
                .isInstanceOf(IOException.class).hasMessageContaining("malformed frame");
    }

    @Test
    void wordsAreLittleEndianOnTheWire() {
        Message sent = new Message(1).op(ReduceOp.SUM).type(ValueType.LONG).length(1).word(0, 0x1122334455667788L);
        frame.encode(sent);
        assertThat(bytes.order(ByteOrder.LITTLE_ENDIAN).getInt(FrameLayout.FRAME_LENGTH_OFFSET)).isEqualTo(32);
        assertThat(bytes.get(FrameLayout.PAYLOAD_OFFSET)).isEqualTo((byte) 0x88);
        assertThat(bytes.get(FrameLayout.PAYLOAD_OFFSET + 7)).isEqualTo((byte) 0x11);
    }

    @Test
    void replyKeepsTheCallersOpAndType() {
        Message result = new Message(1).op(ReduceOp.SUM).type(ValueType.LONG).sequence(7).length(2).word(0, 40).word(1, 2);
        frame.encode(result);
        Message caller = new Message(1).op(ReduceOp.MIN).type(ValueType.DOUBLE).length(2);
        frame.decodeResult(caller);
        assertThat(caller.op()).isEqualTo(ReduceOp.MIN);
        assertThat(caller.sequence()).isEqualTo(7);
        assertThat(caller.words()).startsWith(40L, 2L);
    }

    @Test
    void failureCarriesItsText() throws IOException {
        Message m = new Message(1).op(ReduceOp.SUM).length(3);
        int length = frame.encodeFailure(m, "gred t0.gred.h0.0: timed out — é");
        frame.checkWellFormed(length);
        assertThat(frame.failed()).isTrue();
        assertThat(frame.wordCount()).isZero();
        assertThat(frame.errorText()).isEqualTo("gred t0.gred.h0.0: timed out — é");
    }

    @Test
    void longFailureTextIsCut() {
        int length = frame.encodeFailure(new Message(1), "x".repeat(10_000));
        assertThat(length).isEqualTo(FrameLayout.HEADER_LENGTH + FrameLayout.MAX_ERROR_LENGTH);
    }

    @Test
    void inconsistentHeaderIsRejected() {
        int length = frame.encode(new Message(1).length(2));
        assertThatThrownBy(() -> frame.checkWellFormed(length - 8)).isInstanceOf(IOException.class)
                .hasMessageContaining("malformed frame").hasMessageContaining("received=" + (length - 8));
        bytes.put(FrameLayout.OP_CODE_OFFSET, (byte) 99);
        assertThatThrownBy(() -> frame.checkWellFormed(length)).hasMessageContaining("op=99");
    }
}
