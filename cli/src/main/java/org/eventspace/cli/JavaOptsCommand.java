package org.eventspace.cli;

import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;

import picocli.CommandLine.Command;

/**
 * {@code eventspace java-opts}: the JVM arguments a process started by someone else ({@code mpirun}, {@code srun}, a
 * script) needs to join a job: the two {@code --add-opens} Agrona's off-heap buffers need on Java 17, and the class
 * path of eventspace (its jar, absolute), on one line that survives {@code java $(eventspace java-opts) …} unchanged.
 */
@Command(name = "java-opts", mixinStandardHelpOptions = true,
        description = "Print the JVM arguments a process of a job needs (--add-opens … -cp <eventspace.jar>, absolute), "
                + "on one line, for java $(./eventspace java-opts) MAIN under mpirun or srun.")
final class JavaOptsCommand implements Callable<Integer> {
    /** Agrona's UnsafeBuffer and direct buffers reach into these packages; Java 17 closes them by default. */
    static final List<String> ADD_OPENS = List.of("--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "--add-opens", "java.base/java.nio=ALL-UNNAMED");

    /**
     * What an unquoted {@code $(…)} passes on unchanged: the shell splits the output at blanks and expands
     * {@code * ? [}, and quotes inside it are not removed, so a path with anything else cannot be made safe there.
     */
    private static final Pattern SHELL_SAFE = Pattern.compile("[A-Za-z0-9_./:=+,@%-]+");

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec command;

    @Override
    public Integer call() {
        command.commandLine().getOut().println(line(ourClassPath()));
        command.commandLine().getOut().flush();
        return EventSpaceCommand.EXIT_OK;
    }

    /** The arguments as one line; a class path the shell would change in {@code $(…)} is a usage error naming it. */
    static String line(String classPath) {
        List<String> words = new ArrayList<>(ADD_OPENS);
        words.add("-cp");
        words.add(classPath);
        for (String word : words) {
            if (!SHELL_SAFE.matcher(word).matches()) {
                throw new UsageError("the class path " + classPath + " has characters an unquoted $(…) would split or "
                        + "expand (outside A-Z a-z 0-9 _ . / : = + , @ % -); put eventspace.jar where its path has none, "
                        + "or give java these arguments yourself: " + String.join(" ", ADD_OPENS) + " -cp '" + classPath + "'");
            }
        }
        return String.join(" ", words);
    }

    /**
     * The absolute path of the jar this class was loaded from (eventspace.jar, which holds everything a job needs); when
     * it was loaded from a folder (a build's classes, tests), our whole class path, each entry absolute.
     */
    static String ourClassPath() {
        CodeSource source = JavaOptsCommand.class.getProtectionDomain().getCodeSource();
        if (source != null) {
            try {
                Path location = Path.of(source.getLocation().toURI()).toAbsolutePath().normalize();
                if (Files.isRegularFile(location)) {
                    return location.toString();
                }
            } catch (URISyntaxException | IllegalArgumentException e) {
                // Not a file location: fall back to the class path below.
            }
        }
        List<String> entries = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(Pattern.quote(File.pathSeparator))) {
            if (!entry.isEmpty()) {
                entries.add(Path.of(entry).toAbsolutePath().normalize().toString());
            }
        }
        return String.join(File.pathSeparator, entries);
    }
}
