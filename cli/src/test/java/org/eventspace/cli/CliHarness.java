package org.eventspace.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

import picocli.CommandLine;

/** Runs the eventspace command in this JVM and keeps what it wrote to stderr. */
final class CliHarness {
    private final StringWriter err = new StringWriter();

    int execute(String... args) {
        CommandLine cli = EventSpaceCommand.commandLine();
        cli.setErr(new PrintWriter(err, true));
        cli.setOut(new PrintWriter(new StringWriter(), true));
        return cli.execute(args);
    }

    String err() {
        return err.toString();
    }
}
