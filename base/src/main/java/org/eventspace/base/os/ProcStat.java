package org.eventspace.base.os;

/**
 * Reads a field of a Linux {@code /proc/<pid>[/task/<tid>]/stat} line (proc(5)): field 2, the command name, is in
 * parentheses and may itself hold spaces and parentheses, so the fields after it are counted from the last ')'.
 * Stateless.
 */
public final class ProcStat {
    private ProcStat() {
    }

    /**
     * Field {@code n} of {@code stat}, numbered from 1 as proc(5) numbers them ({@code n ≥ 3}: 3 the state, 19 the nice
     * value, 41 the scheduling policy).
     *
     * @throws IllegalArgumentException if the line has no such field.
     */
    public static String field(String stat, int n) {
        int close = stat.lastIndexOf(')');
        if (n < 3 || close < 0 || close + 2 > stat.length()) {
            throw new IllegalArgumentException("not a stat line with field " + n + ": " + stat);
        }
        String[] rest = stat.substring(close + 2).trim().split(" ");
        if (n - 3 >= rest.length) {
            throw new IllegalArgumentException("stat line has " + (rest.length + 2) + " fields, not " + n);
        }
        return rest[n - 3];
    }
}
