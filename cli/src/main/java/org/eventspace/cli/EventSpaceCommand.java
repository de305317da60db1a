package org.eventspace.cli;

import java.io.PrintWriter;

import org.eventspace.base.os.SettingException;
import org.eventspace.job.JobFootprint;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code eventspace} command. Exit codes: 0 success, 1 failure during a run, 2 bad arguments or
 * configuration (the message names the flag, or the file and line).
 */
@Command(name = "eventspace", mixinStandardHelpOptions = true, version = "eventspace 0.1.0",
        description = "Runtime monitoring and tracing of collective communication.",
        footer = {"", "Environment (docs/RUNNING.md):",
                "  ES_JAVA_OPTS        the command's JVM options; -Xmx, -Xss and",
                "                      -XX:MaxDirectMemorySize reach host processes too",
                "  ES_HOST_JAVA_OPTS   options only of the processes the launcher starts",
                "  ES_PROGRESS_S       seconds between progress lines of a long run (5)",
                "  ES_MAX_INPUT_BYTES  the largest input file read (512m)",
                "  ES_DEBUG            if set, a failed run prints its stack trace",
                "A value that cannot be used exits 2, naming the variable."},
        subcommands = {DemoCommand.class, RunCommand.class, SimulateCommand.class, DescribeCommand.class, LaunchCommand.class,
                RendezvousCommand.class, JavaOptsCommand.class, CompareCommand.class, DiffCommand.class, ReportCommand.class,
                TraceCommand.class, TrafficCommand.class, BenchCommand.class, MpirunCommand.class})
public final class EventSpaceCommand implements Runnable {
    public static final int EXIT_OK = 0;
    public static final int EXIT_FAILURE = 1;
    public static final int EXIT_USAGE = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new EventSpaceCommand());
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            PrintWriter err = commandLine.getErr();
            // A job refused by the job layer's own check (this JVM or machine cannot hold it), or one of our environment
            // variables set to a value that cannot be used, is a configuration error too, found before anything started.
            if (e instanceof UsageError || e instanceof JobFootprint.TooLargeException || e instanceof SettingException) {
                err.println("eventspace: " + e.getMessage());
                return EXIT_USAGE;
            }
            err.println("eventspace: run failed: " + e.getMessage());
            if (System.getenv("ES_DEBUG") != null) {
                e.printStackTrace(err);
            }
            return EXIT_FAILURE;
        });
        cli.setParameterExceptionHandler((e, args) -> {
            PrintWriter err = e.getCommandLine().getErr();
            err.println("eventspace: " + e.getMessage());
            e.getCommandLine().usage(err);
            return EXIT_USAGE;
        });
        return cli;
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }
}
