package org.eventspace.job;

import java.util.Locale;
import java.util.StringJoiner;

/**
 * A choice with a name on the command line and in JSON (an enum constant's {@link #label()}, its name in lower case),
 * parsed once at the edge by {@link #parse}: the one way every such choice is read. Implemented by enums only.
 */
public interface Labelled {
    /** The command-line and JSON name: the constant's name in lower case. */
    default String label() {
        return ((Enum<?>) this).name().toLowerCase(Locale.ROOT);
    }

    /**
     * The constant of {@code type} labelled {@code text} (case-insensitive).
     *
     * @param what what the choice is, for the message ("transport", "poll").
     * @throws IllegalArgumentException naming the text and every label expected.
     */
    static <E extends Enum<E> & Labelled> E parse(Class<E> type, String text, String what) {
        StringJoiner expected = new StringJoiner(", ");
        for (E e : type.getEnumConstants()) {
            if (e.label().equals(text.toLowerCase(Locale.ROOT))) {
                return e;
            }
            expected.add(e.label());
        }
        throw new IllegalArgumentException(what + " must be one of " + expected + ", got '" + text + "'");
    }
}
