package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.eventspace.trace.Trace;
import org.eventspace.trace.TraceFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code eventspace mpirun --mpi mpich}: the same unmodified programs under MPICH's Hydra {@code mpiexec}, with the
 * library built by MPICH's compiler; the trace reads back, {@code --traffic} counts from the library's own send
 * records, and a library of one implementation under the other's launcher is refused before anything runs.
 */
@Timeout(180)
class MpirunMpichTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void aTracedStencilUnderMpichKeepsEveryCallAndReadsBack() throws Exception {
        NativePrograms.requireMpich();
        Path program = NativePrograms.compile("es_stencil", dir, NativePrograms.MPICH_CC);
        Path trace = dir.resolve("stencil.trace.json");
        Path json = dir.resolve("run.json");
        int iterations = 50;
        CliHarness cli = new CliHarness();
        int exit = cli.execute("mpirun", "--mpi", "mpich", "-np", "4", "--trace", trace.toString(), "--json",
                json.toString(), "--trace-dir", dir.resolve("t").toString(), "--", program.toString(),
                String.valueOf(iterations), "16");
        assertThat(exit).as(cli.err()).isZero();
        JsonNode report = JSON.readTree(json.toFile());
        // the launcher was Hydra's, driven with -genv
        assertThat(report.toString()).contains("-genv").doesNotContain("--oversubscribe");
        // 4 halo exchanges per iteration per rank, 16 doubles each
        assertThat(report.at("/mpi/calls/MPI_Sendrecv").asLong()).isEqualTo(4L * iterations * 4);
        assertThat(report.at("/mpi/bytes_sent").asLong()).isEqualTo(4L * iterations * 4 * 16 * 8);
        assertThat(report.at("/mpi/tuples_missed").asLong()).isZero();
        long calls = 0;
        for (JsonNode c : report.at("/mpi/calls")) {
            calls += c.asLong();
        }
        Trace t = TraceFile.read(trace);
        assertThat(t.ranks()).isEqualTo(4);
        assertThat(t.eventsRecorded()).isEqualTo(calls);
    }

    @Test
    void trafficUnderMpichComesFromTheLibrarysOwnSendsAndSaysSo() throws Exception {
        NativePrograms.requireMpich();
        Path program = NativePrograms.compile("es_ring", dir, NativePrograms.MPICH_CC);
        Path traffic = dir.resolve("ring-traffic.json");
        int laps = 50;
        CliHarness cli = new CliHarness();
        int exit = cli.execute("mpirun", "--mpirun", NativePrograms.MPICH_RUN, "-np", "4", "--sim-hosts", "2",
                "--traffic", traffic.toString(), "--trace-dir", dir.resolve("trace").toString(), "--",
                program.toString(), String.valueOf(laps));
        assertThat(exit).as(cli.err()).isZero();
        assertThat(cli.err()).contains("eventspace: traffic (interposition library counts (point-to-point only, "
                + "collectives' internal traffic not visible)): " + 4 * 4 * laps + " B in " + 4 * laps + " messages");
        JsonNode t = JSON.readTree(traffic.toFile());
        assertThat(t.path("counted_by").asText()).contains("interposition library");
        JsonNode send = null;
        for (JsonNode op : t.path("operations")) {
            if (op.path("name").asText().equals("send")) {
                send = op;
            }
        }
        assertThat(send).as("the send operation in %s", t).isNotNull();
        for (int s = 0; s < 4; s++) {
            for (int d = 0; d < 4; d++) {
                long expected = d == (s + 1) % 4 ? 4L * laps : 0;
                assertThat(send.at("/rank/bytes_sent/" + s + "/" + d).asLong()).as("bytes %d -> %d", s, d).isEqualTo(expected);
                assertThat(send.at("/rank/messages_sent/" + s + "/" + d).asLong()).isEqualTo(expected / 4);
            }
        }
        assertThat(send.at("/host/bytes_sent/0/1").asLong()).isEqualTo(4L * laps);
    }

    @Test
    void aLibraryOfOneImplementationUnderTheOthersLauncherIsRefusedUpFront() throws Exception {
        NativePrograms.requireMpi();
        NativePrograms.requireMpich();
        CliHarness mixed = new CliHarness();
        assertThat(mixed.execute("mpirun", "--mpirun", NativePrograms.MPICH_RUN, "--mpicc", "mpicc", "-np", "2",
                "--trace-dir", dir.resolve("a").toString(), "--", "true")).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(mixed.err()).contains("built by mpicc for openmpi").contains("(mpich): their ABIs differ")
                .contains("mpicc.mpich");
        CliHarness declared = new CliHarness();
        assertThat(declared.execute("mpirun", "--mpi", "openmpi", "--mpirun", NativePrograms.MPICH_RUN, "-np", "2",
                "--trace-dir", dir.resolve("b").toString(), "--", "true")).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(declared.err()).contains("--mpi openmpi, but " + NativePrograms.MPICH_RUN + " is mpich's launcher");
        CliHarness unknown = new CliHarness();
        assertThat(unknown.execute("mpirun", "--mpi", "lam", "-np", "2", "--", "true")).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        assertThat(unknown.err()).contains("--mpi must be openmpi, mpich or auto, got 'lam'");
    }
}
