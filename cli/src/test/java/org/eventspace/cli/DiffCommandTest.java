package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

/** {@code diff} of two of our workloads' reports: stage by stage with the statistics monitor; bad files are named. */
@Timeout(120)
class DiffCommandTest {
    @TempDir
    Path dir;

    @Test
    void twoRealRunsAreComparedStageByStageAndABadFileIsNamed() throws Exception {
        Path a = dir.resolve("a.json");
        Path b = dir.resolve("b.json");
        CliHarness cli = new CliHarness();
        assertThat(cli.executeCapturingStdout("run", "gsum", "--ranks", "4", "--hosts", "2", "--iterations", "500",
                "--warmup-s", "0", "--monitor", "loadbalance,stats", "--json", a.toString())).isZero();
        assertThat(cli.executeCapturingStdout("run", "gsum", "--ranks", "4", "--hosts", "2", "--iterations", "500",
                "--warmup-s", "0", "--monitor", "loadbalance,stats", "--slow-rank", "1:300", "--json", b.toString())).isZero();
        Path out = dir.resolve("diff.json");
        assertThat(cli.executeCapturingStdout("diff", a.toString(), b.toString(), "--json", out.toString())).isZero();
        JsonNode diff = ReportSchemas.assertConforms("diff.schema.json", out);
        assertThat(diff.path("schema").asText()).isEqualTo("eventspace.diff/2");
        assertThat(diff.path("rows").get(0).path("what").asText()).isEqualTo("wall time");
        for (JsonNode row : diff.path("rows")) {
            assertThat(row.path("a").isNumber() && row.path("b").isNumber()).as(row.toString()).isTrue();
        }
        assertThat(diff.path("rows")).anySatisfy(r -> assertThat(r.path("section").asText()).startsWith("stages of "));
        assertThat(diff.path("rows")).anySatisfy(r -> assertThat(r.path("section").asText()).isEqualTo("per rank"));
        int rank = diff.at("/wait_changed_most/rank").asInt(-1);
        assertThat(rank).isBetween(0, 3);
        String text = cli.stdout();
        assertThat(text.lines().skip(2).findFirst().orElseThrow())
                .startsWith("the rank whose wait changed most: rank " + rank + ",");
        assertThat(text).doesNotContain("--monitor stats").doesNotContain("a full bar is 0.00");

        Files.writeString(dir.resolve("bad.json"), "{\"schema\": 1,");
        assertThat(cli.execute("diff", a.toString(), dir.resolve("bad.json").toString())).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(cli.execute("diff", a.toString(), dir.resolve("none.json").toString())).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        Path old = Files.writeString(dir.resolve("old.json"), "{\"schema\": \"eventspace.run/1\"}");
        CliHarness refused = new CliHarness();
        assertThat(refused.execute("diff", old.toString(), a.toString())).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(refused.err()).contains("field 'schema' is 'eventspace.run/1', expected 'eventspace.run/2'");
    }
}
