package org.eventspace.comm.pathmap;

/**
 * A pathmap configuration file is wrong: bad JSON, a missing or unknown field, a value out of range, a name that
 * names nothing. The message reads like a compiler's, {@code cluster.json:12:17: application.tree: expected …,
 * got "kary:1"}, and each part is also available on its own for tools that want to point at the spot.
 *
 * <p>Unchecked, like the {@link IllegalArgumentException}s of the spec records it stands in front of: it is
 * thrown only at the edge, by {@link PathmapConfig}, and the command line turns it into one line on stderr.
 */
public final class PathmapConfigException extends RuntimeException {
    private final String source;
    private final int line;
    private final int column;
    private final String field;
    private final String problem;

    /**
     * @param source  the file (as the user named it) or another label for the text.
     * @param line    1-based line of the offending token.
     * @param column  1-based column of the offending token.
     * @param field   path of the field, e.g. {@code topology.clusters[1].hosts[0].name}; empty for the document.
     * @param problem what was expected and what was found.
     */
    public PathmapConfigException(String source, int line, int column, String field, String problem) {
        super(abbreviate(source, MAX_PART) + ":" + line + ":" + column + ": "
                + (field.isEmpty() ? "" : abbreviate(field, MAX_PART) + ": ") + abbreviate(problem, MAX_PART));
        this.source = source;
        this.line = line;
        this.column = column;
        this.field = field;
        this.problem = problem;
    }

    /** The most characters of each part (file, field, problem) the message repeats: a 10 MB value is not echoed. */
    public static final int MAX_PART = 300;

    /** {@code text} if it is at most {@code max} characters, else its start, an ellipsis and its length. */
    static String abbreviate(String text, int max) {
        if (text.length() <= max) {
            return text;
        }
        return text.substring(0, max) + "… (" + text.length() + " characters)";
    }

    public String source() {
        return source;
    }

    public int line() {
        return line;
    }

    public int column() {
        return column;
    }

    public String field() {
        return field;
    }

    public String problem() {
        return problem;
    }
}
