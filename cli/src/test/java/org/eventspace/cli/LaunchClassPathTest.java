package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user's program outside eventspace's class path: {@code launch --class-path} starts it (its classes first, ours
 * behind them), and {@code java-opts} gives the arguments a process started by somebody else needs. Both start real
 * processes and check what they printed.
 */
@Timeout(120)
class LaunchClassPathTest {
    /** A main class of the user's: which host it is, its arguments, and that eventspace's classes are behind its own. */
    private static final String HELLO = """
            package fixture;
            public class Hello {
                public static void main(String[] args) throws Exception {
                    String host = System.getenv("ES_HOST");
                    String ours = Class.forName("org.eventspace.comm.launch.TcpHost").getSimpleName();
                    System.out.println("fixture.Hello host " + host + " of " + System.getenv("ES_HOSTS")
                            + " args " + String.join(",", args) + " sees " + ours);
                }
            }
            """;

    @TempDir
    Path dir;

    private final CliHarness cli = new CliHarness();

    /** Compiles {@link #HELLO} into {@code dir/classes}, the way a user's build would. */
    private Path compileHello() throws Exception {
        Path src = dir.resolve("src/fixture/Hello.java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, HELLO);
        Path classes = Files.createDirectories(dir.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertThat(javac).as("a JDK's compiler").isNotNull();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int rc = javac.run(null, null, errors, "-d", classes.toString(), src.toString());
        assertThat(rc).as(errors.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(classes.resolve("fixture/Hello.class")).exists();
        return classes;
    }

    private String launchCapturingStdout(String... args) {
        PrintStream stdout = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int code;
        try {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            code = cli.execute(args);
        } finally {
            System.setOut(stdout);
        }
        String out = captured.toString(StandardCharsets.UTF_8);
        assertThat(code).as(cli.err() + out).isZero();
        return out;
    }

    @Test
    void aMainClassOnTheGivenClassPathRunsInEveryProcessWithOursBehindIt() throws Exception {
        Path classes = compileHello();

        String out = launchCapturingStdout("launch", "-n", "2", "--timeout", "60", "-cp", classes.toString(), "--",
                "fixture.Hello", "a", "b");

        assertThat(out).contains("[host 0] fixture.Hello host 0 of 2 args a,b sees TcpHost")
                .contains("[host 1] fixture.Hello host 1 of 2 args a,b sees TcpHost");
    }

    @Test
    void aDirStarEntryTakesEveryJarInTheFolder() throws Exception {
        Path classes = compileHello();
        Path lib = Files.createDirectories(dir.resolve("lib"));
        try (java.util.jar.JarOutputStream jar = new java.util.jar.JarOutputStream(Files.newOutputStream(lib.resolve("hello.jar")))) {
            jar.putNextEntry(new java.util.jar.JarEntry("fixture/Hello.class"));
            jar.write(Files.readAllBytes(classes.resolve("fixture/Hello.class")));
            jar.closeEntry();
        }

        String out = launchCapturingStdout("launch", "--class-path", lib + "/*", "-n", "1", "--", "fixture.Hello");

        assertThat(out).contains("[host 0] fixture.Hello host 0 of 1 args  sees TcpHost");
    }

    @Test
    void aClassNotOnTheClassPathOrAMissingEntryIsAUsageErrorBeforeAnythingStarts() throws Exception {
        Path classes = compileHello();

        assertThat(cli.execute("launch", "-n", "2", "--", "fixture.Hello")).isEqualTo(2);
        assertThat(cli.err()).contains("MAIN 'fixture.Hello' is neither a class on the class path").contains("--class-path");
        assertThat(cli.execute("launch", "-n", "2", "-cp", classes.toString(), "--", "fixture.Goodbye")).isEqualTo(2);
        assertThat(cli.err()).contains("MAIN 'fixture.Goodbye' is not a class on --class-path " + classes);
        assertThat(cli.execute("launch", "-n", "2", "-cp", dir.resolve("nowhere").toString(), "--", "fixture.Hello")).isEqualTo(2);
        assertThat(cli.err()).contains("--class-path: " + dir.resolve("nowhere") + " does not exist");
        assertThat(cli.execute("launch", "-n", "2", "-cp", classes.toString(), "--", "/bin/true")).isEqualTo(2);
        assertThat(cli.err()).contains("is for a Java main class; MAIN '/bin/true' is a program");
    }

    @Test
    void javaOptsGivesAProcessStartedByHandWhatItNeedsToRunAJob() throws Exception {
        assertThat(cli.execute("java-opts")).as(cli.err()).isZero();
        String line = cli.out().strip();
        assertThat(line.lines()).hasSize(1);
        List<String> words = Arrays.asList(line.split(" "));
        assertThat(words.subList(0, 6)).containsExactly("--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
                "--add-opens", "java.base/java.nio=ALL-UNNAMED", "-cp", words.get(5));
        assertThat(words).hasSize(6);
        for (String entry : words.get(5).split(java.io.File.pathSeparator)) {
            assertThat(Path.of(entry)).as("class path entry").isAbsolute().exists();
        }

        // What `java $(eventspace java-opts) …` does: a gsum in a JVM of its own, off-heap buffers and all.
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(words);
        command.addAll(List.of(EventSpaceCommand.class.getName(), "run", "gsum", "--ranks", "2", "--iterations", "200",
                "--warmup", "50", "--warmup-s", "0"));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("gsum").doesNotContain("InaccessibleObjectException");
    }

    @Test
    void javaOptsNamesTheJarAndRefusesAPathTheShellWouldSplit() {
        assertThat(JavaOptsCommand.line("/opt/es/cli/target/eventspace.jar")).isEqualTo("--add-opens "
                + "java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED -cp /opt/es/cli/target/eventspace.jar");
        assertThatThrownBy(() -> JavaOptsCommand.line("/home/a user/eventspace.jar")).isInstanceOf(UsageError.class)
                .hasMessageContaining("/home/a user/eventspace.jar").hasMessageContaining("-cp '/home/a user/eventspace.jar'");
        assertThatThrownBy(() -> JavaOptsCommand.line("/tmp/es[1]/eventspace.jar")).isInstanceOf(UsageError.class);
    }
}
