package org.eventspace.fuzz;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * {@code eventspace bench fuzz}: runs {@code cases} fuzz cases split evenly over the chosen formats (the first formats
 * take the remainder), one format after the other, each from the same seed, so that
 * {@code --format F --seed S --cases 1} replays case S of format F. The answer is one {@link FuzzRunner.FormatResult}
 * per format; {@link #summary} prints them as a table.
 *
 * <p>Not thread-safe: the TCP and rendezvous fuzzers take over {@code System.err} while they run.
 */
public final class FuzzSuite {
    private FuzzSuite() {
    }

    /**
     * @param log where failures (and a progress line every 30 s) go as they happen; the caller's stream, which the
     *            fuzzers' capture of {@code System.err} does not touch.
     */
    public static List<FuzzRunner.FormatResult> run(List<FuzzFormat> formats, long cases, long seed, Consumer<String> log)
            throws Exception {
        if (formats.isEmpty()) {
            throw new IllegalArgumentException("no format to fuzz");
        }
        if (cases < 0) {
            throw new IllegalArgumentException("cases must be >= 0, cases=" + cases);
        }
        List<FuzzRunner.FormatResult> results = new ArrayList<>();
        Path work = Files.createTempDirectory("eventspace-fuzz");
        try {
            FuzzRunner runner = new FuzzRunner(log);
            for (int i = 0; i < formats.size(); i++) {
                long share = cases / formats.size() + (i < cases % formats.size() ? 1 : 0);
                FuzzFormat format = formats.get(i);
                Path dir = Files.createDirectories(work.resolve(format.label()));
                try (Fuzzer fuzzer = format.open(dir)) {
                    results.add(runner.run(fuzzer, seed, share));
                }
            }
        } finally {
            deleteQuietly(work);
        }
        return results;
    }

    /** Failures in all. */
    public static long failures(List<FuzzRunner.FormatResult> results) {
        return results.stream().mapToLong(FuzzRunner.FormatResult::failures).sum();
    }

    /** The results as a table for people, with a total row, times in seconds. */
    public static String summary(List<FuzzRunner.FormatResult> results, long seed) {
        StringBuilder b = new StringBuilder();
        String row = "%-12s %9s %9s %9s %9s %9s %10s%n";
        b.append(String.format(Locale.ROOT, row, "format", "cases", "accepted", "refused", "failures", "time s", "ms/case"));
        long cases = 0;
        long accepted = 0;
        long refused = 0;
        long failures = 0;
        long nanos = 0;
        for (FuzzRunner.FormatResult r : results) {
            b.append(line(row, r.format(), r.cases(), r.accepted(), r.refused(), r.failures(), r.nanos()));
            cases += r.cases();
            accepted += r.accepted();
            refused += r.refused();
            failures += r.failures();
            nanos += r.nanos();
        }
        if (results.size() > 1) {
            b.append(line(row, "all", cases, accepted, refused, failures, nanos));
        }
        b.append(String.format(Locale.ROOT, "seed %d (format F's case i has seed %d + i); %s%n", seed, seed,
                failures == 0 ? "no failure" : failures + " failed: replay one with --format F --seed S --cases 1"));
        return b.toString();
    }

    private static String line(String row, String format, long cases, long accepted, long refused, long failures,
                               long nanos) {
        return String.format(Locale.ROOT, row, format, cases, accepted, refused, failures,
                String.format(Locale.ROOT, "%.1f", nanos / 1e9),
                cases == 0 ? "-" : String.format(Locale.ROOT, "%.2f", nanos / 1e6 / cases));
    }

    /** Parses {@code all} or one format. */
    public static List<FuzzFormat> formats(String text) {
        return text.equalsIgnoreCase("all") ? List.of(FuzzFormat.values()) : List.of(FuzzFormat.parse(text));
    }

    private static void deleteQuietly(Path dir) {
        try {
            TraceDumpFuzzer.deleteTree(dir);
        } catch (IOException ignored) {
            // A temporary directory: the OS cleans it.
        }
    }
}
