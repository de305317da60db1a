package org.eventspace.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

import picocli.CommandLine;

/** Runs the eventspace command in this JVM and keeps what it wrote to stderr. */
final class CliHarness {
    private final StringWriter err = new StringWriter();
    private final StringWriter out = new StringWriter();

    int execute(String... args) {
        CommandLine cli = EventSpaceCommand.commandLine();
        cli.setErr(new PrintWriter(err, true));
        cli.setOut(new PrintWriter(out, true));
        return cli.execute(args);
    }

    /** What commands that print through picocli's writer (describe) wrote to stdout. */
    String out() {
        return out.toString();
    }

    String err() {
        return err.toString();
    }
}
