package org.eventspace.cli;

import java.nio.file.Path;

import org.eventspace.run.RunConfig;
import org.eventspace.trace.DeltaHistogram;
import org.eventspace.trace.TimeEncoding;
import org.eventspace.trace.TraceConfig;

import picocli.CommandLine.Option;

/**
 * {@code run … --trace FILE [--time-encoding stats|hist|path] [--trace-bins K]}: record the ranks' calls into a
 * compressed, time-preserving trace (the {@code trace} module). Validated once into a {@link TraceConfig}. Not
 * thread-safe: picocli fills it, one command reads it.
 */
final class TraceRunOptions {
    @Option(names = "--trace", paramLabel = "FILE", description = "Record every rank's communication calls, compress them "
            + "(loops, ranks merged) and write the eventspace.trace/3 file FILE (JSON; CBOR, a third smaller, if FILE ends in .cbor); "
            + "read it with eventspace trace show|stats|search|replay|export. "
            + "Over TCP each host process merges its own ranks and this process merges the hosts'.")
    Path trace;

    @Option(names = "--time-encoding", description = "With --trace: how delta times are kept: stats (mean, sd, min, max "
            + "with ranks), hist (plus a dynamically balanced histogram per call) or path (one histogram per previous call "
            + "site). Default: ${DEFAULT-VALUE}.", defaultValue = "hist")
    String timeEncoding = "hist";

    @Option(names = "--trace-bins", paramLabel = "K", description = "With --trace: histogram bins. Default: ${DEFAULT-VALUE}.",
            defaultValue = "" + DeltaHistogram.DEFAULT_BINS)
    int bins = DeltaHistogram.DEFAULT_BINS;

    @Option(names = "--trace-window", paramLabel = "N", description = "With --trace: the longest repetition, in trace "
            + "elements (a loop counts as one), the compressor looks for; a program whose time step holds more "
            + "elements than this does not fold into one loop. 1..4096. Default: ${DEFAULT-VALUE}.",
            defaultValue = "" + TraceConfig.DEFAULT_WINDOW)
    int window = TraceConfig.DEFAULT_WINDOW;

    boolean enabled() {
        return trace != null;
    }

    /** Refuses a trace flag given without {@code --trace FILE}. */
    void check() {
        if (trace == null && othersSet()) {
            throw needsTrace();
        }
    }

    private static UsageError needsTrace() {
        return new UsageError("--time-encoding, --trace-bins and --trace-window need --trace FILE");
    }

    /** The recording configuration, or a usage error naming the flag. */
    TraceConfig toConfig(RunConfig run) {
        if (trace == null) {
            throw needsTrace();
        }
        OutputFiles.checkWritable(trace, "--trace");
        TimeEncoding encoding;
        try {
            encoding = TimeEncoding.parse(timeEncoding);
        } catch (IllegalArgumentException e) {
            throw new UsageError("--time-encoding: " + e.getMessage());
        }
        if (window < 1 || window > MAX_WINDOW) {
            throw new UsageError("--trace-window must be 1.." + MAX_WINDOW + " elements, got " + window);
        }
        try {
            return new TraceConfig(encoding, bins, DeltaHistogram.DEFAULT_SMOOTH_INTERVAL, window,
                    TraceConfig.DEFAULT_MAX_NODES);
        } catch (IllegalArgumentException e) {
            throw new UsageError("--trace-bins: " + e.getMessage());
        }
    }

    /** The widest window accepted: the compressor's work per call that does not fold grows with it. */
    static final int MAX_WINDOW = 4096;

    /** Whether any trace flag other than --trace was changed from its default (they need --trace). */
    private boolean othersSet() {
        return !timeEncoding.equals("hist") || bins != DeltaHistogram.DEFAULT_BINS || window != TraceConfig.DEFAULT_WINDOW;
    }
}
