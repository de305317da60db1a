package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code report}: a finished run (and a second to compare) as one self-contained page; bad input is a usage error. */
@Timeout(120)
class ReportCommandTest {
    @TempDir
    Path dir;

    @Test
    void aRunBecomesOneSelfContainedPageAndTwoRunsAreCompared() throws Exception {
        Path run = dir.resolve("a.json");
        PrintStream stdout = System.out;
        try {
            System.setOut(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
            assertThat(new CliHarness().execute("run", "gsum", "--ranks", "4", "--hosts", "2", "--tree", "hier:2",
                    "--iterations", "2000", "--warmup", "100", "--warmup-s", "0", "--monitor", "loadbalance,stats",
                    "--slow-rank", "3:200", "--json", run.toString())).isZero();
            Path one = dir.resolve("one.html");
            assertThat(new CliHarness().execute("report", run.toString(), "-o", one.toString())).isZero();
            String page = Files.readString(one);
            assertThat(page).contains("window.ES_STATIC = {").contains("\"slowest_rank\"").contains("<style>")
                    .contains("<p id=\"verdict-headline\">").contains("coverage: ")
                    .doesNotContain("src=\"/assets/", "href=\"/assets/", "https://");
            // Nothing fetched from anywhere: the only address in it is the SVG namespace's name.
            assertThat(page.replace("http://www.w3.org/2000/svg", "")).doesNotContain("http://");
            Path two = dir.resolve("two.html");
            assertThat(new CliHarness().execute("report", run.toString(), run.toString(), "-o", two.toString())).isZero();
            assertThat(Files.readString(two)).contains("\"diff\":{\"a\":\"a.json\",\"b\":\"a.json\"")
                    .contains("\"section\":\"per rank\"").contains("\"section\":\"stages of ");
        } finally {
            System.setOut(stdout);
        }
    }

    @Test
    void aMissingOrForeignFileIsAUsageError() throws Exception {
        CliHarness cli = new CliHarness();
        assertThat(cli.execute("report", dir.resolve("none.json").toString(), "-o", dir.resolve("r.html").toString()))
                .isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(cli.err()).contains("no such file");
        Path foreign = Files.writeString(dir.resolve("f.json"), "{\"schema\": \"something/1\"}");
        CliHarness again = new CliHarness();
        assertThat(again.execute("report", foreign.toString(), "-o", dir.resolve("r.html").toString()))
                .isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(again.err()).contains("f.json: field 'schema' is 'something/1', expected 'eventspace.run/2'");
        Path old = Files.writeString(dir.resolve("old.json"), "{\"schema\": \"eventspace.run/1\", \"ranks\": 4}");
        CliHarness third = new CliHarness();
        assertThat(third.execute("report", old.toString(), "-o", dir.resolve("r.html").toString()))
                .isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(third.err()).contains("old.json: field 'schema' is 'eventspace.run/1', expected 'eventspace.run/2'");
    }

    /** A small file claiming a huge job would make a page of tens of MB: refused before any page is made. */
    @Test
    void aReportClaimingMoreRanksThanItsBytesCanHoldIsAUsageError() throws Exception {
        Path claim = Files.writeString(dir.resolve("claim.json"), "{\"schema\": \"eventspace.run/2\", \"kind\": \"mpi\", "
                + "\"ranks\": 100000, \"hosts\": 1, \"per_rank\": []}");
        Path page = dir.resolve("r.html");
        CliHarness cli = new CliHarness();
        assertThat(cli.execute("report", claim.toString(), "-o", page.toString())).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(cli.err()).contains("claim.json: /ranks: claims 100,000 ranks in ").contains("not a run's report");
        assertThat(page).doesNotExist();
    }
}
