package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

/**
 * Every {@code eventspace …} command written in README.md, docs/*.md and the comments of main sources parses with the
 * real command model (parsed only, never run). A command with elided parts ({@code …}) or a mention inside prose may
 * lack a required parameter; an unknown option, a bad value or a surplus argument fails it.
 */
class DocumentedCommandsTest {
    private static final Path ROOT = Repository.root();

    @Test
    void everyDocumentedCommandParses() {
        List<String> failures = new ArrayList<>();
        Map<String, Integer> perFile = new TreeMap<>();
        int checked = 0;
        for (Path file : DocumentedCommands.sources(ROOT)) {
            String name = ROOT.relativize(file).toString();
            for (DocumentedCommands.Command c : DocumentedCommands.in(file)) {
                checked++;
                perFile.merge(name, 1, Integer::sum);
                String error = parse(c);
                if (error != null) {
                    failures.add(name + ":" + c.where().line() + ": eventspace " + String.join(" ", c.args())
                            + "\n    written: " + c.where().text().strip() + "\n    picocli: " + error);
                }
            }
        }
        System.out.printf("DocumentedCommandsTest: %d commands checked: %s%n", checked, perFile);
        assertThat(failures).as("documented commands that do not parse (%d of %d)", failures.size(), checked).isEmpty();
        // Hundreds are written; far fewer means the extraction broke, not that the docs shrank.
        assertThat(checked).isGreaterThan(200);
        for (String doc : List.of("README.md", "docs/BENCHMARKS.md", "docs/RELIABILITY.md",
                "examples/src/main/java/org/eventspace/examples/JobExample.java")) {
            assertThat(perFile.getOrDefault(doc, 0)).as(doc).isGreaterThan(1);
        }
    }

    @Test
    void commandsAreCutAndTokenisedAsAShellWould() {
        assertThat(args("ES_JAVA_OPTS=-Xmx8g ./eventspace run gsum --ranks 4 | tee out.txt")).isEqualTo(
                List.of("run", "gsum", "--ranks", "4"));
        assertThat(args("$ eventspace run 'gsum' --json \"a b.json\" 2> err.txt && echo ok")).isEqualTo(
                List.of("run", "gsum", "--json", "a b.json"));
        assertThat(args("java $(./eventspace java-opts) Main > log; echo")).isEqualTo(List.of("java-opts"));
        assertThat(args("./eventspace demo & sleep 1 # serve")).isEqualTo(List.of("demo"));
        assertThat(args("./eventspace trace export --format perfetto FILE --out OUT.json [--limit N]")).isEqualTo(
                List.of("trace", "export", "--format", "perfetto", "FILE", "--out", "OUT.json", "--limit", "2"));
        assertThat(args("./eventspace launch -n N -- <main> <args>")).isEqualTo(
                List.of("launch", "-n", "2", "--", "main", "args"));
        assertThat(args("the eventspace run is not a command, nor is org.eventspace or cli/target/eventspace.jar"))
                .isNull();
        DocumentedCommands.Found inline = new DocumentedCommands.Found(Path.of("x.md"), 1, "./eventspace run … --serve", true);
        assertThat(DocumentedCommands.commands(inline)).singleElement()
                .satisfies(c -> assertThat(c.elided()).isTrue())
                .satisfies(c -> assertThat(c.args()).containsExactly("run", "--serve"));
    }

    @Test
    void codeBlocksJoinContinuationsAndExpandTheirVariables() {
        String md = "Text `./eventspace run gsum\n--ranks 2` here.\n\n```bash\nC=\"--pairs 5 --warmup 1\"\n"
                + "./eventspace bench replay \\\n  --ranks 2 $C   # the rest\n```\n";
        List<DocumentedCommands.Command> found = new ArrayList<>();
        for (DocumentedCommands.Found f : DocumentedCommands.markdown(Path.of("x.md"), md)) {
            found.addAll(DocumentedCommands.commands(f));
        }
        assertThat(found).extracting(c -> c.where().line() + " " + c.args()).containsExactlyInAnyOrder(
                "1 [run, gsum, --ranks, 2]", "6 [bench, replay, --ranks, 2, --pairs, 5, --warmup, 1]");
    }

    @Test
    void aStaleFlagIsCaught() {
        DocumentedCommands.Found f = new DocumentedCommands.Found(Path.of("x.md"), 1,
                "mpirun -np 3 $(./eventspace java-opts --mpirun) Main", false);
        assertThat(parse(DocumentedCommands.commands(f).get(0))).contains("Unknown option: '--mpirun'");
    }

    /** picocli's error for this command, or null if it parses. */
    private static String parse(DocumentedCommands.Command c) {
        CommandLine cli = EventSpaceCommand.commandLine();
        try {
            cli.parseArgs(c.args().toArray(String[]::new));
            return null;
        } catch (CommandLine.MissingParameterException e) {
            return c.elided() || c.where().inline() ? null : e.getMessage();
        } catch (CommandLine.ParameterException e) {
            return e.getMessage();
        }
    }

    /** The one command in {@code line}, written in a code block; null if there is none. */
    private static List<String> args(String line) {
        List<DocumentedCommands.Command> found = DocumentedCommands.commands(
                new DocumentedCommands.Found(Path.of("x.md"), 1, line, false));
        assertThat(found.size()).isLessThanOrEqualTo(1);
        return found.isEmpty() ? null : found.get(0).args();
    }
}
