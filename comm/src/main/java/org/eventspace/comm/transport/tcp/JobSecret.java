package org.eventspace.comm.transport.tcp;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * The shared secret every process of one job presents when it connects to another (handshake of a hop,
 * registration at the rendezvous), so that a stray or hostile connection is never served.
 *
 * <p>Immutable. {@link #toString()} never shows the secret; only {@link #toHex()} does, for handing it to
 * child processes.
 */
public final class JobSecret {
    public static final int LENGTH = 32;

    private final byte[] bytes;

    private JobSecret(byte[] bytes) {
        this.bytes = bytes;
    }

    public static JobSecret random() {
        byte[] b = new byte[LENGTH];
        new SecureRandom().nextBytes(b);
        return new JobSecret(b);
    }

    /**
     * Parses {@value #LENGTH} bytes written as {@code 2 * LENGTH} hex digits.
     *
     * @throws IllegalArgumentException saying what was expected; the text itself is not echoed.
     */
    public static JobSecret fromHex(String hex) {
        if (hex == null || hex.length() != 2 * LENGTH) {
            throw new IllegalArgumentException("a job secret is " + 2 * LENGTH + " hex digits (" + LENGTH
                    + " bytes), got " + (hex == null ? "nothing" : hex.length() + " characters"));
        }
        try {
            return new JobSecret(HexFormat.of().parseHex(hex));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("a job secret is " + 2 * LENGTH + " hex digits (0-9, a-f), got a non-hex character");
        }
    }

    public String toHex() {
        return HexFormat.of().formatHex(bytes);
    }

    public void writeTo(MutableDirectBuffer buffer, int offset) {
        buffer.putBytes(offset, bytes);
    }

    /** Compares in constant time, so the time a refusal takes tells nothing about how much of a guess was right. */
    public boolean matches(DirectBuffer buffer, int offset) {
        byte[] other = new byte[LENGTH];
        buffer.getBytes(offset, other);
        return MessageDigest.isEqual(bytes, other);
    }

    public boolean matches(byte[] other) {
        return other != null && MessageDigest.isEqual(bytes, other);
    }

    public byte[] bytes() {
        return bytes.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JobSecret s && MessageDigest.isEqual(bytes, s.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return "JobSecret[" + LENGTH + " bytes, not shown]";
    }
}
