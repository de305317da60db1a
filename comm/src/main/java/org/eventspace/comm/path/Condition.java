package org.eventspace.comm.path;

/**
 * The test a conditional allreduce's result is only used for, {@code result <op> constant} (dissertation appendix 7.3
 * §IV: "the type of evaluation to use (greater than, less than or equal), and the constant to evaluate against").
 *
 * <p>Each condition is one that a <em>partial</em> result can already decide as true when every contribution moves
 * the result one way: a sum of non-negative values or a maximum only grows as contributions join, so once a partial
 * sum exceeds the constant the full one does too; a sum of non-positive values or a minimum only shrinks. That is the
 * restriction (c) of §IV ("only positive (or only negative) values should be contributed"); {@link #checkContribution}
 * enforces it per value, {@link #checkOp} per operation.
 */
public enum Condition {
    /** {@code result > constant}: decided early for SUM of values ≥ 0 and for MAX. */
    GREATER(1),
    /** {@code result >= constant}: as {@link #GREATER}. */
    GREATER_EQUAL(1),
    /** {@code result < constant}: decided early for SUM of values ≤ 0 and for MIN. */
    LESS(-1),
    /** {@code result <= constant}: as {@link #LESS}. */
    LESS_EQUAL(-1);

    /** The pathmap property naming a tree's condition on its cluster roots ({@link #name()}). */
    public static final String PROPERTY = "until";
    /** The pathmap property holding a tree's constant ({@link Double#toString}). */
    public static final String CONSTANT_PROPERTY = "untilConstant";

    private static final Condition[] VALUES = values();
    /** +1: partial results only grow; -1: only shrink. */
    private final int direction;

    Condition(int direction) {
        this.direction = direction;
    }

    /** Whether {@code result <this> constant}. */
    public boolean holds(double result, double constant) {
        return switch (this) {
            case GREATER -> result > constant;
            case GREATER_EQUAL -> result >= constant;
            case LESS -> result < constant;
            case LESS_EQUAL -> result <= constant;
        };
    }

    /** The code a message carries ({@link Message#until()}): ordinal + 1, 0 meaning "not conditional". */
    public byte code() {
        return (byte) (ordinal() + 1);
    }

    /** The condition of a message's code, or null for 0. */
    public static Condition ofCode(int code) {
        if (code == 0) {
            return null;
        }
        if (code < 1 || code > VALUES.length) {
            throw new IllegalArgumentException("unknown condition code=" + code);
        }
        return VALUES[code - 1];
    }

    /**
     * @throws IllegalArgumentException if {@code op} can make a partial result move against this condition (SLOT, or
     *                                  MIN for a "greater" test, MAX for a "less" test), naming both.
     */
    public void checkOp(ReduceOp op) {
        boolean fits = op == ReduceOp.SUM || (direction > 0 ? op == ReduceOp.MAX : op == ReduceOp.MIN);
        if (!fits) {
            throw new IllegalArgumentException("a conditional allreduce with " + this + " needs partial results that only "
                    + (direction > 0 ? "grow (SUM of values >= 0, or MAX)" : "shrink (SUM of values <= 0, or MIN)")
                    + ", op=" + op);
        }
    }

    /**
     * @throws IllegalArgumentException if {@code value} would make a SUM's partial results move against this
     *                                  condition, or is NaN (no partial result can decide a NaN).
     */
    public void checkContribution(ReduceOp op, double value) {
        if (Double.isNaN(value) || (op == ReduceOp.SUM && (direction > 0 ? value < 0 : value > 0))) {
            throw new IllegalArgumentException("a conditional allreduce (" + op + ", " + this + ") takes only "
                    + (direction > 0 ? "values >= 0" : "values <= 0") + " (dissertation appendix 7.3, restriction c), value="
                    + value);
        }
    }

    /** Parses {@code gt}, {@code ge}, {@code lt}, {@code le} or the enum's name. */
    public static Condition parse(String text) {
        return switch (text.trim()) {
            case "gt", "GREATER" -> GREATER;
            case "ge", "GREATER_EQUAL" -> GREATER_EQUAL;
            case "lt", "LESS" -> LESS;
            case "le", "LESS_EQUAL" -> LESS_EQUAL;
            default -> throw new IllegalArgumentException("condition '" + text + "': expected gt, ge, lt or le");
        };
    }
}
