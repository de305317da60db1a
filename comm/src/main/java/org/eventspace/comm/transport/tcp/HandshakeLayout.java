package org.eventspace.comm.transport.tcp;

import static org.agrona.BitUtil.SIZE_OF_INT;

/**
 * Layout of the handshake that opens a TCP hop, and of the serving host's acknowledgement. Every field is
 * little-endian ({@link FrameLayout#BYTE_ORDER}).
 *
 * <p>The client sends, once, right after connecting:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                     Magic ("ESHP" = 0x50485345)               |
 *  +---------------------------------------------------------------+
 *  |                       Protocol Version                        |
 *  +---------------------------------------------------------------+
 *  |                 Handshake Length (bytes, all of it)           |
 *  +---------------------------------------------------------------+
 *  |                     Job Secret (32 bytes)                    ...
 *  +---------------------------------------------------------------+
 *  |                           From Host                           |
 *  +---------------------------------------------------------------+
 *  |                            To Host                            |
 *  +---------------------------------------------------------------+
 *  |             Target Node (-1 for a point-to-point hop)         |
 *  +---------------------------------------------------------------+
 *  |                          Target Port                          |
 *  +---------------------------------------------------------------+
 *  |                  Element Name Length (bytes)                  |
 *  +---------------------------------------------------------------+
 *  |                    Element Name (UTF-8)                      ...
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>The server answers a handshake that carries the right magic, version and secret with:
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                     Magic ("ESHP" = 0x50485345)               |
 *  +---------------------------------------------------------------+
 *  |                  Status (0 accepted, 1 refused)               |
 *  +---------------------------------------------------------------+
 *  |                  Reason Length (bytes, 0 if accepted)         |
 *  +---------------------------------------------------------------+
 *  |                         Reason (UTF-8)                       ...
 *  +---------------------------------------------------------------+
 * </pre>
 * A wrong magic, version or secret gets no answer at all: the server only closes the socket, so a stranger
 * learns nothing about the job.
 */
public final class HandshakeLayout {
    public static final int MAGIC = 0x50485345;
    public static final int VERSION = 1;
    public static final int SECRET_LENGTH = JobSecret.LENGTH;
    public static final int MAX_ELEMENT_NAME_LENGTH = 1024;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = MAGIC_OFFSET + SIZE_OF_INT;
    public static final int LENGTH_OFFSET = VERSION_OFFSET + SIZE_OF_INT;
    public static final int SECRET_OFFSET = LENGTH_OFFSET + SIZE_OF_INT;
    public static final int FROM_HOST_OFFSET = SECRET_OFFSET + SECRET_LENGTH;
    public static final int TO_HOST_OFFSET = FROM_HOST_OFFSET + SIZE_OF_INT;
    public static final int TARGET_NODE_OFFSET = TO_HOST_OFFSET + SIZE_OF_INT;
    public static final int TARGET_PORT_OFFSET = TARGET_NODE_OFFSET + SIZE_OF_INT;
    public static final int ELEMENT_LENGTH_OFFSET = TARGET_PORT_OFFSET + SIZE_OF_INT;
    public static final int ELEMENT_OFFSET = ELEMENT_LENGTH_OFFSET + SIZE_OF_INT;
    /** The fixed part of a handshake; the element name follows. */
    public static final int FIXED_LENGTH = ELEMENT_OFFSET;
    public static final int MAX_LENGTH = FIXED_LENGTH + MAX_ELEMENT_NAME_LENGTH;

    public static final int ACK_MAGIC_OFFSET = 0;
    public static final int ACK_STATUS_OFFSET = ACK_MAGIC_OFFSET + SIZE_OF_INT;
    public static final int ACK_REASON_LENGTH_OFFSET = ACK_STATUS_OFFSET + SIZE_OF_INT;
    public static final int ACK_REASON_OFFSET = ACK_REASON_LENGTH_OFFSET + SIZE_OF_INT;
    public static final int ACK_FIXED_LENGTH = ACK_REASON_OFFSET;
    public static final int ACK_MAX_REASON_LENGTH = 4096;

    public static final int ACK_ACCEPTED = 0;
    public static final int ACK_REFUSED = 1;

    private HandshakeLayout() {
    }
}
