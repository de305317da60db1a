package org.eventspace.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.eventspace.base.os.Executables;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The native OTF2 writer: built once per source into the cache, writes the archive's three entries, refuses a second
 * archive in the same folder, and refuses a stream it cannot write truthfully (an event before its location's previous
 * one, an unknown record, a stream cut before {@code end}), naming the line. Needs the OTF2 library (skipped without
 * it, except under CI, where .ci/run installs it).
 */
@Timeout(180)
class Otf2WriterTest {
    @TempDir
    Path dir;

    static void requireOtf2() {
        boolean present = Executables.find("otf2-config") != null && Executables.find("cc") != null;
        if (!present && "true".equals(System.getenv("CI"))) {
            throw new AssertionError("otf2-config or cc missing under CI: .ci/run should have installed libotf2-trace-dev");
        }
        assumeTrue(present, "the OTF2 library (libotf2-trace-dev) is not installed");
    }

    private static CallTimeline twoRanks() {
        CallTimeline t = new CallTimeline("job", 2);
        t.placeRank(0, "a");
        t.placeRank(1, "b");
        t.communicator(new CallTimeline.Communicator(0, "MPI_COMM_WORLD", List.of(0, 1)));
        int send = t.region("MPI_Send", CallTimeline.Role.POINT2POINT, true);
        int recv = t.region("MPI_Recv", CallTimeline.Role.POINT2POINT, true);
        t.add(0, new CallTimeline.Enter(0, send));
        t.add(0, new CallTimeline.Send(0, 1, 0, 5, 8));
        t.add(0, new CallTimeline.Leave(10, send));
        t.add(1, new CallTimeline.Enter(2, recv));
        t.add(1, new CallTimeline.Receive(12, 0, 0, 5, 8));
        t.add(1, new CallTimeline.Leave(12, recv));
        return t;
    }

    @Test
    void theArchiveIsWrittenOnceAndTheWriterBuiltOnce() throws Exception {
        requireOtf2();
        Path out = dir.resolve("a");
        Otf2Writer.Summary s = Otf2Writer.write(twoRanks(), out);
        assertThat(s.archive()).isEqualTo(out.resolve("traces.otf2")).isRegularFile();
        assertThat(out.resolve("traces.def")).isRegularFile();
        assertThat(out.resolve("traces")).isDirectory();
        assertThat(s.counts().sends()).isEqualTo(1);
        assertThat(s.counts().receives()).isEqualTo(1);
        assertThat(Otf2Writer.ensureBuilt()).isEqualTo(Otf2Writer.ensureBuilt());
        assertThatThrownBy(() -> Otf2Writer.write(twoRanks(), out)).isInstanceOf(IOException.class)
                .hasMessageContaining("already holds an OTF2 archive");
        assertThat(out.resolve("traces.otf2")).as("the first archive is left alone").isRegularFile();
    }

    @Test
    void aStreamItCannotWriteIsRefusedNamingTheLine() throws Exception {
        requireOtf2();
        Path program = Otf2Writer.ensureBuilt();
        String defs = "es-otf2 1\nclock 0 100\nnode 0 -1 machine m\nnode 1 0 node h\ngroup 0 1 rank 0\n"
                + "location 0 0 rank 0\nregion 0 function user f\nevents\n";
        assertThat(run(program, defs + "e 0 50 0\nl 0 40 0\nend\n", "o1")).contains("line 10")
                .contains("earlier than the location's previous one");
        assertThat(run(program, defs + "x 0 50 0\nend\n", "o2")).contains("line 9").contains("unknown event");
        assertThat(run(program, defs + "e 0 50 0\n", "o3")).contains("ended before \"end\"");
        assertThat(run(program, "es-otf2 2\n", "o4")).contains("line 1").contains("es-otf2 1");
    }

    /** Runs the writer on {@code stream}; expects it to fail and returns what it said. */
    private String run(Path program, String stream, String out) throws Exception {
        Path in = dir.resolve(out + ".txt");
        Path said = dir.resolve(out + ".log");
        Files.writeString(in, stream, StandardCharsets.UTF_8);
        Process p = new ProcessBuilder(program.toString(), dir.resolve(out).toString()).redirectInput(in.toFile())
                .redirectErrorStream(true).redirectOutput(said.toFile()).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(1);
        return Files.readString(said, StandardCharsets.UTF_8);
    }
}
