package org.eventspace.comm.path;

/** How the 64-bit payload words of a {@link Message} are to be read when reducing. */
public enum ValueType {
    LONG,
    DOUBLE;

    private static final ValueType[] VALUES = values();

    public static ValueType ofCode(int code) {
        if (code < 0 || code >= VALUES.length) {
            throw new IllegalArgumentException("unknown value type code=" + code);
        }
        return VALUES[code];
    }
}
