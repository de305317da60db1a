package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

/**
 * docs/CLI.md is what {@link CliReference} renders from the command model now. With {@code -Dcli.reference.write=true}
 * the test writes the page instead of failing on a difference.
 */
class CliReferenceTest {
    private static final Path PAGE = Repository.root().resolve("docs/CLI.md");

    @Test
    void theCommittedPageIsTheRenderedOne() throws Exception {
        String rendered = CliReference.render(EventSpaceCommand.commandLine());
        if (Boolean.getBoolean("cli.reference.write")) {
            Files.writeString(PAGE, rendered, StandardCharsets.UTF_8);
        }
        String committed = Files.exists(PAGE) ? Files.readString(PAGE, StandardCharsets.UTF_8) : "";
        assertThat(committed)
                .as("docs/CLI.md is stale (or missing): the command model changed. Regenerate it with%n  %s%n"
                        + "and commit it", CliReference.REGENERATE)
                .isEqualTo(rendered);
    }

    @Test
    void everyCommandHasASectionAndATableOfContentsEntry() {
        CommandLine root = EventSpaceCommand.commandLine();
        String page = CliReference.render(root);
        int sections = assertSections(root, page);
        // The root, its direct subcommands and at least the nested ones of bench and trace.
        assertThat(sections).isGreaterThan(root.getSubcommands().size() + 5);
        assertThat(page).doesNotContain("\u001B[");
    }

    @Test
    void theWidthIsFixedWhateverTheTerminalOrPropertySays() {
        String before = System.getProperty("picocli.usage.width");
        System.setProperty("picocli.usage.width", "60");
        try {
            String page = CliReference.render(EventSpaceCommand.commandLine());
            assertThat(page).isEqualTo(CliReference.render(EventSpaceCommand.commandLine()));
            Matcher long100 = Pattern.compile("(?m)^.{61,100}$").matcher(page);
            assertThat(long100.find()).as("lines wider than 60 columns, as at width 100").isTrue();
            assertThat(page.lines().filter(l -> !l.startsWith("./mvnw") && !l.contains(CliReference.REGENERATE))
                    .mapToInt(String::length).max().orElse(0)).isLessThanOrEqualTo(CliReference.WIDTH);
            assertThat(System.getProperty("picocli.usage.width")).isEqualTo("60");
        } finally {
            if (before == null) {
                System.clearProperty("picocli.usage.width");
            } else {
                System.setProperty("picocli.usage.width", before);
            }
        }
    }

    /** Each command, walked through the model here too, has a heading and a link to it; returns how many. */
    private static int assertSections(CommandLine command, String page) {
        if (command.getCommandSpec().usageMessage().hidden()) {
            return 0;
        }
        String name = command.getCommandSpec().qualifiedName(" ");
        assertThat(page).contains("\n## " + name + "\n").contains("(#" + CliReference.anchor(command) + ")");
        int n = 1;
        for (CommandLine sub : command.getSubcommands().values().stream().distinct().toList()) {
            n += assertSections(sub, page);
        }
        return n;
    }
}
