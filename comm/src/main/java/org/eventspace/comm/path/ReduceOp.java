package org.eventspace.comm.path;

/**
 * The associative operation a {@link Gred} applies when it joins contributions.
 *
 * <p>{@code SLOT} is the operation behind broadcast, gather, scatter and all-to-all: every contributor owns
 * a disjoint slot of the payload and leaves the other words zero, so a bitwise OR places each contribution
 * without looking at its type. This is how PATHS builds every collective on the allreduce tree.
 */
public enum ReduceOp {
    SUM,
    MIN,
    MAX,
    SLOT;

    private static final ReduceOp[] VALUES = values();

    public static ReduceOp ofCode(int code) {
        if (code < 0 || code >= VALUES.length) {
            throw new IllegalArgumentException("unknown reduce op code=" + code);
        }
        return VALUES[code];
    }

    /** Folds {@code length} words of {@code in} into {@code acc} for the given value type. Allocates nothing. */
    public void combine(ValueType type, long[] acc, long[] in, int length) {
        combine(type, acc, in, 0, length);
    }

    /** Folds {@code in[from .. from+length)} into {@code acc[0 .. length)}. Allocates nothing. */
    public void combine(ValueType type, long[] acc, long[] in, int from, int length) {
        switch (this) {
            case SLOT -> {
                for (int i = 0; i < length; i++) {
                    acc[i] |= in[from + i];
                }
            }
            case SUM -> {
                if (type == ValueType.LONG) {
                    for (int i = 0; i < length; i++) {
                        acc[i] += in[from + i];
                    }
                } else {
                    for (int i = 0; i < length; i++) {
                        acc[i] = Double.doubleToRawLongBits(Double.longBitsToDouble(acc[i]) + Double.longBitsToDouble(in[from + i]));
                    }
                }
            }
            case MIN -> {
                if (type == ValueType.LONG) {
                    for (int i = 0; i < length; i++) {
                        acc[i] = Math.min(acc[i], in[from + i]);
                    }
                } else {
                    for (int i = 0; i < length; i++) {
                        acc[i] = Double.doubleToRawLongBits(Math.min(Double.longBitsToDouble(acc[i]), Double.longBitsToDouble(in[from + i])));
                    }
                }
            }
            case MAX -> {
                if (type == ValueType.LONG) {
                    for (int i = 0; i < length; i++) {
                        acc[i] = Math.max(acc[i], in[from + i]);
                    }
                } else {
                    for (int i = 0; i < length; i++) {
                        acc[i] = Double.doubleToRawLongBits(Math.max(Double.longBitsToDouble(acc[i]), Double.longBitsToDouble(in[from + i])));
                    }
                }
            }
            default -> throw new IllegalStateException("unhandled op " + this);
        }
    }
}
