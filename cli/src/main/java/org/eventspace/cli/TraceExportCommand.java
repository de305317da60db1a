package org.eventspace.cli;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.zip.GZIPOutputStream;

import org.eventspace.trace.PerfettoExport;
import org.eventspace.trace.Trace;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code eventspace trace export --format perfetto FILE --out OUT.json}: a compressed trace as a timeline in the Chrome
 * JSON trace-event format, which ui.perfetto.dev and chrome://tracing open ({@link PerfettoExport}; the layout is in
 * docs/TRACE-FORMAT.md). An OUT ending in {@code .gz} is written gzip-compressed (both viewers open it so).
 */
@Command(name = "export", mixinStandardHelpOptions = true,
        description = "Write a trace's timeline for Perfetto (ui.perfetto.dev) or chrome://tracing: one track per rank, every "
                + "call at its replayed time (statistics: the mean; histograms: bin averages in proportion), messages as "
                + "arrows; OUT ending in .gz is gzip-compressed.")
final class TraceExportCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "An eventspace.trace/1 file (run --trace FILE).")
    Path file;

    @Option(names = "--format", required = true, description = "The output format: perfetto (the Chrome JSON trace-event format).")
    String format;

    @Option(names = "--out", required = true, paramLabel = "OUT", description = "The file to write (.json, or .json.gz).")
    Path out;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "100000", description = "Calls per rank at most; the rest are "
            + "left out and the command says so. Default: ${DEFAULT-VALUE}.")
    long limit;

    @Override
    public Integer call() throws IOException {
        if (!format.equals("perfetto")) {
            throw new UsageError("--format must be perfetto, got " + format);
        }
        if (limit < 1) {
            throw new UsageError("--limit must be >= 1, got " + limit);
        }
        ConfigFiles.checkWritable("--out", out);
        Trace trace = TraceFileCommands.read(file, spec.commandLine().getErr(), "export");
        if (trace == null) {
            return EventSpaceCommand.EXIT_FAILURE;
        }
        PerfettoExport.Summary summary;
        try (OutputStream raw = new BufferedOutputStream(Files.newOutputStream(out));
             OutputStream stream = out.getFileName().toString().endsWith(".gz") ? new GZIPOutputStream(raw) : raw) {
            summary = new PerfettoExport(trace, limit).write(stream);
        }
        spec.commandLine().getOut().printf("%s: %d calls on %d rank tracks, %d message arrows%s; open it in ui.perfetto.dev%n",
                out, summary.events(), trace.ranks(), summary.flows() / 2,
                summary.truncated() ? " (cut at " + limit + " calls per rank: --limit)" : "");
        spec.commandLine().getOut().flush();
        return EventSpaceCommand.EXIT_OK;
    }
}
