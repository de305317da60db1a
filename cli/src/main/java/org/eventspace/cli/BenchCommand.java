package org.eventspace.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code eventspace bench collector|overhead|offload|dashboard-load|verdict|fuzz}: what the event collectors cost (one
 * write against the clock reads it pays for, EventSpace paper §6.1; whole runs with collectors off and on), ToM's
 * offload benchmark through an event scope (ToM §5.2), what clients polling the dashboard cost a monitored job
 * ({@code bench dashboard-load}), the verdict's false-alarm rate and power ({@code bench verdict}), and the fuzz suite
 * of the project's input formats ({@link FuzzCommand}).
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "What the event collectors cost: one collector write (JMH), or whole runs with collectors off and on; "
                + "ToM's offload benchmark through an event scope; the fuzz suite of the input formats.",
        subcommands = {BenchCollectorCommand.class, BenchOverheadCommand.class, BenchOffloadCommand.class,
                BenchReplayCommand.class, BenchDashboardLoadCommand.class, BenchWanAccuracyCommand.class,
                BenchWanCompressionCommand.class, BenchVerdictCommand.class,
                FuzzCommand.class})
final class BenchCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

}
