package org.eventspace.comm.launch;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Messages between a host process and the {@link Rendezvous}, over one TCP connection per process, written
 * with {@link DataOutputStream} (big-endian). Every message is an int type followed by its fields; a string is
 * an int byte count followed by that many bytes of UTF-8.
 *
 * <pre>
 *  process → rendezvous
 *    HELLO    magic:int version:int secret:byte[32] host:int hosts:int serverHost:string serverPort:int
 *    BARRIER  name:string               -- released by PASSED once every host sent it
 *    PART     piece:string              -- the next piece of a result line longer than one string
 *    DONE     resultLine:string         -- one JSON line (its last piece); released by ALL_DONE once every host sent it
 *    ABORT    reason:string             -- asks the rendezvous to abort the job
 *    HEARTBEAT                          -- every HEARTBEAT_MILLIS from the hello on: "this process still runs"
 *  rendezvous → process
 *    TABLE    hosts:int (host:string port:int) × hosts   -- once every host said HELLO
 *    PASSED   name:string
 *    ALL_DONE
 *    ABORT    reason:string             -- the job failed; the connection closes after it
 *    HEARTBEAT                          -- every HEARTBEAT_MILLIS to every process that said hello
 * </pre>
 *
 * A HELLO with a wrong magic, version or secret is not answered: the socket is closed. A side that hears nothing
 * from the other for {@link #SILENCE_MILLIS} takes it for frozen or unreachable and ends the job naming it.
 * Version 2 added the heartbeat. Version 3 added PART: a result line travels as pieces of at most
 * {@link #MAX_STRING_BYTES} (cut between bytes, joined before decoding), up to {@link #MAX_RESULT_BYTES} in all, so a
 * host's results of a large job arrive whole instead of failing on the limit of one string.
 */
public final class RendezvousProtocol {
    public static final int MAGIC = 0x45535256; // "ESRV"
    public static final int VERSION = 3;
    public static final int MAX_STRING_BYTES = 1 << 20;
    /** The longest result line a host may report, in bytes of UTF-8: its pieces together. */
    public static final int MAX_RESULT_BYTES = 64 << 20;
    /** The longest host name a HELLO may carry (DNS allows 253 characters). */
    public static final int MAX_HOST_NAME_BYTES = 255;

    public static final int HELLO = 1;
    public static final int BARRIER = 2;
    public static final int DONE = 3;
    public static final int ABORT = 4;
    public static final int HEARTBEAT = 5;
    public static final int PART = 6;
    public static final int TABLE = 10;
    public static final int PASSED = 11;
    public static final int ALL_DONE = 12;

    /** How often each side says it is alive. */
    public static final long HEARTBEAT_MILLIS = 500;
    /** How long a side may stay silent before the other ends the job naming it. */
    public static final long SILENCE_MILLIS = 5_000;

    private RendezvousProtocol() {
    }

    static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        writeBytes(out, b, 0, b.length);
    }

    /** Writes {@code length} bytes of {@code b} from {@code offset} as a string (at most {@link #MAX_STRING_BYTES}). */
    static void writeBytes(DataOutputStream out, byte[] b, int offset, int length) throws IOException {
        if (length > MAX_STRING_BYTES) {
            throw new IOException("string of " + length + " bytes exceeds the rendezvous limit of " + MAX_STRING_BYTES);
        }
        out.writeInt(length);
        out.write(b, offset, length);
    }

    static String readString(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > MAX_STRING_BYTES) {
            throw new IOException("string of " + length + " bytes; expected 0.." + MAX_STRING_BYTES);
        }
        byte[] b = new byte[length];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }
}
