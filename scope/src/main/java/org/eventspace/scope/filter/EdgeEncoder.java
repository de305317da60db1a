package org.eventspace.scope.filter;

/**
 * The sending end of one edge of an event scope under an {@link EdgeCodec}: turns the bytes of each packet that goes
 * up the edge into the bytes that cross it. A stateful encoder (content-based compression) encodes each packet
 * against what it already sent on this edge, so the packets of one edge must go through one encoder, in order, and
 * reach one {@link EdgeDecoder}.
 *
 * <p>Not thread-safe: one scope node owns it and calls it from one thread at a time. It reuses its output buffer:
 * {@link #output()} is valid until the next call.
 */
public interface EdgeEncoder {
    /**
     * Encodes {@code raw[0, length)}.
     *
     * @return how many bytes of {@link #output()} the encoded packet takes.
     */
    int encode(byte[] raw, int length);

    /** The encoded bytes of the last {@link #encode}; the array may be longer than the encoding. */
    byte[] output();

    /**
     * Forgets everything sent so far; the next encoding starts a new epoch the decoder can follow from nothing (the
     * answer to a decoder's resync request). A stateless encoder does nothing.
     */
    void reset();
}
