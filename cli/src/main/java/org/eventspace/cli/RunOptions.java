package org.eventspace.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.eventspace.bench.Benchmark;
import org.eventspace.bench.RunConfig;
import org.eventspace.job.JobConfig;
import org.eventspace.job.PollMode;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The flags every command that runs a benchmark shares: the job's layout ({@link LayoutOptions}, which
 * {@code describe} shares) and how the run goes — iterations, warm-up, payload, timeout, TCP polling, the report and
 * the trace dump; validated once into a {@link RunConfig}. Not thread-safe: picocli fills it, one command reads it.
 */
final class RunOptions {
    @Mixin
    LayoutOptions layout = new LayoutOptions();

    @Option(names = "--iterations", description = "Timed iterations. Default: ${DEFAULT-VALUE}.", defaultValue = "20000")
    int iterations;

    @Option(names = "--warmup", description = "Untimed iterations first, through the same loop (JIT). Default: ${DEFAULT-VALUE}.",
            defaultValue = "10000")
    int warmup;

    @Option(names = "--warmup-s", description = "Warm up in rounds of --warmup iterations until this many seconds passed (JIT). Default: ${DEFAULT-VALUE}.",
            defaultValue = "1")
    double warmupSeconds;

    @Option(names = "--bytes", description = "Payload bytes per allreduce or message (multiple of 8). Default: ${DEFAULT-VALUE}.",
            defaultValue = "8")
    int bytes;

    @Option(names = "--timeout", description = "Seconds a collective waits for a missing rank before the run fails. Default: ${DEFAULT-VALUE}.",
            defaultValue = "30")
    double timeoutSeconds;

    @Option(names = "--poll", description = "TCP hops: spin (busy-poll, then yield, then block), yield (poll with yields, then block), block, or auto (spin if every thread has a core, else yield). Default: ${DEFAULT-VALUE}.",
            defaultValue = "auto")
    String poll;

    @Option(names = "--socket-buffer", description = "SO_SNDBUF and SO_RCVBUF of every TCP hop in bytes; 0 keeps the OS default. Default: ${DEFAULT-VALUE}.",
            defaultValue = "0")
    int socketBufferBytes;

    @Option(names = "--json", description = "Write the eventspace.run/1 report to this file.")
    Path json;

    @Option(names = "--trace-dump", paramLabel = "DIR", description = "Keep the trace buffers as memory-mapped files in "
            + "DIR/host-<id>/ and write DIR/pathmap.json (needs --collectors on).")
    Path traceDump;

    @Option(names = "--sort-length", paramLabel = "INTS", description = "compute-gsum: ints each iteration sorts; 0 "
            + "calibrates it so a sort takes about an allreduce. Default: ${DEFAULT-VALUE}.", defaultValue = "0")
    int sortLength;

    RunConfig toConfig(Benchmark benchmark) {
        if (bytes < 8 || bytes % 8 != 0) {
            throw new UsageError("--bytes must be a positive multiple of 8, got " + bytes);
        }
        if (iterations < 1) {
            throw new UsageError("--iterations must be >= 1, got " + iterations);
        }
        if (warmup < 1) {
            throw new UsageError("--warmup must be >= 1 iteration, got " + warmup);
        }
        if (socketBufferBytes < 0) {
            throw new UsageError("--socket-buffer must be >= 0 bytes (0 keeps the OS default), got " + socketBufferBytes);
        }
        layout.checkCollectors();
        if (traceDump != null && !layout.collectorsOn()) {
            throw new UsageError("--trace-dump " + traceDump + " needs --collectors on");
        }
        if (traceDump != null && Files.exists(traceDump) && !Files.isDirectory(traceDump)) {
            throw new UsageError("--trace-dump must be a directory, " + traceDump + " is a file");
        }
        Duration timeout = seconds("--timeout", timeoutSeconds, 0.001, JobConfig.MAX_TIMEOUT.toSeconds());
        Duration warmupTime = seconds("--warmup-s", warmupSeconds, 0, RunConfig.MAX_WARMUP_TIME.toSeconds());
        PollMode pollMode;
        try {
            pollMode = PollMode.parse(poll);
        } catch (IllegalArgumentException e) {
            throw new UsageError("--poll: " + e.getMessage());
        }
        if (json != null) {
            ConfigFiles.checkWritable("--json", json);
        }
        JobConfig job = layout.toJob(timeout, pollMode, socketBufferBytes, traceDump);
        RunConfig run;
        try {
            run = new RunConfig(benchmark, job, iterations, warmup, warmupTime, bytes / 8, sortLength);
        } catch (IllegalArgumentException e) {
            throw new UsageError(e.getMessage());
        }
        layout.checkFootprint(job, run.program(), programFlags(benchmark));
        return run;
    }

    /** The flags of this run that add memory to every rank, as given; empty when they are at their defaults. */
    private String programFlags(Benchmark benchmark) {
        String flags = bytes > 8 ? "--bytes " + bytes : "";
        if (benchmark == Benchmark.COMPUTE_GSUM && sortLength > 0) {
            flags += (flags.isEmpty() ? "" : " ") + "--sort-length " + sortLength;
        }
        return flags;
    }

    /** A number of seconds from a flag, finite and within [min, max], as a duration of whole milliseconds. */
    static Duration seconds(String flag, double value, double min, double max) {
        if (!Double.isFinite(value) || value < min || value > max) {
            throw new UsageError(String.format(java.util.Locale.ROOT, "%s must be a number of seconds from %s to %s, got %s",
                    flag, trim(min), trim(max), value));
        }
        return Duration.ofMillis(Math.round(value * 1000));
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
