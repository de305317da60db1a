package org.eventspace.cli;

import java.io.File;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

import org.eventspace.comm.launch.CpuBinding;
import org.eventspace.comm.launch.Launcher;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code eventspace launch [-cp PATH] -n N -- <main> <args>}: starts N host processes on this machine with the job's
 * rendezvous address and secret in their environment (ES_HOST, ES_HOSTS, ES_RENDEZVOUS, ES_SECRET).
 * {@code <main>} is a Java main class, found on {@code --class-path} or on our own class path (run in a new JVM whose
 * class path is the user's first, then ours, so the program finds {@code TcpHost} and the rest of eventspace), or, if
 * it is a path to a file, a program run as it is.
 */
@Command(name = "launch", mixinStandardHelpOptions = true,
        description = "Start N host processes of a job on this machine (like mpirun -np N) and wait for them.")
final class LaunchCommand implements Callable<Integer> {
    @Option(names = {"-n", "--hosts"}, required = true, description = "Host processes to start.")
    int n;

    @Option(names = "--timeout", defaultValue = "3600", description = "Seconds before the job is stopped. Default: ${DEFAULT-VALUE}.")
    long timeoutSeconds;

    @Option(names = "--bind-to", paramLabel = "none|core", defaultValue = "none", description = "none (processes run anywhere) or core (host h on CPU "
            + "h mod cpus, like mpirun --bind-to core; needs taskset). Default: ${DEFAULT-VALUE}.")
    String bind;

    @Option(names = {"-cp", "--class-path"}, paramLabel = "PATH", description = "Where MAIN's classes are: folders and jars "
            + "separated by ':' (';' on Windows; a 'dir/*' entry: every jar in dir), put before eventspace's own "
            + "class path in every process. Only for a Java main class.")
    String classPath;

    @picocli.CommandLine.Mixin
    ServeOptions serve = new ServeOptions();

    @Parameters(index = "0", paramLabel = "MAIN", description = "Java main class (on --class-path or ours), or a program's path.")
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
        CpuBinding binding = RunOptions.binding(bind);
        serve.check();
        serve.lingerServedHere("with launch");
        List<String> command;
        if (main.contains("/")) {
            if (classPath != null) {
                throw new UsageError("--class-path " + classPath + " is for a Java main class; MAIN '" + main
                        + "' is a program, run as it is");
            }
            command = new ArrayList<>(List.of(main));
            command.addAll(args);
        } else {
            List<Path> userPath = classPath == null ? List.of() : userClassPath(classPath);
            if (!found(main, userPath)) {
                throw new UsageError(classPath == null
                        ? "MAIN '" + main + "' is neither a class on the class path nor a path to a program"
                                + " (give its classes with --class-path)"
                        : "MAIN '" + main + "' is not a class on --class-path " + classPath + " (" + userPath.size()
                                + " existing entries) nor on eventspace's class path");
            }
            command = Launcher.javaCommand(main, args);
            if (!userPath.isEmpty()) {
                int cp = command.indexOf("-cp");
                StringBuilder joined = new StringBuilder();
                for (Path entry : userPath) {
                    joined.append(entry).append(File.pathSeparator);
                }
                command.set(cp + 1, joined + command.get(cp + 1));
            }
        }
        // With --serve, host 0's process serves the dashboard when it joins the job (MonitoredJob.join): the program
        // does nothing for it, and a program that never joins one is not served.
        String name = main.substring(main.lastIndexOf(main.contains("/") ? '/' : '.') + 1);
        Map<String, String> env = serve.hostEnvironment(name, name + ", " + n + " host processes", -1);
        Launcher.Result result = Launcher.launch(n, command, env, Duration.ofSeconds(timeoutSeconds), null, binding);
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

    /**
     * The entries of a class path as absolute paths (the processes may not share our working directory), a
     * {@code dir/*} entry expanded to the jars in {@code dir} as {@code java} does; an entry that does not exist is an
     * error, since {@code java} would skip it silently and the class would go missing in every process.
     */
    static List<Path> userClassPath(String classPath) {
        List<Path> entries = new ArrayList<>();
        for (String text : classPath.split(java.util.regex.Pattern.quote(File.pathSeparator))) {
            if (text.isEmpty()) {
                continue;
            }
            if (text.equals("*") || text.endsWith(File.separator + "*")) {
                Path dir = Path.of(text.substring(0, text.length() - 1).isEmpty() ? "." : text.substring(0, text.length() - 1))
                        .toAbsolutePath().normalize();
                if (!Files.isDirectory(dir)) {
                    throw new UsageError("--class-path: " + text + ": folder " + dir + " does not exist");
                }
                try (Stream<Path> jars = Files.list(dir)) {
                    jars.filter(p -> p.getFileName().toString().toLowerCase(java.util.Locale.ROOT).endsWith(".jar"))
                            .sorted().forEach(entries::add);
                } catch (IOException e) {
                    throw new UsageError("--class-path: " + text + ": cannot list " + dir + ": " + e.getMessage());
                }
                continue;
            }
            Path entry = Path.of(text).toAbsolutePath().normalize();
            if (!Files.exists(entry)) {
                throw new UsageError("--class-path: " + text + " does not exist (as " + entry + ")");
            }
            entries.add(entry);
        }
        if (entries.isEmpty()) {
            throw new UsageError("--class-path '" + classPath + "' names no folder or jar");
        }
        return entries;
    }

    /** Whether {@code main} loads from {@code userPath} or, behind it, from our own class path (no class initialised). */
    private static boolean found(String main, List<Path> userPath) {
        URL[] urls = new URL[userPath.size()];
        for (int i = 0; i < urls.length; i++) {
            try {
                urls[i] = userPath.get(i).toUri().toURL();
            } catch (MalformedURLException e) {
                throw new UsageError("--class-path: " + userPath.get(i) + ": " + e.getMessage());
            }
        }
        try (URLClassLoader loader = new URLClassLoader(urls, LaunchCommand.class.getClassLoader())) {
            Class.forName(main, false, loader);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        } catch (LinkageError e) {
            throw new UsageError("MAIN '" + main + "' is there but does not load: " + e);
        } catch (IOException e) {
            throw new UsageError("--class-path: " + e.getMessage());
        }
    }
}
