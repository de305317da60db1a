package org.eventspace.fuzz;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Runs the cases of one {@link Fuzzer}: case i has seed {@code seed + i}, runs on a daemon thread and may take
 * {@link Fuzzer#caseTimeout()}; whatever escapes it (an exception, an {@link OutOfMemoryError}) or outlasts it is a
 * failure, reported at once with the format, the seed, the problem and the mutations, so that
 * {@code eventspace bench fuzz --format F --seed S --cases 1} replays it.
 *
 * <p>Not thread-safe: one batch at a time. A case that timed out is interrupted and abandoned (its thread is a daemon);
 * the next case gets a new thread.
 */
public final class FuzzRunner {
    /** Failures quoted in full in a {@link FormatResult}; the others are counted. */
    static final int FAILURES_KEPT = 10;
    private static final long PROGRESS_NANOS = TimeUnit.SECONDS.toNanos(30);

    /** Where a failing case's inputs are saved, a folder per case: {@code FORMAT-seed-S/}. */
    static final Path SAVED_INPUTS = Path.of(System.getProperty("java.io.tmpdir"), "eventspace-fuzz-failures");

    private final Consumer<String> log;
    private final Path saved;
    private ExecutorService thread;

    /** @param log where failures and progress lines go as they happen (a line each). */
    FuzzRunner(Consumer<String> log) {
        this(log, SAVED_INPUTS);
    }

    /** @param saved the folder a failing case's inputs are saved under. */
    FuzzRunner(Consumer<String> log, Path saved) {
        this.log = log;
        this.saved = saved;
    }

    /** Runs cases {@code seed .. seed + cases - 1} of {@code fuzzer}, then its {@link Fuzzer#afterBatch()} checks. */
    FormatResult run(Fuzzer fuzzer, long seed, long cases) {
        long accepted = 0;
        long refused = 0;
        long failed = 0;
        List<String> reports = new ArrayList<>();
        long start = System.nanoTime();
        long nextProgress = start + PROGRESS_NANOS;
        try {
            for (long i = 0; i < cases; i++) {
                FuzzCase c = new FuzzCase(seed + i);
                String problem = runOne(fuzzer, c);
                if (problem == null && c.verdict() == null) {
                    problem = "the fuzzer ended the case without a verdict (a fuzzer bug)";
                }
                if (problem != null) {
                    failed++;
                    String report = "FAIL " + fuzzer.format() + " seed=" + c.seed() + ": " + problem + "\n  after: "
                            + c.mutations() + save(fuzzer.format(), c) + "\n  replay: eventspace bench fuzz --format "
                            + fuzzer.format() + " --seed " + c.seed() + " --cases 1";
                    log.accept(report);
                    if (reports.size() < FAILURES_KEPT) {
                        reports.add(report);
                    }
                } else if (c.verdict() == FuzzCase.Verdict.ACCEPTED) {
                    accepted++;
                } else {
                    refused++;
                }
                if (System.nanoTime() > nextProgress) {
                    nextProgress = System.nanoTime() + PROGRESS_NANOS;
                    log.accept(String.format(java.util.Locale.ROOT, "fuzz %s: %d of %d cases, %d failed, %.0f s",
                            fuzzer.format(), i + 1, cases, failed, (System.nanoTime() - start) / 1e9));
                }
            }
            try {
                fuzzer.afterBatch();
            } catch (Throwable t) {
                failed++;
                String report = "FAIL " + fuzzer.format() + " after cases seed=" + seed + ".." + (seed + cases - 1) + ": "
                        + describe(t);
                log.accept(report);
                reports.add(report);
            }
        } finally {
            if (thread != null) {
                thread.shutdownNow();
                thread = null;
            }
        }
        return new FormatResult(fuzzer.format(), cases, accepted, refused, failed, System.nanoTime() - start,
                List.copyOf(reports));
    }

    /** Saves a failing case's inputs; says where, or nothing if it kept none (its seed alone replays it). */
    private String save(String format, FuzzCase c) {
        Map<String, byte[]> inputs = c.inputs();
        if (inputs.isEmpty()) {
            return "";
        }
        Path dir = saved.resolve(format + "-seed-" + c.seed());
        try {
            Files.createDirectories(dir);
            for (Map.Entry<String, byte[]> e : inputs.entrySet()) {
                Files.write(dir.resolve(Path.of(e.getKey()).getFileName().toString()), e.getValue());
            }
            return "\n  input saved in " + dir;
        } catch (IOException | RuntimeException e) {
            return "\n  input not saved in " + dir + ": " + e;
        }
    }

    /** Runs one case on the case thread; returns what went wrong, or null. */
    private String runOne(Fuzzer fuzzer, FuzzCase c) {
        if (thread == null) {
            thread = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "es-fuzz-" + fuzzer.format());
                t.setDaemon(true);
                return t;
            });
        }
        Future<?> result = thread.submit(() -> {
            fuzzer.run(c);
            return null;
        });
        long timeout = fuzzer.caseTimeout().toMillis();
        try {
            result.get(timeout, TimeUnit.MILLISECONDS);
            return null;
        } catch (TimeoutException e) {
            result.cancel(true);
            thread.shutdownNow();
            thread = null;
            return "did not end within " + timeout + " ms (a hang)";
        } catch (ExecutionException e) {
            return describe(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("fuzzing interrupted at seed " + c.seed(), e);
        }
    }

    /** A failed check by its message; anything else with its type and the first frames of its stack. */
    static String describe(Throwable t) {
        if (t instanceof FuzzCase.CheckFailed) {
            return t.getMessage();
        }
        if (t instanceof OutOfMemoryError) {
            return "ran out of memory: " + t;
        }
        StringWriter s = new StringWriter();
        t.printStackTrace(new PrintWriter(s));
        String[] lines = s.toString().split("\n");
        StringBuilder b = new StringBuilder("threw ").append(FuzzCase.cut(lines[0], 500));
        for (int i = 1; i < Math.min(lines.length, 8); i++) {
            b.append('\n').append(lines[i]);
        }
        return b.toString();
    }

    /**
     * What the cases of one format did.
     *
     * @param accepted inputs the target took (a damaged input may still be a valid one).
     * @param refused  inputs the target refused in the documented way.
     * @param failures cases that failed a check, threw, or did not end (plus a failed {@link Fuzzer#afterBatch()}).
     * @param nanos    time for all of them.
     * @param reports  the first {@value #FAILURES_KEPT} failures, as reported.
     */
    public record FormatResult(String format, long cases, long accepted, long refused, long failures, long nanos,
                               List<String> reports) {
    }
}
