package org.eventspace.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import org.eventspace.base.io.InputLimitException;
import org.eventspace.trace.DeltaHistogram;
import org.eventspace.trace.Imbalance;
import org.eventspace.trace.TimeStats;
import org.eventspace.trace.TimingTree;
import org.eventspace.trace.Trace;
import org.eventspace.trace.TraceFile;
import org.eventspace.trace.TraceFormatException;
import org.eventspace.trace.TraceSizes;
import org.eventspace.trace.TracePrinter;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code eventspace trace show|stats|search FILE}: the tools on an {@code eventspace.trace/3} file written by
 * {@code run … --trace FILE} (ScalaTrace, Ratn et al., ICS 2008). A file that is not such a trace exits 1 with the
 * file, the place and what was expected on stderr; one over the input limit ({@code ES_MAX_INPUT_BYTES}) exits 2
 * before it is read.
 */
final class TraceFileCommands {
    private TraceFileCommands() {
    }

    static Trace read(Path file, PrintWriter err, String command) {
        TraceFile.Recorded recorded = readRecorded(file, err, command);
        return recorded == null ? null : recorded.trace();
    }

    /** {@link #read}, with the conditions of the run that wrote the file (null where it has none). */
    static TraceFile.Recorded readRecorded(Path file, PrintWriter err, String command) {
        try {
            return TraceFile.readRecorded(file);
        } catch (InputLimitException e) {
            // too large to read at all: raise the limit or pick another file, a usage error (exit 2)
            throw new UsageError("trace " + command + ": " + e.getMessage());
        } catch (TraceFormatException e) {
            err.println("eventspace: trace " + command + ": " + e.getMessage());
        } catch (IOException e) {
            err.println("eventspace: trace " + command + ": cannot read " + file + ": " + e.getMessage());
        }
        err.flush();
        return null;
    }

    /** {@code trace show FILE}: the compressed structure, with times unless {@code --no-times}. */
    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "Print a compressed trace's structure: loops with iteration counts, events with ranklists, "
                    + "parameters ((value, ranklist) pairs where ranks differ) and delta times (statistics, histograms).")
    static final class Show implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", paramLabel = "FILE", description = "An eventspace.trace/3 file (run --trace FILE).")
        Path file;

        @Option(names = "--no-times", description = "The structure only.")
        boolean noTimes;

        @Override
        public Integer call() {
            Trace trace = read(file, spec.commandLine().getErr(), "show");
            if (trace == null) {
                return EventSpaceCommand.EXIT_FAILURE;
            }
            TracePrinter.print(trace, spec.commandLine().getOut(), !noTimes);
            return EventSpaceCommand.EXIT_OK;
        }
    }

    /**
     * {@code trace stats FILE}: collectives whose compute deltas show imbalance, with the extreme ranks (Figure 12); with
     * {@code --sizes}, how many bytes of the file each part takes ({@link TraceSizes}).
     */
    @Command(name = "stats", mixinStandardHelpOptions = true,
            description = "List the collectives whose compute-delta distributions show load imbalance, naming the ranks "
                    + "with the shortest and longest compute before them (the paper's Figure 12), and any call whose "
                    + "ranks' compute differs; for each, the rank group that computed longer on average, by how much "
                    + "and how many standard errors apart, or that none did beyond chance. With --sizes, how many "
                    + "bytes of the file each part takes.")
    static final class Stats implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", paramLabel = "FILE", description = "An eventspace.trace/3 file.")
        Path file;

        @Option(names = "--threshold", description = "Report a collective when (max − min) / mean of its compute deltas "
                + "exceeds this (or its ranks' compute timings differ). Default: ${DEFAULT-VALUE}.", defaultValue = "1.0")
        double threshold;

        @Option(names = "--sizes", description = "Instead: the bytes each part of the file takes (structure, ranklists, "
                + "peer, count, root and count-run parameters, timing statistics, histograms, path histograms, sites, "
                + "other), each part encoded on its own with the file's codec, beside the flat size and the ratio.")
        boolean sizes;

        @Option(names = "--json", description = "With --sizes: print an eventspace.trace-sizes/1 JSON document.")
        boolean json;

        @Override
        public Integer call() {
            if (!(threshold >= 0) || Double.isInfinite(threshold)) {
                throw new UsageError("--threshold must be a number >= 0, got " + threshold);
            }
            if (json && !sizes) {
                throw new UsageError("--json goes with --sizes");
            }
            PrintWriter out = spec.commandLine().getOut();
            if (sizes) {
                return sizes(out);
            }
            Trace trace = read(file, spec.commandLine().getErr(), "stats");
            if (trace == null) {
                return EventSpaceCommand.EXIT_FAILURE;
            }
            List<Imbalance.Finding> found = Imbalance.find(trace, threshold);
            out.printf("%d calls: collectives with compute-delta spread (max − min) / mean > %.2f, and calls whose ranks' "
                    + "compute differs%n", found.size(), threshold);
            for (Imbalance.Finding f : found) {
                TimeStats s = f.compute();
                out.printf("%s %s at %s (ranks %s): compute before it mean %.3f µs, min %.3f µs on rank %d, max %.3f µs on "
                                + "rank %d, spread %.2f%n", f.event().op().fileName(),
                        f.event().reduceOp() == null ? "" : f.event().reduceOp().name().toLowerCase(java.util.Locale.ROOT),
                        f.path(), f.event().ranks(), s.mean() / 1e3, s.min() / 1e3, s.minRank(), s.max() / 1e3,
                        s.maxRank(), f.spread());
                out.printf("    %s%n", f.verdict());
                DeltaHistogram h = f.event().computeDelta().histogram();
                if (h != null) {
                    for (int i = 0; i < h.bins(); i++) {
                        if (h.binFreq(i) > 0) {
                            out.printf("    [%.3f, %.3f] µs: %d%n", h.binMin(i) / 1e3, h.binMax(i) / 1e3, h.binFreq(i));
                        }
                    }
                }
            }
            out.flush();
            return EventSpaceCommand.EXIT_OK;
        }

        private int sizes(PrintWriter out) {
            PrintWriter err = spec.commandLine().getErr();
            TraceSizes s;
            try {
                s = TraceSizes.of(file);
            } catch (InputLimitException e) {
                throw new UsageError("trace stats: " + e.getMessage());
            } catch (TraceFormatException e) {
                err.println("eventspace: trace stats: " + e.getMessage());
                err.flush();
                return EventSpaceCommand.EXIT_FAILURE;
            } catch (IOException e) {
                err.println("eventspace: trace stats: cannot read " + file + ": " + e.getMessage());
                err.flush();
                return EventSpaceCommand.EXIT_FAILURE;
            }
            out.print(json ? s.toJson().toPrettyString() + System.lineSeparator() : s.toText());
            out.flush();
            return EventSpaceCommand.EXIT_OK;
        }
    }

    /** {@code trace search FILE --time T}: the event running at time T through the timing tree (§3.5). */
    @Command(name = "search", mixinStandardHelpOptions = true,
            description = "Find the event a rank was in at a time, through the timing tree of the compressed trace "
                    + "(no expansion): the event, the iteration of every enclosing loop and its interval.")
    static final class Search implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", paramLabel = "FILE", description = "An eventspace.trace/3 file.")
        Path file;

        @Option(names = "--time", required = true, paramLabel = "T",
                description = "Microseconds since the rank's trace started (its first compute delta began).")
        double timeMicros;

        @Option(names = "--rank", description = "Whose timeline. Default: ${DEFAULT-VALUE}.", defaultValue = "0")
        int rank;

        @Override
        public Integer call() {
            if (!(timeMicros >= 0) || Double.isInfinite(timeMicros)) {
                throw new UsageError("--time must be a number of microseconds >= 0, got " + timeMicros);
            }
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            Trace trace = read(file, err, "search");
            if (trace == null) {
                return EventSpaceCommand.EXIT_FAILURE;
            }
            if (rank < 0 || rank >= trace.ranks()) {
                throw new UsageError("--rank must be 0.." + (trace.ranks() - 1) + " for this trace, got " + rank);
            }
            TimingTree tree = TimingTree.of(trace, rank);
            TimingTree.Hit hit = tree.search(timeMicros * 1e3);
            if (hit == null) {
                err.printf("eventspace: trace search: %.3f µs is outside rank %d's trace, which lasts %.3f µs%n", timeMicros,
                        rank, tree.total() / 1e3);
                err.flush();
                return EventSpaceCommand.EXIT_FAILURE;
            }
            out.printf("rank %d at %.3f µs: %s, loop iterations %s (outermost first), from %.3f µs to %.3f µs "
                            + "(mean deltas; the trace lasts %.3f µs)%n", rank, timeMicros, hit.label(), hit.iterations(),
                    hit.start() / 1e3, hit.end() / 1e3, tree.total() / 1e3);
            out.flush();
            return EventSpaceCommand.EXIT_OK;
        }
    }
}
