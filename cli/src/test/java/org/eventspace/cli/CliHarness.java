package org.eventspace.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;

import picocli.CommandLine;

/** Runs the eventspace command in this JVM and keeps what it wrote to stderr. */
final class CliHarness {
    private final StringWriter err = new StringWriter();
    private final StringWriter out = new StringWriter();
    private String stdout = "";

    int execute(String... args) {
        CommandLine cli = EventSpaceCommand.commandLine();
        cli.setErr(new PrintWriter(err, true));
        cli.setOut(new PrintWriter(out, true));
        return cli.execute(args);
    }

    /**
     * As {@link #execute}, keeping what the command printed to {@code System.out} as well (the run summary, and the
     * lines host processes print through the launcher): {@link #stdout()}.
     */
    int executeCapturingStdout(String... args) {
        PrintStream old = System.out;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try {
            return execute(args);
        } finally {
            System.setOut(old);
            stdout = bytes.toString(StandardCharsets.UTF_8);
        }
    }

    /** What the last {@link #executeCapturingStdout} printed to {@code System.out}. */
    String stdout() {
        return stdout;
    }

    /** What commands that print through picocli's writer (describe) wrote to stdout. */
    String out() {
        return out.toString();
    }

    String err() {
        return err.toString();
    }
}
