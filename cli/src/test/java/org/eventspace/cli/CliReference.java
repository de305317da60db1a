package org.eventspace.cli;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import picocli.CommandLine;
import picocli.CommandLine.Help;

/**
 * docs/CLI.md, rendered from the picocli command model: for the root command and every subcommand below it (walked
 * through the model, so a command added or split into classes of its own appears without a change here), the usage help
 * exactly as {@code --help} prints it, ANSI off, at a fixed width. Not thread-safe (it clears picocli's width system
 * property while it renders).
 */
final class CliReference {
    /** The usage width of every section: fixed, so the page does not depend on the terminal it was made in. */
    static final int WIDTH = 100;

    /** How to regenerate the page; printed in it and in the test's failure. */
    static final String REGENERATE = "./mvnw -q -pl cli -am test -Dtest=CliReferenceTest "
            + "-Dsurefire.failIfNoSpecifiedTests=false -Dcli.reference.write=true";

    /** picocli reads this before any width set in code; it must not reach the page. */
    private static final String WIDTH_PROPERTY = "picocli.usage.width";

    private CliReference() {
    }

    /** The whole page for {@code root}, which should be {@link EventSpaceCommand#commandLine()}. */
    static String render(CommandLine root) {
        String width = System.clearProperty(WIDTH_PROPERTY);
        try {
            root.setUsageHelpAutoWidth(false);
            root.setUsageHelpWidth(WIDTH);
            List<CommandLine> commands = new ArrayList<>();
            collect(root, commands, new IdentityHashMap<>());
            StringBuilder page = new StringBuilder();
            page.append("# The `").append(root.getCommandName()).append("` command\n\n")
                    .append("<!-- Generated from the picocli command model by org.eventspace.cli.CliReference; do not edit.\n")
                    .append("     Regenerate with: ").append(REGENERATE).append(" -->\n\n")
                    .append("Generated from the command model (`EventSpaceCommand.commandLine()`): every command's `--help`,\n")
                    .append("at a width of ").append(WIDTH).append(" columns. Do not edit by hand; regenerate with\n\n")
                    .append("```\n").append(REGENERATE).append("\n```\n\n")
                    .append("Exit codes: ").append(EventSpaceCommand.EXIT_OK).append(" success, ")
                    .append(EventSpaceCommand.EXIT_FAILURE).append(" failure during a run, ")
                    .append(EventSpaceCommand.EXIT_USAGE).append(" bad arguments or configuration.\n\n")
                    .append("## Commands\n\n");
            for (CommandLine c : commands) {
                page.append("  ".repeat(depth(c))).append("- [`").append(name(c)).append("`](#").append(anchor(c))
                        .append(")\n");
            }
            for (CommandLine c : commands) {
                page.append("\n## ").append(name(c)).append("\n\n```\n")
                        .append(c.getUsageMessage(Help.Ansi.OFF).stripTrailing()).append("\n```\n");
            }
            return page.toString();
        } finally {
            if (width != null) {
                System.setProperty(WIDTH_PROPERTY, width);
            }
        }
    }

    /** Depth first, in the model's order; an alias maps to the command it names, which is listed once. */
    private static void collect(CommandLine command, List<CommandLine> into, Map<CommandLine, Boolean> seen) {
        if (seen.put(command, Boolean.TRUE) != null || command.getCommandSpec().usageMessage().hidden()) {
            return;
        }
        into.add(command);
        for (CommandLine sub : command.getSubcommands().values()) {
            collect(sub, into, seen);
        }
    }

    private static String name(CommandLine c) {
        return c.getCommandSpec().qualifiedName(" ");
    }

    private static int depth(CommandLine c) {
        int d = 0;
        for (CommandLine p = c.getParent(); p != null; p = p.getParent()) {
            d++;
        }
        return d;
    }

    /** The anchor GitHub gives the heading {@code ## name}: lower case, spaces to hyphens, other punctuation dropped. */
    static String anchor(CommandLine c) {
        return name(c).toLowerCase(Locale.ROOT).replace(' ', '-').replaceAll("[^a-z0-9_-]", "");
    }
}
