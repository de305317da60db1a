package org.eventspace.wan.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The noise-allreduce input file {@code eventspace-allreduce-input 1} (docs/MULTI-CLUSTER.md): the dissertation's
 * noise-allreduce reads the value each thread contributes per iteration from a file (appendix 7.3 §V-B). Line 1 is the
 * header; {@code #} lines and blank lines are skipped; one {@code epsilon E} line (the condition is "sum > E"), then
 * one non-negative integer per iteration. Rank r of R contributes {@code floor(value × 2(r+1) / (R(R+1)))}: integers
 * below 2^53, so every sum is exact whatever order the trees join them in.
 *
 * @param values one value per iteration.
 */
public record AllreduceInput(Path file, double epsilon, long[] values) {
    public static final String HEADER = "eventspace-allreduce-input 1";
    private static final long MAX_VALUE = 1L << 50;

    /** @throws IllegalArgumentException naming the file, the line and what was expected. */
    public static AllreduceInput read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new IllegalArgumentException(file + ": cannot read: " + e.getMessage(), e);
        }
        if (lines.isEmpty() || !lines.get(0).trim().equals(HEADER)) {
            throw new IllegalArgumentException(file + ":1: expected the header '" + HEADER + "'");
        }
        Double epsilon = null;
        long[] values = new long[lines.size()];
        int n = 0;
        for (int i = 1; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (line.startsWith("epsilon")) {
                if (epsilon != null) {
                    throw new IllegalArgumentException(file + ":" + (i + 1) + ": a second epsilon line");
                }
                try {
                    epsilon = Double.parseDouble(line.substring("epsilon".length()).trim());
                } catch (NumberFormatException e) {
                    epsilon = Double.NaN;
                }
                if (!Double.isFinite(epsilon)) {
                    throw new IllegalArgumentException(file + ":" + (i + 1) + ": expected 'epsilon E' with a finite "
                            + "number E, found '" + line + "'");
                }
                continue;
            }
            long v;
            try {
                v = Long.parseLong(line);
            } catch (NumberFormatException e) {
                v = -1;
            }
            if (v < 0 || v > MAX_VALUE) {
                throw new IllegalArgumentException(file + ":" + (i + 1) + ": expected an integer value 0.." + MAX_VALUE
                        + " per line, found '" + (line.length() > 40 ? line.substring(0, 40) + "…" : line) + "'");
            }
            values[n++] = v;
        }
        if (epsilon == null) {
            throw new IllegalArgumentException(file + ": no 'epsilon E' line");
        }
        if (n == 0) {
            throw new IllegalArgumentException(file + ": no values (one integer per iteration after the header)");
        }
        return new AllreduceInput(file, epsilon, java.util.Arrays.copyOf(values, n));
    }

    /** What rank {@code rank} of {@code ranks} contributes in iteration {@code i}. */
    public double contribution(int i, int rank, int ranks) {
        return Math.floor((double) values[i] * 2 * (rank + 1) / ((double) ranks * (ranks + 1)));
    }

    /** The answer every rank must get in iteration {@code i}: the exact sum of the contributions > epsilon. */
    public boolean expected(int i, int ranks) {
        double sum = 0;
        for (int r = 0; r < ranks; r++) {
            sum += contribution(i, r, ranks);
        }
        return sum > epsilon;
    }
}
