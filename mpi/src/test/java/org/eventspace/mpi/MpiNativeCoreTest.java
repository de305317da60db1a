package org.eventspace.mpi;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The interposition library's core under real {@code mpirun} runs: no communicator is lost however many a rank
 * creates and frees (the table sheds its tombstones, the list goes past the meta file into {@code rank-R.comms}),
 * every thread of an MPI_THREAD_MULTIPLE program records into a ring of its own, and the clock offsets measured
 * along the binomial tree are within the error bounds they state.
 */
@Timeout(180)
class MpiNativeCoreTest {
    @TempDir
    Path dir;

    @BeforeAll
    static void mpi() {
        MpiPrograms.requireMpi();
    }

    @Test
    void collectivesAfterThousandsOfSplitAndFreeCyclesAreAllNamedAndComplete() throws Exception {
        int cycles = 1000;
        int iterations = 100;
        MpiPrograms.Run run = MpiPrograms.run(dir, 4, 0, 0, MpiPrograms.program("es_comm_churn"),
                String.valueOf(cycles), String.valueOf(iterations));

        assertThat(run.result().exitCode()).as(run.stderr()).isZero();
        assertThat(run.stdout()).contains("comm churn ok: 4 ranks, 1000 split/free cycles");
        assertThat(run.calls("MPI_Comm_split")).isEqualTo(4L * (cycles + 1));
        assertThat(run.calls("MPI_Comm_free")).isEqualTo(4L * (cycles + 1));
        assertThat(run.calls("MPI_Allreduce")).isEqualTo(4L * 2 * iterations);
        JsonNode collectives = run.report().at("/mpi/collectives");
        // on MPI_COMM_WORLD the splits and its allreduces; on each pair of split communicators (even and odd ranks)
        // its free, and on the last pair their allreduces too
        assertThat(collectives.path("instances").asLong())
                .isEqualTo((cycles + 1) + iterations + 2L * cycles + 2L * (iterations + 1));
        assertThat(collectives.path("incomplete").asLong()).as("%s", collectives).isZero();
        assertThat(collectives.path("unknown_communicator_calls").asLong()).isZero();
        assertThat(run.report().at("/mpi/tuples_missed").asLong()).isZero();
        // MPI_COMM_SELF and the 1001 splits: 255 in each meta file, the rest in its side file
        try (Stream<Path> files = Files.walk(dir)) {
            assertThat(files.filter(f -> f.getFileName().toString().endsWith(".comms")).count()).isEqualTo(4);
        }
        assertThat(run.result().summary()).noneMatch(l -> l.contains("could not be listed"));
    }

    @Test
    void fourThreadsPerRankEachOnItsOwnCommunicatorAreAllTracedAndCountedExactly() throws Exception {
        int threads = 4;
        int iterations = 20;
        MpiPrograms.Run run = MpiPrograms.run(dir, 2, 0, 0, MpiPrograms.program("es_threads"),
                String.valueOf(threads), String.valueOf(iterations));

        assertThat(run.result().exitCode()).as(run.stderr()).isZero();
        long each = (long) threads * iterations;
        // the program's own per-rank count and the library's counters agree, call for call
        assertThat(run.stdout()).contains("per rank MPI_Irecv=" + each + " MPI_Send=" + each + " MPI_Wait=" + each
                + " MPI_Allreduce=" + each + " MPI_Barrier=" + (threads + 1));
        for (String op : List.of("MPI_Irecv", "MPI_Send", "MPI_Wait", "MPI_Allreduce")) {
            assertThat(run.calls(op)).as(op).isEqualTo(2 * each);
        }
        assertThat(run.calls("MPI_Barrier")).isEqualTo(2L * (threads + 1));
        assertThat(run.report().at("/mpi/untraced_calls").asLong()).isZero();
        // every tuple of every thread's ring was read: written counts all rings
        assertThat(run.report().at("/mpi/tuples_read").asLong())
                .isEqualTo(run.report().at("/mpi/tuples_written").asLong());
        try (Stream<Path> files = Files.walk(dir)) {
            // a ring per thread at most: a thread that ended leaves its ring to the next new one, and whether one
            // ended before another made its first call is the scheduler's choice
            assertThat(files.filter(f -> f.getFileName().toString().matches("rank-\\d+\\.t\\d+\\.trace")).count())
                    .as("a ring per other thread, or fewer").isBetween(2L, 2L * threads);
        }
        assertThat(run.report().at("/mpi/point_to_point/matched").asLong()).isEqualTo(2 * each);
        assertThat(run.report().at("/mpi/collectives/instances").asLong())
                .isEqualTo(threads * (iterations + 2L) + threads + 1);
        assertThat(run.report().at("/mpi/collectives/incomplete").asLong()).isZero();
    }

    @Test
    void threadRingsAndCommunicatorListsPastTheMetaFileTravelThroughAgentProcesses() throws Exception {
        // two simulated hosts, an agent process each: the rings of a rank's threads and its rank-R.comms reach the
        // front-end's mirror, and the report is the one the agent thread gives
        MpiPrograms.Run churn = MpiPrograms.run(MpiRunConfig.Agents.PROCESSES, null, List.of(), dir.resolve("churn"), 4,
                2, 0, MpiPrograms.program("es_comm_churn"), "400", "20");
        assertThat(churn.result().exitCode()).as(churn.stderr()).isZero();
        assertThat(churn.result().errors()).isEmpty();
        JsonNode collectives = churn.report().at("/mpi/collectives");
        assertThat(collectives.path("instances").asLong()).isEqualTo(401 + 20 + 2L * 400 + 2L * 21);
        assertThat(collectives.path("incomplete").asLong()).as("%s", collectives).isZero();
        assertThat(Files.size(dir.resolve("churn/mirror/host-1/rank-3.comms")))
                .as("past the meta file's 255: MPI_COMM_SELF and 401 splits").isEqualTo(8L * (1 + 401 - 255));

        MpiPrograms.Run threads = MpiPrograms.run(MpiRunConfig.Agents.PROCESSES, null, List.of(), dir.resolve("threads"),
                2, 2, 0, MpiPrograms.program("es_threads"), "4", "10");
        assertThat(threads.result().exitCode()).as(threads.stderr()).isZero();
        assertThat(threads.result().errors()).isEmpty();
        assertThat(threads.report().at("/mpi/untraced_calls").asLong()).isZero();
        assertThat(threads.calls("MPI_Irecv")).isEqualTo(2 * 40);
        assertThat(threads.calls("MPI_Allreduce")).isEqualTo(2 * 40);
        assertThat(threads.report().at("/mpi/tuples_read").asLong())
                .isEqualTo(threads.report().at("/mpi/tuples_written").asLong());
        assertThat(threads.report().at("/mpi/point_to_point/matched").asLong()).isEqualTo(2 * 40);
        assertThat(threads.report().at("/mpi/collectives/incomplete").asLong()).isZero();
    }

    @Test
    void offsetsMeasuredAlongTheSyncTreeAreWithinTheirStatedBounds() throws Exception {
        long skew = 7_000_000L;
        // four simulated hosts, one rank each: host h reads h × skew ahead; rank 3 syncs through rank 2
        MpiPrograms.Run run = MpiPrograms.run(dir, 4, 4, skew, MpiPrograms.program("es_allreduce"), "-i", "50");

        assertThat(run.result().exitCode()).as(run.stderr()).isZero();
        JsonNode ranks = run.report().at("/mpi/clock/ranks");
        assertThat(ranks).hasSize(4);
        long[] initError = new long[4];
        for (JsonNode r : ranks) {
            int rank = r.path("rank").asInt();
            assertThat(r.path("sync_parent").asInt()).isEqualTo(rank == 0 ? -1 : MpiRankMetaLayout.syncParent(rank));
            for (String end : List.of("init", "finalize")) {
                long offset = r.path("offset_" + end + "_ns").asLong();
                long bound = r.path("error_" + end + "_ns").asLong(0);
                assertThat(Math.abs(offset + rank * skew))
                        .as("rank %d at %s: offset %d, bound %d", rank, end, offset, bound).isLessThanOrEqualTo(bound);
            }
            initError[rank] = r.path("error_init_ns").asLong();
        }
        assertThat(initError[0]).isZero();
        // a bound sums the half round trips along the path: rank 3's includes rank 2's
        assertThat(initError[3]).isGreaterThanOrEqualTo(initError[2]);
        assertThat(MpiRankMetaLayout.syncParent(3)).isEqualTo(2);
        assertThat(MpiRankMetaLayout.syncParent(2)).isZero();
    }
}
