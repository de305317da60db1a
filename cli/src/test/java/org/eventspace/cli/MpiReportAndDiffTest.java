package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.eventspace.monitor.RunDiff;

/**
 * {@code report} and {@code diff} on two real {@code mpirun} reports of es_imbalance, balanced and with one rank
 * computing three times as long: the page has the verdict's headline, escaped; the comparison has no row a run lacks,
 * names the rank whose wait changed most, and says why there are no stages.
 */
@Timeout(240)
class MpiReportAndDiffTest {
    @TempDir
    Path dir;

    private Path mpirun(Path program, String name, String... programArgs) {
        Path json = dir.resolve(name);
        List<String> args = new java.util.ArrayList<>(List.of("mpirun", "-np", "4", "--json", json.toString(),
                "--trace-dir", dir.resolve("trace-" + name).toString(), "--mpirun-arg", "--mca", "--mpirun-arg", "btl",
                "--mpirun-arg", "self,vader", "--", program.toString(), "-i", "300", "-c", "300"));
        args.addAll(List.of(programArgs));
        CliHarness cli = new CliHarness();
        assertThat(cli.execute(args.toArray(String[]::new))).as(cli.err()).isZero();
        return json;
    }

    @Test
    void twoMpiRunsGiveAPageEachAndADiffWithNoEmptyRow() throws Exception {
        Path program = NativePrograms.compile("es_imbalance", dir);
        Path balanced = mpirun(program, "bal.json");
        Path slow = mpirun(program, "slow.json", "-s", "2", "-f", "3");
        ObjectMapper json = new ObjectMapper();

        PrintStream stdout = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
            Path page = dir.resolve("slow.html");
            CliHarness report = new CliHarness();
            assertThat(report.execute("report", slow.toString(), "-o", page.toString())).as(report.err()).isZero();
            String html = Files.readString(page);
            String headline = json.readTree(slow.toFile()).at("/verdict/headline").asText();
            assertThat(headline).isNotBlank();
            assertThat(html).contains("<p id=\"verdict-headline\">" + escape(headline) + "</p>")
                    .contains("id=\"verdict-coverage\" class=\"muted\">coverage: ")
                    // PMPI's one flat gred: a tree of 4 ranks, drawn with each rank's figures.
                    .contains("\"last_share\"").contains("\"arrival_wait_us\"");

            printed.reset();
            Path out = dir.resolve("diff.json");
            CliHarness diff = new CliHarness();
            assertThat(diff.execute("diff", balanced.toString(), slow.toString(), "--json", out.toString()))
                    .as(diff.err()).isZero();
            String text = printed.toString(StandardCharsets.UTF_8);
            JsonNode doc = ReportSchemas.assertConforms("diff.schema.json", out);
            assertThat(doc.path("schema").asText()).isEqualTo("eventspace.diff/2");
            assertThat(doc.path("rows")).isNotEmpty();
            for (JsonNode row : doc.path("rows")) {
                assertThat(row.path("a").isNumber() && row.path("b").isNumber()).as(row.toString()).isTrue();
            }
            assertThat(doc.path("rows")).anySatisfy(r -> assertThat(r.path("what").asText()).isEqualTo("rank 2 wait at collectives"));
            assertThat(doc.path("rows")).anySatisfy(r -> assertThat(r.path("what").asText()).isEqualTo("MPI_Allreduce calls"));
            int rank = doc.at("/wait_changed_most/rank").asInt(-1);
            assertThat(rank).isBetween(0, 3);
            assertThat(text.lines().skip(2).findFirst().orElseThrow())
                    .startsWith("the rank whose wait changed most: rank " + rank + ",");
            // No row with a dash on both sides (nor on one), no bar scale of 0, and no advice to turn on what ran.
            assertThat(text.lines()).noneSatisfy(l -> assertThat(l).matches("\\s+[AB]\\s.*\\s-(?!\\d).*"));
            assertThat(text).doesNotContain("a full bar is 0.00").doesNotContain("--monitor stats")
                    .contains(RunDiff.NO_MPI_STAGES).contains("culprit A ");
        } finally {
            System.setOut(stdout);
        }
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;").replace("'", "&#39;");
    }
}
