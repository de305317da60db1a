package org.eventspace.comm.transport.tcp;

import static org.eventspace.comm.transport.tcp.FrameLayout.BYTE_ORDER;
import static org.eventspace.comm.transport.tcp.FrameLayout.ERROR_LENGTH_OFFSET;
import static org.eventspace.comm.transport.tcp.FrameLayout.FRAME_LENGTH_OFFSET;
import static org.eventspace.comm.transport.tcp.FrameLayout.HEADER_LENGTH;
import static org.eventspace.comm.transport.tcp.FrameLayout.MAX_ERROR_LENGTH;
import static org.eventspace.comm.transport.tcp.FrameLayout.OP_CODE_OFFSET;
import static org.eventspace.comm.transport.tcp.FrameLayout.PAYLOAD_OFFSET;
import static org.eventspace.comm.transport.tcp.FrameLayout.SEQUENCE_OFFSET;
import static org.eventspace.comm.transport.tcp.FrameLayout.STATUS_FAILED;
import static org.eventspace.comm.transport.tcp.FrameLayout.STATUS_OFFSET;
import static org.eventspace.comm.transport.tcp.FrameLayout.STATUS_OK;
import static org.eventspace.comm.transport.tcp.FrameLayout.TRAFFIC_TAG_OFFSET;
import static org.eventspace.comm.transport.tcp.FrameLayout.VALUE_TYPE_OFFSET;
import static org.eventspace.comm.transport.tcp.FrameLayout.WORD_COUNT_OFFSET;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.LongBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.agrona.concurrent.UnsafeBuffer;
import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.path.ValueType;

/**
 * Flyweight over one frame ({@link FrameLayout}) at the start of a direct buffer: encodes a {@link Message}
 * into it and decodes one back in place.
 *
 * <p>Not thread-safe. Encoding and decoding a message allocate nothing; only {@link #wrap} (when a hop's
 * buffer grows), {@link #encodeFailure} and {@link #errorText} do. The caller makes sure the wrapped buffer
 * is large enough ({@link FrameChannel} grows it).
 */
final class Frame {
    private static final int OP_CODES = ReduceOp.values().length;
    private static final int TYPE_CODES = ValueType.values().length;
    /** Conditions a frame may carry (1..this; 0: none). Read once: values() copies its array on every call. */
    private static final int CONDITION_CODES = org.eventspace.comm.path.Condition.values().length;

    private final UnsafeBuffer buffer = new UnsafeBuffer();
    /** Little-endian view of the payload, for bulk copies of the words (a memory copy on little-endian CPUs). */
    private LongBuffer words;

    Frame wrap(ByteBuffer byteBuffer) {
        buffer.wrap(byteBuffer);
        words = byteBuffer.duplicate().position(PAYLOAD_OFFSET).slice().order(BYTE_ORDER).asLongBuffer();
        return this;
    }

    UnsafeBuffer buffer() {
        return buffer;
    }

    int capacity() {
        return buffer.capacity();
    }

    /** Writes header and payload of {@code message} with status OK; returns the frame length. */
    int encode(Message message) {
        int count = message.length();
        int length = FrameLayout.frameLength(count);
        header(length, message.op().ordinal(), typeByte(message), STATUS_OK, message.tag(), message.sequence(), count, 0);
        words.put(0, message.words(), 0, count);
        return length;
    }

    /** Writes a FAILED frame carrying {@code text} (cut to {@link FrameLayout#MAX_ERROR_LENGTH} bytes); returns its length. */
    int encodeFailure(Message message, String text) {
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        if (utf8.length > MAX_ERROR_LENGTH) {
            utf8 = Arrays.copyOf(utf8, MAX_ERROR_LENGTH);
        }
        int length = HEADER_LENGTH + utf8.length;
        header(length, message.op().ordinal(), typeByte(message), STATUS_FAILED, message.tag(), message.sequence(), 0, utf8.length);
        buffer.putBytes(PAYLOAD_OFFSET, utf8);
        return length;
    }

    /** The value type in the low nibble, the message's condition code ({@link Message#until()}) in the high one. */
    private static int typeByte(Message message) {
        return message.type().ordinal() | (message.until() << UNTIL_SHIFT);
    }

    private static final int UNTIL_SHIFT = 4;
    private static final int TYPE_MASK = (1 << UNTIL_SHIFT) - 1;

    private void header(int length, int op, int type, byte status, byte tag, long sequence, int count, int errorLength) {
        buffer.putInt(FRAME_LENGTH_OFFSET, length, BYTE_ORDER);
        buffer.putByte(OP_CODE_OFFSET, (byte) op);
        buffer.putByte(VALUE_TYPE_OFFSET, (byte) type);
        buffer.putByte(STATUS_OFFSET, status);
        buffer.putByte(TRAFFIC_TAG_OFFSET, tag);
        buffer.putLong(SEQUENCE_OFFSET, sequence, BYTE_ORDER);
        buffer.putInt(WORD_COUNT_OFFSET, count, BYTE_ORDER);
        buffer.putInt(ERROR_LENGTH_OFFSET, errorLength, BYTE_ORDER);
    }

    int frameLength() {
        return buffer.getInt(FRAME_LENGTH_OFFSET, BYTE_ORDER);
    }

    byte status() {
        return buffer.getByte(STATUS_OFFSET);
    }

    boolean failed() {
        return status() != STATUS_OK;
    }

    long sequence() {
        return buffer.getLong(SEQUENCE_OFFSET, BYTE_ORDER);
    }

    int wordCount() {
        return buffer.getInt(WORD_COUNT_OFFSET, BYTE_ORDER);
    }

    int errorLength() {
        return buffer.getInt(ERROR_LENGTH_OFFSET, BYTE_ORDER);
    }

    String errorText() {
        return buffer.getStringWithoutLengthUtf8(PAYLOAD_OFFSET, errorLength());
    }

    /** Checks that the header agrees with the {@code received} bytes, so a corrupt peer cannot make us read garbage. */
    void checkWellFormed(int received) throws IOException {
        int length = frameLength();
        byte status = status();
        int count = wordCount();
        int errorLength = errorLength();
        boolean ok = switch (status) {
            case STATUS_OK -> count >= 0 && errorLength == 0 && length == FrameLayout.frameLength(count);
            case STATUS_FAILED -> count == 0 && errorLength >= 0 && errorLength <= MAX_ERROR_LENGTH
                    && length == HEADER_LENGTH + errorLength;
            default -> false;
        };
        int op = buffer.getByte(OP_CODE_OFFSET);
        int typeByte = buffer.getByte(VALUE_TYPE_OFFSET);
        int type = typeByte & TYPE_MASK;
        int until = (typeByte & 0xFF) >>> UNTIL_SHIFT;
        if (until > CONDITION_CODES) {
            type = -1;
        }
        if (!ok || length != received || op < 0 || op >= OP_CODES || type < 0 || type >= TYPE_CODES) {
            throw new IOException("malformed frame: length=" + length + ", received=" + received + ", status=" + status
                    + ", op=" + op + ", type=" + type + ", words=" + count + ", errorLength=" + errorLength);
        }
    }

    /** Fills {@code into} with op, type, sequence and payload: what a service thread passes down the path. */
    void decodeRequest(Message into) {
        into.op(ReduceOp.ofCode(buffer.getByte(OP_CODE_OFFSET)))
                .type(ValueType.ofCode(buffer.getByte(VALUE_TYPE_OFFSET) & TYPE_MASK))
                .until((byte) ((buffer.getByte(VALUE_TYPE_OFFSET) & 0xFF) >>> UNTIL_SHIFT))
                .tag(buffer.getByte(TRAFFIC_TAG_OFFSET));
        decodeResult(into);
    }

    /** Fills {@code into} with sequence and payload only: the result coming back up (as {@link Message#copyPayloadFrom}). */
    void decodeResult(Message into) {
        int count = wordCount();
        into.sequence(sequence()).length(count);
        words.get(0, into.words(), 0, count);
    }
}
