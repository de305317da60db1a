package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.ObjectMapper;

class DiffCommandTest {
    @TempDir
    Path dir;

    @Test
    void twoRealRunsAreComparedAndABadFileIsNamed() throws Exception {
        Path a = dir.resolve("a.json");
        Path b = dir.resolve("b.json");
        CliHarness cli = new CliHarness();
        assertThat(cli.execute("run", "gsum", "--ranks", "4", "--hosts", "2", "--iterations", "500", "--warmup-s", "0",
                "--json", a.toString())).isZero();
        assertThat(cli.execute("run", "gsum", "--ranks", "4", "--hosts", "2", "--tree", "flat", "--iterations", "500",
                "--warmup-s", "0", "--json", b.toString())).isZero();
        Path out = dir.resolve("diff.json");
        assertThat(cli.execute("diff", a.toString(), b.toString(), "--json", out.toString())).isZero();
        assertThat(new ObjectMapper().readTree(out.toFile()).path("rows").get(0).path("what").asText()).isEqualTo("allreduce mean");

        Files.writeString(dir.resolve("bad.json"), "{\"schema\": 1,");
        assertThat(cli.execute("diff", a.toString(), dir.resolve("bad.json").toString())).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(cli.execute("diff", a.toString(), dir.resolve("none.json").toString())).isEqualTo(EventSpaceCommand.EXIT_USAGE);
    }
}
