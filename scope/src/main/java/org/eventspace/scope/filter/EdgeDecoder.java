package org.eventspace.scope.filter;

/**
 * The receiving end of one edge of an event scope under an {@link EdgeCodec}: gives back, byte for byte, the packet
 * its {@link EdgeEncoder} encoded. A stateful decoder never guesses: a message it cannot decode exactly (a gap in the
 * sequence, a reference to a block it no longer or never held, a check that does not match) throws
 * {@link ResyncNeeded}, after which it accepts only the first message of a new epoch (the encoder's {@link
 * EdgeEncoder#reset}).
 *
 * <p>Not thread-safe: one scope node owns it and calls it from one thread at a time. {@link #output()} is valid
 * until the next call.
 */
public interface EdgeDecoder {
    /**
     * Decodes {@code encoded[0, length)}.
     *
     * @return how many bytes of {@link #output()} the packet takes.
     * @throws ResyncNeeded if the message cannot be decoded exactly; nothing of it is returned.
     */
    int decode(byte[] encoded, int length);

    /** The decoded bytes of the last {@link #decode}; the array may be longer than the packet. */
    byte[] output();
}
