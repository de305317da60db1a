package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code trace replay} of an unmodified MPI program's trace ({@code mpirun --trace}) on MPI itself: the replayer
 * (native/replay/es_replay.c) re-issues on every rank exactly the calls the program made, op by op, under Open MPI and
 * under MPICH, and reports its wall time; a trace with calls it cannot issue is refused before anything starts, each
 * named with its count. Timing accuracy is measured, not asserted (docs/MPI.md, "Replay on MPI").
 */
@Timeout(300)
class MpiTraceReplayTest {
    @TempDir
    Path dir;

    @Test
    void everyRankReissuesExactlyTheRecordedCallsUnderOpenMpi() throws Exception {
        Path program = NativePrograms.compile("es_phases", dir);
        recordAndReplay(program, "openmpi");
    }

    @Test
    void everyRankReissuesExactlyTheRecordedCallsUnderMpich() throws Exception {
        NativePrograms.requireMpich();
        Path program = NativePrograms.compile("es_phases", dir, NativePrograms.MPICH_CC);
        recordAndReplay(program, "mpich");
    }

    private void recordAndReplay(Path program, String mpi) throws Exception {
        int ranks = 4;
        int iterations = 30;
        Path trace = dir.resolve("phases-" + mpi + ".trace.json");
        Path report = dir.resolve("run-" + mpi + ".json");
        CliHarness record = new CliHarness();
        assertThat(record.execute("mpirun", "--mpi", mpi, "-np", String.valueOf(ranks), "--trace", trace.toString(),
                "--json", report.toString(), "--trace-dir", dir.resolve("t-" + mpi).toString(), "--", program.toString(),
                String.valueOf(iterations), "200")).as(record.err()).isZero();
        Map<String, Long> recorded = new TreeMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = new ObjectMapper().readTree(report.toFile()).at("/mpi/calls").fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            recorded.put(e.getKey().toLowerCase(Locale.ROOT), e.getValue().asLong());
        }
        assertThat(recorded).containsEntry("mpi_waitall", (long) ranks * iterations)
                .containsEntry("mpi_isend", 2L * ranks * iterations);

        Path json = dir.resolve("replay-" + mpi + ".json");
        CliHarness replay = new CliHarness();
        assertThat(replay.execute("trace", "replay", trace.toString(), "--mpi", mpi, "--json", json.toString(),
                "--timeout", "240")).as(replay.err() + replay.out()).isZero();
        assertThat(replay.out()).contains("wall time: replay").contains("original").contains("rank 3: wall");
        JsonNode r = new ObjectMapper().readTree(json.toFile());
        assertThat(r.path("transport").asText()).isEqualTo("mpi");
        assertThat(r.path("mpi").asText()).isEqualTo(mpi);
        assertThat(r.path("complete").asBoolean()).isTrue();
        assertThat(r.path("replay_wall_s").asDouble()).isPositive();
        assertThat(r.path("original_wall_s").asDouble()).isPositive();
        assertThat(r.path("per_rank")).hasSize(ranks);
        Map<String, Long> reissued = new TreeMap<>();
        for (JsonNode rank : r.path("per_rank")) {
            assertThat(rank.path("wall_s").asDouble()).isPositive();
            // every rank: the replayer's own count per op = what the trace holds for that rank
            assertThat(toMap(rank.path("calls_by_op"))).isEqualTo(toMap(rank.path("recorded_by_op")));
            Iterator<Map.Entry<String, JsonNode>> ops = rank.path("calls_by_op").fields();
            while (ops.hasNext()) {
                Map.Entry<String, JsonNode> e = ops.next();
                reissued.merge(e.getKey(), e.getValue().asLong(), Long::sum);
            }
        }
        // over all ranks: the replayer's counts = the calls the program made, as the recording run's report counted them
        assertThat(reissued).isEqualTo(recorded);
        assertThat(r.path("calls").asLong()).isEqualTo(recorded.values().stream().mapToLong(Long::longValue).sum());
    }

    private static Map<String, JsonNode> toMap(JsonNode n) {
        Map<String, JsonNode> m = new TreeMap<>();
        n.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue()));
        return m;
    }

    @Test
    void aTraceWithCallsOnOtherCommunicatorsIsRefusedBeforeLaunchWithEachCallNamedAndCounted() throws Exception {
        Path program = NativePrograms.compile("es_stencil", dir);
        Path trace = dir.resolve("stencil.trace.json");
        CliHarness record = new CliHarness();
        assertThat(record.execute("mpirun", "-np", "4", "--trace", trace.toString(), "--trace-dir",
                dir.resolve("t").toString(), "--", program.toString(), "10", "8")).as(record.err()).isZero();
        CliHarness replay = new CliHarness();
        assertThat(replay.execute("trace", "replay", trace.toString())).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        // es_stencil: per rank 1 MPI_Cart_create, 1 MPI_Comm_split, 40 MPI_Sendrecv and 10 MPI_Allreduce on the grid,
        // 10 MPI_Allreduce on its row, 1 MPI_Comm_free. Both rows of the 2 × 2 grid carry one id: the library names a
        // split's parts by (parent, place in the parent's sequence), the same on every member of the parent.
        assertThat(replay.err()).contains("cannot issue").contains("nothing was started")
                .contains("mpi_comm_split ×4").contains("mpi_cart_create ×4").contains("mpi_comm_free ×4")
                .contains("mpi_sendrecv ×160").contains("other than MPI_COMM_WORLD");
        assertThat(replay.err().split("mpi_allreduce ×40: on a communicator other than MPI_COMM_WORLD", -1))
                .as("one line per communicator id: the grid's and the rows'").hasSize(3);
        assertThat(replay.out()).doesNotContain("wall time");
    }
}
