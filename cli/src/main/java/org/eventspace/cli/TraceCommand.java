package org.eventspace.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import org.eventspace.base.io.InputLimitException;
import org.eventspace.events.dump.TraceDump;
import org.eventspace.events.dump.TraceDumpPrinter;
import org.eventspace.events.dump.WrapperLatencies;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code eventspace trace}: post-mortem views of the event collectors' traces (dissertation §7.1). */
@Command(name = "trace", mixinStandardHelpOptions = true, subcommands = {TraceCommand.Dump.class,
        TraceFileCommands.Show.class, TraceFileCommands.Stats.class, TraceFileCommands.Search.class,
        TraceReplayCommand.class, TraceExportCommand.class},
        description = "Read the traces the event collectors of a run left behind (dump), or a compressed trace of the "
                + "ranks' calls written by run --trace (show, stats, search, replay).")
final class TraceCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /**
     * {@code eventspace trace dump DIR}: the tuples of a {@code --trace-dump DIR} as text or JSON lines, or with
     * {@code --latencies} the dissertation §7.1 latencies per wrapper. Exit 2 if DIR is no dump; exit 1 if its
     * pathmap.json is corrupt (the file, field and value on stderr), if some trace file could not be read or if
     * a collector the pathmap lists has no trace file (everything readable is printed, the unreadable files and
     * the missing collectors with their hosts are named on stderr).
     */
    @Command(name = "dump", mixinStandardHelpOptions = true,
            description = "Print the tuples of a trace dump (text or JSON lines), or the latencies per wrapper computed "
                    + "from it (--latencies).")
    static final class Dump implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", paramLabel = "DIR", description = "The dump directory (pathmap.json, host-<id>/*.trace).")
        Path directory;

        @Option(names = "--format", defaultValue = "text",
                description = "text, or jsonl (one eventspace.trace-tuple/1 object per line; with --latencies one "
                        + "eventspace.latencies/1 object). Default: ${DEFAULT-VALUE}.")
        String format;

        @Option(names = "--latencies",
                description = "Print the latencies per wrapper (gred down/up latency, waits, arrival/departure orders; "
                        + "two-way hop latency; store latency) instead of the tuples.")
        boolean latencies;

        @Override
        public Integer call() {
            if (!format.equals("text") && !format.equals("jsonl")) {
                throw new UsageError("--format must be text or jsonl, got " + format);
            }
            TraceDump dump;
            try {
                dump = TraceDump.open(directory);
            } catch (TraceDump.NotADumpException e) {
                throw new UsageError("trace dump: " + e.getMessage() + MpirunCommand.recoverHint(directory), e);
            } catch (InputLimitException e) {
                throw new UsageError("trace dump: " + e.getMessage(), e);
            } catch (IOException e) {
                PrintWriter err = spec.commandLine().getErr();
                err.println("eventspace: trace dump: " + e.getMessage());
                err.flush();
                return EventSpaceCommand.EXIT_FAILURE;
            }
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            if (latencies) {
                WrapperLatencies report = WrapperLatencies.of(dump);
                if (format.equals("text")) {
                    report.printText(out);
                } else {
                    out.print(report.toJson(false));
                }
            } else if (format.equals("text")) {
                TraceDumpPrinter.printText(dump, out);
            } else {
                TraceDumpPrinter.printJsonLines(dump, out);
            }
            out.flush();
            for (String error : dump.errors()) {
                err.println("eventspace: trace dump: " + error);
            }
            err.flush();
            return dump.errors().isEmpty() ? EventSpaceCommand.EXIT_OK : EventSpaceCommand.EXIT_FAILURE;
        }
    }
}
