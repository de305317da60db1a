package org.eventspace.scope.filter;

import java.util.Locale;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Which event names make a rank's class id in {@link ClassFilter}. ToM §4.3: "the class-id can be generated based
 * only on a subset of application events (e.g. … if they are MPI routines)"; its experiments compare a Default
 * scheme (all events), an MPI Only scheme and schemes that pick events by name (Patch Only, AMR L1 Patch Only).
 * Here those are {@code all}, {@code comm} and a regular expression. Immutable.
 */
public final class ClassScheme {
    /** Every event name: ToM's Default scheme. */
    public static final ClassScheme ALL = new ClassScheme("all", null);
    /** Communication events only ({@link #isCommunicationEvent}): ToM's MPI Only scheme. */
    public static final ClassScheme COMMUNICATION = new ClassScheme("comm", null);

    private static final String[] COMMUNICATION_WORDS =
            {"allreduce", "broadcast", "barrier", "gather", "scatter", "alltoall", "send", "recv"};

    private final String text;
    private final Pattern pattern;

    private ClassScheme(String text, Pattern pattern) {
        this.text = text;
        this.pattern = pattern;
    }

    /**
     * {@code all}, {@code comm}, or else a Java regular expression: an event is selected when the expression is
     * found in its name ({@link java.util.regex.Matcher#find()}, as grep does; anchor with ^ and $ for a whole
     * name). The words {@code all} and {@code comm} are the schemes; write {@code ^all$} for the expression.
     *
     * @throws IllegalArgumentException if the text is empty or the expression does not compile.
     */
    public static ClassScheme parse(String text) {
        return switch (text) {
            case "all" -> ALL;
            case "comm" -> COMMUNICATION;
            default -> matching(text);
        };
    }

    /** Events whose name contains a match of {@code regex}. */
    public static ClassScheme matching(String regex) {
        if (regex.isEmpty()) {
            throw new IllegalArgumentException("class scheme must be all, comm or a non-empty regular expression,"
                    + " scheme=''");
        }
        try {
            return new ClassScheme(regex, Pattern.compile(regex));
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("class scheme '" + regex + "' is not a valid regular expression: "
                    + e.getDescription() + " near index " + e.getIndex(), e);
        }
    }

    /**
     * The communication rule, one place for it: a name is a communication event if it starts with {@code MPI_}
     * or contains allreduce, broadcast, barrier, gather, scatter, alltoall, send or recv, all case-insensitive.
     * It covers TAU's MPI wrappers ({@code MPI_Allreduce()}) and EventSpace's own operation names (which are
     * collectives and point-to-point calls on paths, not MPI); "send" also catches Isend and Sendrecv.
     */
    public static boolean isCommunicationEvent(String event) {
        String name = event.toLowerCase(Locale.ROOT);
        if (name.startsWith("mpi_")) {
            return true;
        }
        for (String word : COMMUNICATION_WORDS) {
            if (name.contains(word)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code event} takes part in the class id. */
    public boolean selects(String event) {
        if (this == ALL) {
            return true;
        }
        if (this == COMMUNICATION) {
            return isCommunicationEvent(event);
        }
        return pattern.matcher(event).find();
    }

    /** The scheme as written after {@code class:}. */
    public String text() {
        return text;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ClassScheme other && other.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    @Override
    public String toString() {
        return text;
    }
}
