package org.eventspace.fuzz;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The edits every line-based format's fuzzer makes the same way (WAN files, topology files): a line dropped, doubled
 * or swapped with another, and the text cut short. Each draws from the case's own random stream, so a seed replays
 * the same edits.
 */
final class LineEdits {
    private LineEdits() {
    }

    /** Edit {@code kind} at line {@code i}: 0 drops it, 1 doubles it, 2 swaps it with a random line. */
    static void reorder(FuzzCase c, List<String> lines, int i, int kind) {
        switch (kind) {
            case 0 -> {
                c.note("drop line " + (i + 1));
                lines.remove(i);
            }
            case 1 -> {
                c.note("double line " + (i + 1));
                lines.add(i, lines.get(i));
            }
            default -> {
                int j = c.random().nextInt(lines.size());
                c.note("swap lines " + (i + 1) + " and " + (j + 1));
                String l = lines.get(i);
                lines.set(i, lines.get(j));
                lines.set(j, l);
            }
        }
    }

    /** The lines cut at a random character. */
    static List<String> cut(FuzzCase c, List<String> lines) {
        String joined = String.join("\n", lines);
        int cut = c.random().nextInt(joined.length() + 1);
        c.note("cut to " + cut + " characters");
        return new ArrayList<>(Arrays.asList(joined.substring(0, cut).split("\n", -1)));
    }
}
