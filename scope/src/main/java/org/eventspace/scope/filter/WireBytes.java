package org.eventspace.scope.filter;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/** Unsigned LEB128 varints and little-endian longs in byte arrays, for the edge codecs. Stateless. */
final class WireBytes {
    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private WireBytes() {
    }

    /** {@code buffer} if it holds {@code needed} bytes, else a copy at least twice as long. */
    static byte[] ensure(byte[] buffer, int needed) {
        return needed <= buffer.length ? buffer : Arrays.copyOf(buffer, Math.max(needed, buffer.length * 2));
    }

    /** Writes {@code value} (≥ 0) as a varint at {@code at}; returns the position after it. Needs 10 bytes free. */
    static int putVarint(byte[] out, int at, long value) {
        while ((value & ~0x7FL) != 0) {
            out[at++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        out[at++] = (byte) value;
        return at;
    }

    static void putLong(byte[] out, int at, long value) {
        LONG_LE.set(out, at, value);
    }

    static long getLong(byte[] in, int at) {
        return (long) LONG_LE.get(in, at);
    }

    /** Reads varints from a message, checking every read against its end. Not thread-safe. */
    static final class Reader {
        byte[] in;
        int at;
        int end;

        void wrap(byte[] bytes, int length) {
            in = bytes;
            at = 0;
            end = length;
        }

        long varint(String what) {
            long value = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (at >= end) {
                    throw new ResyncNeeded("truncated message: " + what + " runs past its end at byte " + end);
                }
                int b = in[at++];
                value |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    return value;
                }
            }
            throw new ResyncNeeded("malformed message: " + what + " is a varint longer than 10 bytes, at byte " + at);
        }

        int count(String what, long max) {
            long v = varint(what);
            if (v < 0 || v > max) {
                throw new ResyncNeeded("malformed message: " + what + "=" + v + " outside 0.." + max);
            }
            return (int) v;
        }

        int u8(String what) {
            if (at >= end) {
                throw new ResyncNeeded("truncated message: " + what + " at byte " + at + " of " + end);
            }
            return in[at++] & 0xFF;
        }

        void need(int bytes, String what) {
            if (bytes > end - at) {
                throw new ResyncNeeded("truncated message: " + what + " needs " + bytes + " bytes at byte " + at
                        + ", message has " + end);
            }
        }
    }
}
