package org.eventspace.cli;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.zip.GZIPOutputStream;

import org.eventspace.mpi.MpiOtf2Export;
import org.eventspace.mpi.MpiTimeline;
import org.eventspace.trace.CallTimeline;
import org.eventspace.trace.Otf2Export;
import org.eventspace.trace.Otf2Writer;
import org.eventspace.trace.PerfettoExport;
import org.eventspace.trace.Trace;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code eventspace trace export --format perfetto FILE|DIR --out OUT.json}: a timeline in the Chrome JSON trace-event
 * format, which ui.perfetto.dev and chrome://tracing open — of a compressed trace ({@link PerfettoExport}: calls at
 * their replayed times, delta times merged over the ranks) or, given the folder of an MPI run's rank files
 * ({@code mpirun --trace-dir}), the exact one ({@link MpiTimeline}: every call's own entry and exit, each rank's own
 * compute). The layouts are in docs/TRACE-FORMAT.md. An OUT ending in {@code .gz} is written gzip-compressed (both
 * viewers open it so). {@code --format otf2 --out DIR} writes the same calls as an OTF2 archive for Vampir, Scalasca
 * and {@code otf2-print} ({@link Otf2Export} of a trace file, {@link MpiOtf2Export} of a rank-file folder, written by
 * {@link Otf2Writer} through the OTF2 library).
 */
@Command(name = "export", mixinStandardHelpOptions = true,
        description = "Write a trace's timeline for Perfetto (ui.perfetto.dev) or chrome://tracing: one track per rank, "
                + "messages as arrows from send to receive, collective instances linked over the ranks. Of a trace FILE "
                + "every call at its replayed time (statistics: the mean; histograms: bin averages in proportion; the "
                + "same for every rank); of an MPI run's rank-file folder DIR (mpirun --trace-dir) every call at its "
                + "real entry and exit on rank 0's clock, each rank's own. OUT ending in .gz is gzip-compressed. "
                + "--format otf2 writes an OTF2 archive into the folder OUT (OUT/traces.otf2, for Vampir, Scalasca or "
                + "otf2-print), the calls at the same times.")
final class TraceExportCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE|DIR", description = "A compressed trace file (run or mpirun --trace FILE), "
            + "or the folder of an MPI run's rank files (mpirun --trace-dir DIR: host-<h>/rank-<R>.meta and .trace).")
    Path file;

    @Option(names = "--format", required = true, description = "The output format: perfetto (the Chrome JSON trace-event "
            + "format) or otf2 (an OTF2 archive; needs the OTF2 library: libotf2-trace-dev).")
    String format;

    @Option(names = "--out", required = true, paramLabel = "OUT", description = "The file to write (.json, or .json.gz); "
            + "with --format otf2 the folder to write the archive into (new or empty).")
    Path out;

    @Option(names = "--force", description = "With --format otf2: write into an OUT folder that is not empty, replacing "
            + "an OTF2 archive (traces.otf2, traces.def, traces/) already there.")
    boolean force;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "100000", description = "Calls per rank at most; the rest are "
            + "left out and the command says so. Default: ${DEFAULT-VALUE}.")
    long limit;

    @Override
    public Integer call() throws IOException {
        if (!format.equals("perfetto") && !format.equals("otf2")) {
            throw new UsageError("--format must be perfetto or otf2, got " + format);
        }
        if (limit < 1) {
            throw new UsageError("--limit must be >= 1, got " + limit);
        }
        if (format.equals("otf2")) {
            return exportOtf2();
        }
        if (force) {
            throw new UsageError("--force is for --format otf2 (a perfetto OUT file is replaced anyway)");
        }
        OutputFiles.checkWritable(out, "--out");
        if (Files.isDirectory(file)) {
            // a folder is read as an mpirun --trace-dir folder, which says what it expected if it is not one
            return exportRankFiles();
        }
        Trace trace = TraceFileCommands.read(file, spec.commandLine().getErr(), "export");
        if (trace == null) {
            return EventSpaceCommand.EXIT_FAILURE;
        }
        PerfettoExport.Summary[] written = new PerfettoExport.Summary[1];
        OutputFiles.write(out, "--out", file -> {
            try (OutputStream raw = new BufferedOutputStream(Files.newOutputStream(file));
                 OutputStream stream = file.getFileName().toString().endsWith(".gz") ? new GZIPOutputStream(raw) : raw) {
                written[0] = new PerfettoExport(trace, limit).write(stream);
            }
        });
        PerfettoExport.Summary summary = written[0];
        spec.commandLine().getOut().printf("%s: %d calls on %d rank tracks, %d message arrows, %d collective links%s%s; "
                        + "open it in ui.perfetto.dev%n", out, summary.events(), trace.ranks(), summary.messageFlows(),
                summary.collectiveFlows(), summary.unmatched() > 0 ? " (" + summary.unmatched()
                        + " message halves without their other end in the export, not drawn)" : "",
                summary.truncated() ? " (cut at " + limit + " calls per rank: --limit)" : "");
        spec.commandLine().getOut().flush();
        return EventSpaceCommand.EXIT_OK;
    }

    private int exportRankFiles() throws IOException {
        MpiTimeline.Summary s;
        try (OutputStream raw = new BufferedOutputStream(Files.newOutputStream(out));
             OutputStream stream = out.getFileName().toString().endsWith(".gz") ? new GZIPOutputStream(raw) : raw) {
            s = MpiTimeline.write(file, stream, limit);
        } catch (IOException e) {
            Files.deleteIfExists(out);
            spec.commandLine().getErr().println("trace export: " + e.getMessage());
            spec.commandLine().getErr().flush();
            return EventSpaceCommand.EXIT_FAILURE;
        }
        spec.commandLine().getOut().printf("%s: %d calls on %d rank tracks (exact, from the rank files), %d message arrows, "
                        + "%d collective links%s%s%s; open it in ui.perfetto.dev%n", out, s.slices(), s.ranks(),
                s.messageFlows(), s.collectiveFlows(),
                s.unmatchedSends() + s.unmatchedReceives() > 0 ? " (" + s.unmatchedSends() + " sends and "
                        + s.unmatchedReceives() + " receives without their other end, not drawn)" : "",
                s.tuplesLost() > 0 ? " (" + s.tuplesLost() + " calls the rings overwrote: a larger --capacity keeps them)" : "",
                s.truncated() ? " (cut at " + limit + " calls per rank: --limit)" : "");
        spec.commandLine().getOut().flush();
        return EventSpaceCommand.EXIT_OK;
    }

    /**
     * The OTF2 archive: OUT must be a new or empty folder (or --force, which removes only an archive's own files),
     * checked before anything is read.
     */
    private int exportOtf2() throws IOException {
        if (Files.isDirectory(out)) {
            boolean empty;
            try (var entries = Files.list(out)) {
                empty = entries.findAny().isEmpty();
            }
            if (!empty && !force) {
                throw new UsageError("--out " + out + " is a folder that is not empty; give a new or empty folder, or "
                        + "--force to write the OTF2 archive there (replacing traces.otf2, traces.def and traces/)");
            }
        }
        boolean existed = Files.isDirectory(out);
        OutputFiles.checkFolder(out, "--out");
        try {
            int exit = writeOtf2();
            if (exit != EventSpaceCommand.EXIT_OK && !existed) {
                removeIfEmpty(out);
            }
            return exit;
        } catch (IOException | RuntimeException e) {
            if (!existed) {
                removeIfEmpty(out);
            }
            throw e;
        }
    }

    /** A folder this command made for an archive it then did not write. */
    private static void removeIfEmpty(Path dir) {
        try (var entries = Files.list(dir)) {
            if (entries.findAny().isEmpty()) {
                Files.delete(dir);
            }
        } catch (IOException e) {
            // left as it is: the error the command reports is the one that matters
        }
    }

    private int writeOtf2() throws IOException {
        CallTimeline timeline;
        String left;
        if (Files.isDirectory(file)) {
            MpiOtf2Export.Result r;
            try {
                r = MpiOtf2Export.read(file, limit);
            } catch (IOException e) {
                return fail(e);
            }
            timeline = r.timeline();
            MpiOtf2Export.Summary s = r.summary();
            left = (s.tuplesLost() > 0 ? "; " + s.tuplesLost() + " calls the rings overwrote (a larger --capacity keeps "
                    + "them)" : "")
                    + (s.threadLocations() > 0 ? "; " + s.threadLocations() + " more locations for ranks' other "
                    + "threads" : "")
                    + (s.recordsWithoutComm() > 0 ? "; " + s.recordsWithoutComm() + " message or collective records "
                    + "on communicators the files do not define left out" : "")
                    + (s.irecvsNotCompleted() > 0 ? "; " + s.irecvsNotCompleted() + " MPI_Irecv requests never "
                    + "completed in the files" : "")
                    + (s.truncated() ? "; cut at " + limit + " calls per rank (--limit)" : "");
        } else {
            Trace trace = TraceFileCommands.read(file, spec.commandLine().getErr(), "export");
            if (trace == null) {
                return EventSpaceCommand.EXIT_FAILURE;
            }
            Otf2Export export = new Otf2Export(trace, limit);
            timeline = export.timeline();
            Otf2Export.Summary s = export.summary();
            left = (s.sendrecvsWithoutSource() > 0 ? "; " + s.sendrecvsWithoutSource() + " sendrecv receive halves "
                    + "whose source the trace does not name left out" : "")
                    + (s.truncated() ? "; cut at " + limit + " calls per rank (--limit)" : "");
        }
        if (force) {
            Otf2Writer.removeArchive(out);
        }
        Otf2Writer.Summary written;
        try {
            written = Otf2Writer.write(timeline, out);
        } catch (IOException e) {
            return fail(e);
        }
        CallTimeline.Counts c = written.counts();
        spec.commandLine().getOut().printf("%s: OTF2 archive, %d calls on %d rank locations, %d sends, %d receives, "
                        + "%d collectives%s; open it in Vampir or: otf2-print %s%n", written.archive(), c.enters(),
                timeline.ranks(), c.sends() + c.isends(), c.receives() + c.irecvs(), c.collectiveBegins(), left,
                written.archive());
        spec.commandLine().getOut().flush();
        return EventSpaceCommand.EXIT_OK;
    }

    private int fail(IOException e) {
        spec.commandLine().getErr().println("trace export: " + e.getMessage());
        spec.commandLine().getErr().flush();
        return EventSpaceCommand.EXIT_FAILURE;
    }
}
