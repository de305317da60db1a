package org.eventspace.comm.traffic;

import java.util.Locale;

/**
 * Descriptor of the one-byte traffic tag every {@link org.eventspace.comm.path.Message} carries: which application
 * operation the message belongs to, the application phase ({@code Comm.phase}) its sender was in, and whether the
 * sender's traffic scope counts it (ibprof paper §3.2: all the time, only inside chosen collectives, or only in marked
 * phases). The sender decides, so both ends of a hop count the same messages, even one that arrives before the
 * receiving process has seen its phase marked; a transport only tests the sign of the byte.
 *
 * <pre>
 *   7   6   5   4   3   2   1   0
 *  +---+-----------+---------------+
 *  | C |   Phase   |     Kind      |
 *  +---+-----------+---------------+
 * </pre>
 *
 * <p>C ({@link #COUNTED}): count this message. Kind {@link #OTHER} (0) is traffic that is not the application's (an
 * event scope's gathers, monitors): it is never counted, as ibprof counts only the profiled program's own messages.
 * Phase 0 is "no phase marked yet".
 */
public final class TrafficTag {
    public static final int KIND_BITS = 4;
    public static final int KIND_MASK = (1 << KIND_BITS) - 1;
    public static final int PHASE_SHIFT = KIND_BITS;
    public static final int PHASE_BITS = 3;
    /** Phases a job can tell apart, the unmarked phase 0 included. */
    public static final int MAX_PHASES = 1 << PHASE_BITS;
    /** Distinct (phase, kind) pairs: the tag without its {@link #COUNTED} bit. */
    public static final int TAGS = 1 << (KIND_BITS + PHASE_BITS);
    /** The bit that says the sender's scope counts the message: the byte's sign bit. */
    public static final int COUNTED = 0x80;

    public static final int OTHER = 0;
    public static final int SEND = 1;
    public static final int ALLREDUCE = 2;
    public static final int BARRIER = 3;
    public static final int BROADCAST = 4;
    public static final int GATHER = 5;
    public static final int ALLGATHER = 6;
    public static final int SCATTER = 7;
    public static final int ALLTOALL = 8;
    /** Names of the kinds, by code. */
    private static final String[] NAMES = {"other", "send", "allreduce", "barrier", "broadcast", "gather", "allgather",
        "scatter", "alltoall"};
    /** Kinds there are, {@link #OTHER} included (a port keeps a cell per kind and peer). */
    public static final int KINDS = 9;

    private TrafficTag() {
    }

    /** A tag of a message not counted. */
    public static byte of(int phase, int kind) {
        return (byte) ((phase << PHASE_SHIFT) | kind);
    }

    /** {@code tag} with its counted bit set. */
    public static byte counted(byte tag) {
        return (byte) (tag | COUNTED);
    }

    /** Whether the sender's scope counts a message with {@code tag}. */
    public static boolean isCounted(byte tag) {
        return tag < 0;
    }

    public static int kind(byte tag) {
        return tag & KIND_MASK;
    }

    public static int phase(byte tag) {
        return (tag >>> PHASE_SHIFT) & (MAX_PHASES - 1);
    }

    public static int kinds() {
        return KINDS;
    }

    public static String kindName(int kind) {
        return kind >= 0 && kind < NAMES.length ? NAMES[kind] : "kind-" + kind;
    }

    /** The code of a collective or {@code send} by name; -1 if {@code name} is none (or is {@code other}). */
    public static int kindOf(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        for (int k = 1; k < NAMES.length; k++) {
            if (NAMES[k].equals(n)) {
                return k;
            }
        }
        return -1;
    }

    /** The names a user may choose collectives by, for error messages. */
    public static String kindNames() {
        return String.join(",", java.util.Arrays.copyOfRange(NAMES, 1, NAMES.length));
    }
}
