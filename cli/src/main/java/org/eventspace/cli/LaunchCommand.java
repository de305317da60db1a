package org.eventspace.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import org.eventspace.comm.launch.Launcher;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code eventspace launch -n N -- <main> <args>}: starts N host processes on this machine with the job's
 * rendezvous address and secret in their environment (ES_HOST, ES_HOSTS, ES_RENDEZVOUS, ES_SECRET).
 * {@code <main>} is a Java main class on our class path (run in a new JVM) or, if it is a path to a file,
 * a program run as it is.
 */
@Command(name = "launch", mixinStandardHelpOptions = true,
        description = "Start N host processes of a job on this machine (like mpirun -np N) and wait for them.")
final class LaunchCommand implements Callable<Integer> {
    @Option(names = {"-n", "--hosts"}, required = true, description = "Host processes to start.")
    int n;

    @Option(names = "--timeout", defaultValue = "3600", description = "Seconds before the job is stopped. Default: ${DEFAULT-VALUE}.")
    long timeoutSeconds;

    @Parameters(index = "0", paramLabel = "MAIN", description = "Java main class on the class path, or a program's path.")
    String main;

    @Parameters(index = "1..*", paramLabel = "ARGS", description = "Arguments for MAIN.")
    List<String> args = new ArrayList<>();

    @Override
    public Integer call() {
        if (n < 1) {
            throw new UsageError("-n must be >= 1, got " + n);
        }
        if (timeoutSeconds < 1) {
            throw new UsageError("--timeout must be >= 1 second, got " + timeoutSeconds);
        }
        List<String> command;
        if (main.contains("/")) {
            command = new ArrayList<>(List.of(main));
            command.addAll(args);
        } else {
            try {
                Class.forName(main, false, LaunchCommand.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new UsageError("MAIN '" + main + "' is neither a class on the class path nor a path to a program");
            }
            command = Launcher.javaCommand(main, args);
        }
        Launcher.Result result = Launcher.launch(n, command, Map.of(), Duration.ofSeconds(timeoutSeconds));
        if (!result.succeeded()) {
            System.err.println("eventspace: launch failed: " + result.failure());
            for (Launcher.HostResult host : result.hosts()) {
                if (host.exitCode() != 0) {
                    System.err.println("  host " + host.host() + " exit code " + host.exitCode());
                }
            }
            return EventSpaceCommand.EXIT_FAILURE;
        }
        return EventSpaceCommand.EXIT_OK;
    }
}
