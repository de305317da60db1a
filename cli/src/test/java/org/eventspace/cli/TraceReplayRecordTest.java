package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import org.eventspace.trace.Trace;
import org.eventspace.trace.TraceFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code trace replay --record OUT}: the replay records its own calls as {@code run --trace} recorded the original's, so a
 * traced run and its replay are compared under the same instrumentation. The replay's trace must then be the
 * original's call for call (ScalaTrace checked its replays the same way, with mpiP's call statistics of both, Ratn
 * et al. §5): real host processes over loopback TCP and ranks in one JVM, every wait bounded by {@code --timeout}.
 */
class TraceReplayRecordTest {
    @TempDir
    Path dir;

    private final CliHarness cli = new CliHarness();
    private final ObjectMapper json = new ObjectMapper();

    @Test
    void aRecordedReplayOverTcpReissuesTheOriginalsCallsOneForOne() throws Exception {
        Path original = dir.resolve("gsum.trace.cbor");
        assertThat(cli.execute("run", "gsum", "--ranks", "4", "--hosts", "2", "--transport", "tcp", "--collectors", "off",
                "--iterations", "300", "--warmup", "20", "--warmup-s", "0", "--timeout", "30",
                "--trace", original.toString())).as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        Path replayed = dir.resolve("replay.trace.cbor");
        Path report = dir.resolve("replay.json");
        assertThat(cli.execute("trace", "replay", original.toString(), "--timeout", "30", "--record", replayed.toString(),
                "--json", report.toString())).as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        assertThat(cli.out()).contains("over tcp").contains("recorded: " + replayed);
        assertSameCalls(TraceFile.read(original), TraceFile.read(replayed));
        JsonNode r = json.readTree(report.toFile());
        assertThat(r.path("recorded").asText()).isEqualTo(replayed.toString());
        assertThat(r.path("recorded_bytes").asLong()).isEqualTo(Files.size(replayed));
        // The replay's trace keeps the conditions it ran under: replaying it again runs the same way.
        assertThat(TraceFile.readRecorded(replayed).conditions().transport()).isEqualTo("tcp");
    }

    @Test
    void aRecordedReplayOfPointToPointCallsInOneJvmKeepsPeersAndSites() throws Exception {
        Path original = dir.resolve("sor.trace.json");
        assertThat(cli.execute("run", "sor", "--ranks", "4", "--iterations", "40", "--warmup", "5", "--warmup-s", "0",
                "--trace", original.toString())).as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        Path replayed = dir.resolve("replay.trace.json");
        assertThat(cli.execute("trace", "replay", original.toString(), "--record", replayed.toString()))
                .as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        assertSameCalls(TraceFile.read(original), TraceFile.read(replayed));
    }

    @Test
    void anUnwritableRecordFileIsRefusedBeforeAnythingRuns() throws Exception {
        Path original = dir.resolve("g.trace.json");
        assertThat(cli.execute("run", "gsum", "--ranks", "2", "--iterations", "50", "--warmup", "5", "--warmup-s", "0",
                "--trace", original.toString())).as(cli.err()).isEqualTo(EventSpaceCommand.EXIT_OK);
        Path nowhere = dir.resolve("no-such-folder").resolve("r.json");
        assertThat(cli.execute("trace", "replay", original.toString(), "--record", nowhere.toString()))
                .isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(cli.err()).contains("--record").contains(nowhere.toString());
        assertThat(cli.out()).doesNotContain("replay of");
    }

    /** Every rank's calls, expanded, equal (op, site, operator, peer, words, root), and the timed phase starts at the same call. */
    private static void assertSameCalls(Trace original, Trace replay) {
        assertThat(replay.ranks()).isEqualTo(original.ranks());
        assertThat(replay.eventsRecorded()).isEqualTo(original.eventsRecorded());
        assertThat(replay.encoding()).isEqualTo(original.encoding());
        for (int rank = 0; rank < original.ranks(); rank++) {
            assertThat(replay.expand(rank)).as("rank %d's calls", rank).isEqualTo(original.expand(rank));
            assertThat(replay.timedFrom(rank)).as("rank %d's timed phase", rank).isEqualTo(original.timedFrom(rank))
                    .isPositive();
        }
        assertThat(replay.timedNanos()).isPositive();
    }
}
