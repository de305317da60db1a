package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code eventspace mpirun} end to end on what a user sees: point-to-point matching across simulated hosts (each with
 * its own node agent, read in another order than time order), the calls other threads made, and the temporary
 * trace folder that goes with the run.
 */
@Timeout(300)
class MpirunPointToPointTest {
    private static final String[] BTL = {"--mpirun-arg", "--mca", "--mpirun-arg", "btl", "--mpirun-arg", "self,vader"};
    private static final int LAPS = 2000;

    @TempDir
    Path dir;

    @Test
    void aRingAcrossSimulatedHostsMatchesEverySendAsOneHostDoes() throws Exception {
        Path program = NativePrograms.compile("es_ring", dir);
        long sends = 4L * LAPS;
        for (int hosts : new int[] {0, 2, 4}) {
            Path json = dir.resolve("ring-" + hosts + ".json");
            CliHarness cli = new CliHarness();
            List<String> args = new ArrayList<>(List.of("mpirun", "-np", "4", "--sim-hosts", String.valueOf(hosts),
                    "--json", json.toString(), "--trace-dir", dir.resolve("trace-" + hosts).toString()));
            args.addAll(List.of(BTL));
            args.addAll(List.of("--", program.toString(), String.valueOf(LAPS)));
            int exit = cli.execute(args.toArray(String[]::new));

            assertThat(exit).as(cli.err()).isZero();
            JsonNode p2p = new ObjectMapper().readTree(json.toFile()).at("/mpi/point_to_point");
            assertThat(p2p.path("matched").asLong()).as("%d hosts: %s", hosts, cli.err()).isEqualTo(sends);
            assertThat(p2p.path("unmatched").asLong()).as("%d hosts", hosts).isZero();
            assertThat(p2p.path("pending_bound_exceeded").asLong()).isZero();
            assertThat(cli.err()).contains("point-to-point: " + sends + " matched, 0 unmatched");
            // every rank waits in its receive for the token from the one before it: the late sends are spread
            long causers = Stream.of("0", "1", "2", "3")
                    .filter(r -> p2p.path("late_sender_caused_us").path(r).asDouble() > 0).count();
            assertThat(causers).as("%d hosts: ranks whose late sends made others wait: %s", hosts,
                    p2p.path("late_sender_caused_us")).isGreaterThan(1);
        }
    }

    @Test
    void everyThreadOfAThreadMultipleProgramRecordsOnItsOwnCommunicator() throws Exception {
        Path program = NativePrograms.compile("es_threads", dir);
        Path json = dir.resolve("threads.json");
        CliHarness cli = new CliHarness();
        int threads = 4;
        int iterations = 25;
        List<String> args = new ArrayList<>(List.of("mpirun", "-np", "2", "--json", json.toString()));
        args.addAll(List.of(BTL));
        args.addAll(List.of("--", program.toString(), String.valueOf(threads), String.valueOf(iterations)));
        int exit = cli.execute(args.toArray(String[]::new));

        assertThat(exit).as(cli.err()).isZero();
        // per rank, as the program counts them: each thread's calls, and the main thread's barrier
        long each = threads * iterations;
        JsonNode mpi = new ObjectMapper().readTree(json.toFile()).path("mpi");
        assertThat(mpi.path("untraced_calls").asLong()).isZero();
        assertThat(mpi.path("tuples_missed").asLong()).isZero();
        for (String op : List.of("MPI_Irecv", "MPI_Send", "MPI_Wait", "MPI_Allreduce")) {
            assertThat(mpi.at("/calls/" + op).asLong()).as(op).isEqualTo(2 * each);
        }
        assertThat(mpi.at("/calls/MPI_Barrier").asLong()).isEqualTo(2 * (threads + 1));
        assertThat(mpi.at("/calls/MPI_Comm_dup").asLong()).isEqualTo(2 * threads);
        // every thread's send is matched to the receive its partner thread posted on the same communicator
        assertThat(mpi.at("/point_to_point/matched").asLong()).isEqualTo(2 * each);
        assertThat(mpi.at("/point_to_point/unmatched").asLong()).isZero();
        // per communicator its allreduces, its barrier and its free; on MPI_COMM_WORLD the dups and the barrier
        assertThat(mpi.at("/collectives/instances").asLong()).isEqualTo(threads * (iterations + 2) + threads + 1);
        assertThat(mpi.at("/collectives/incomplete").asLong()).isZero();
        assertThat(mpi.at("/collectives/unknown_communicator_calls").asLong()).isZero();
        assertThat(cli.err()).doesNotContain("not traced");
    }

    @Test
    void theTemporaryTraceFolderGoesWithTheRunEvenWhenTheProgramFailsUnlessKept() throws Exception {
        Path program = NativePrograms.compile("es_allreduce", dir);
        CliHarness failed = new CliHarness();
        List<String> args = new ArrayList<>(List.of("mpirun", "-np", "2"));
        args.addAll(List.of(BTL));
        args.addAll(List.of("--", program.toString(), "-i", "20", "-x", "5"));
        assertThat(failed.execute(args.toArray(String[]::new))).as(failed.err()).isEqualTo(5);
        Path removed = traceFolder(failed.err(), "removed at the end");
        assertThat(removed.getFileName().toString()).startsWith("eventspace-mpi-");
        assertThat(removed).doesNotExist();

        CliHarness kept = new CliHarness();
        args.add(3, "--keep-trace-files");
        assertThat(kept.execute(args.toArray(String[]::new))).as(kept.err()).isEqualTo(5);
        Path folder = traceFolder(kept.err(), "kept");
        try {
            try (Stream<Path> files = Files.walk(folder)) {
                // host-<this machine's name>/rank-<R>.meta|.trace
                assertThat(files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("rank-")).sorted())
                        .containsExactly("rank-0.meta", "rank-0.trace", "rank-1.meta", "rank-1.trace");
            }
            assertThat(kept.err()).containsPattern("trace files: .* \\(2 ranks, [0-9.]+ MB\\) kept");
        } finally {
            try (Stream<Path> files = Files.walk(folder)) {
                for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(f);
                }
            }
        }
    }

    /** The folder the summary's {@code trace files:} line names, which must end in {@code ending}. */
    private static Path traceFolder(String err, String ending) {
        Matcher m = Pattern.compile("eventspace: trace files: (\\S+) \\(\\d+ ranks, [0-9.]+ MB\\) (.*)").matcher(err);
        assertThat(m.find()).as(err).isTrue();
        assertThat(m.group(2)).startsWith(ending);
        return Path.of(m.group(1));
    }
}
