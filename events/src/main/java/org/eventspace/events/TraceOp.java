package org.eventspace.events;

import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.path.ValueType;

/**
 * The codes of a trace tuple's op type and flags fields ({@link TraceTupleLayout}), and how an
 * {@link EventCollector} derives them from the message it saw. Codes are part of the trace format: never
 * renumber, only add. Codes 256 and up belong to the MPI interposition library (the mpi module's {@code MpiOp}).
 */
public final class TraceOp {
    /** The message did not match any operation this version knows. */
    public static final int UNKNOWN = 0;
    /** A collective with no payload ({@code Comm.barrier}: a SUM of zero words). */
    public static final int BARRIER = 1;
    /** A point-to-point write into a mailbox element ({@code Comm.send}). */
    public static final int SEND = 2;
    public static final int ALLREDUCE_SUM = 3;
    public static final int ALLREDUCE_MIN = 4;
    public static final int ALLREDUCE_MAX = 5;
    /** A slot-placement collective: broadcast, gather, scatter or all-to-all (all are SLOT allreduces in PATHS). */
    public static final int PLACEMENT = 6;

    /** The operation threw below the collector; its timestamps are those of a failure, not of a result. */
    public static final int FLAG_FAILED = 1;
    /** The value field holds the payload size in 64-bit words, not a result word. */
    public static final int FLAG_VALUE_IS_SIZE = 1 << 1;
    /** The payload words are doubles' raw bits. */
    public static final int FLAG_DOUBLE = 1 << 2;

    private static final String[] NAMES = {
        "unknown", "barrier", "send", "allreduce-sum", "allreduce-min", "allreduce-max", "placement"
    };

    private TraceOp() {
    }

    /** The op type of {@code message}, as it comes back up. Allocates nothing. */
    public static int of(Message message) {
        if (!message.element().isEmpty()) {
            return SEND;
        }
        ReduceOp op = message.op();
        if (op == ReduceOp.SLOT) {
            return PLACEMENT;
        }
        if (message.length() == 0) {
            return BARRIER;
        }
        return op == ReduceOp.SUM ? ALLREDUCE_SUM : op == ReduceOp.MIN ? ALLREDUCE_MIN : ALLREDUCE_MAX;
    }

    /**
     * The value a tuple records for {@code message}: the result word of a one-word operation (the paper's
     * return value, §4.2), otherwise the payload size in words (then {@link #FLAG_VALUE_IS_SIZE} is set).
     */
    public static long value(Message message) {
        return message.length() == 1 ? message.word(0) : message.length();
    }

    /** The flags that describe {@code message}'s value; the caller adds {@link #FLAG_FAILED}. */
    public static int flags(Message message) {
        int flags = message.length() == 1 ? 0 : FLAG_VALUE_IS_SIZE;
        return message.type() == ValueType.DOUBLE ? flags | FLAG_DOUBLE : flags;
    }

    /** A readable name for an op type code, for dumps. */
    public static String name(int opType) {
        return opType >= 0 && opType < NAMES.length ? NAMES[opType] : "op-" + opType;
    }
}
