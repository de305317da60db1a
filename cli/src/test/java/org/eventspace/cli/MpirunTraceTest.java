package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;

import org.eventspace.trace.LoopNode;
import org.eventspace.trace.Trace;
import org.eventspace.trace.TraceFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code eventspace mpirun --trace}: an unmodified MPI program's calls in the compressed trace format, loops found,
 * ranks merged, every call kept; the trace tools read it and a replay says why it cannot re-issue it (its calls on
 * communicators other than MPI_COMM_WORLD).
 */
@Timeout(180)
class MpirunTraceTest {
    @TempDir
    Path dir;

    @Test
    void aStencilsCallsBecomeOneLoopForAllRanksAndEveryCallIsKept() throws Exception {
        Path program = NativePrograms.compile("es_stencil", dir);
        Path trace = dir.resolve("stencil.trace.json");
        Path json = dir.resolve("run.json");
        int iterations = 200;
        CliHarness cli = new CliHarness();
        int exit = cli.execute("mpirun", "-np", "4", "--trace", trace.toString(), "--time-encoding", "path", "--json",
                json.toString(), "--trace-dir", dir.resolve("t").toString(), "--mpirun-arg", "--mca", "--mpirun-arg", "btl",
                "--mpirun-arg", "self,vader", "--", program.toString(), String.valueOf(iterations), "16");
        assertThat(exit).as(cli.err()).isZero();
        JsonNode report = new ObjectMapper().readTree(json.toFile());
        long calls = 0;
        for (JsonNode c : report.at("/mpi/calls")) {
            calls += c.asLong();
        }
        assertThat(report.at("/trace/events_recorded").asLong()).as("every call the ranks made").isEqualTo(calls);
        assertThat(report.at("/trace/time_encoding").asText()).isEqualTo("path");
        assertThat(report.at("/trace/bytes").asLong()).isLessThan(report.at("/trace/flat_bytes").asLong() / 10);

        Trace t = TraceFile.read(trace); // every field valid: a site the library signed negative once made it unreadable
        assertThat(t.ranks()).isEqualTo(4);
        assertThat(t.eventsRecorded()).isEqualTo(calls);
        // The halo exchange and the convergence allreduce repeat once per iteration on every rank.
        assertThat(t.nodes()).anySatisfy(n -> {
            assertThat(n).isInstanceOf(LoopNode.class);
            assertThat(((LoopNode) n).iterations()).isEqualTo(iterations);
            assertThat(n.ranks().size()).isEqualTo(4);
        });

        CliHarness show = new CliHarness();
        assertThat(show.execute("trace", "show", trace.toString())).isZero();
        assertThat(show.out()).contains("loop ×" + iterations).contains("mpi_allreduce");
        CliHarness replay = new CliHarness();
        assertThat(replay.execute("trace", "replay", trace.toString())).isEqualTo(EventSpaceCommand.EXIT_USAGE);
        // its calls on the Cartesian grid and the split rows: the MPI replay re-creates no communicator but MPI_COMM_WORLD
        assertThat(replay.err()).contains("cannot issue").contains("mpi_comm_split").contains("other than MPI_COMM_WORLD");
    }

    /**
     * Halo exchanges on a non-periodic line send to and receive from MPI_PROC_NULL at the ends, and the calls of every
     * binding are traced: the trace of the C program and of its mpi_f08 twin (native/test/es_counts.c,
     * es_fcounts_f08.f90) reads back, trace show prints the MPI_PROC_NULL peers, and the export writes them.
     */
    @Test
    void tracesWithMpiProcNullPeersReadBackFromCAndFortran() throws Exception {
        Path c = NativePrograms.compile("es_counts", dir); // skips without Open MPI
        List<Path> programs = new java.util.ArrayList<>(List.of(c));
        if (NativePrograms.onPath("mpifort")) {
            Path f08 = dir.resolve("es_fcounts_f08");
            run(List.of("mpifort", "-O2", "-o", f08.toString(),
                    Path.of("..", "native", "test", "es_fcounts_f08.f90").toString()));
            programs.add(f08);
        }
        for (Path program : programs) {
            Path trace = dir.resolve(program.getFileName() + ".trace.json");
            CliHarness cli = new CliHarness();
            assertThat(cli.execute("mpirun", "-np", "4", "--trace", trace.toString(), "--trace-dir",
                    dir.resolve("t-" + program.getFileName()).toString(), "--mpirun-arg", "--mca", "--mpirun-arg", "btl",
                    "--mpirun-arg", "self,vader", "--", program.toString())).as(cli.err()).isZero();
            assertThat(java.nio.file.Files.readString(trace)).contains("\"proc_null\"");
            CliHarness show = new CliHarness();
            assertThat(show.execute("trace", "show", trace.toString())).as(show.err()).isZero();
            assertThat(show.out()).contains("peer MPI_PROC_NULL").contains("mpi_sendrecv_replace")
                    .contains("mpi_iallreduce");
            Path export = dir.resolve(program.getFileName() + ".perfetto.json");
            CliHarness exported = new CliHarness();
            assertThat(exported.execute("trace", "export", trace.toString(), "--format", "perfetto", "--out",
                    export.toString()))
                    .as(exported.err()).isZero();
            assertThat(java.nio.file.Files.readString(export)).contains("\"peer\":\"MPI_PROC_NULL\"");
        }
    }

    /**
     * A program whose MPI calls sit in a shared library (as LAMMPS's are in liblammps.so): the library is mapped at a
     * different address in every rank, and the call sites still agree, so the ranks merge into one group.
     */
    @Test
    void callsFromASharedLibraryGetTheSameSiteOnEveryRank() throws Exception {
        NativePrograms.compile("es_ring", dir); // skips without Open MPI
        java.nio.file.Files.writeString(dir.resolve("lib.c"), """
                #include <mpi.h>
                double step(double x) { double y; MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); return y; }
                """);
        java.nio.file.Files.writeString(dir.resolve("main.c"), """
                #include <mpi.h>
                #include <stdio.h>
                double step(double x);
                int main(int argc, char **argv) {
                    MPI_Init(&argc, &argv);
                    double s = 0;
                    for (int i = 0; i < 100; i++) s += step(1.0);
                    int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
                    if (rank == 0) printf("lib ok %.0f\\n", s);
                    MPI_Finalize();
                    return 0;
                }
                """);
        run(List.of("mpicc", "-O2", "-fPIC", "-shared", "-o", dir.resolve("libesstep.so").toString(), dir.resolve("lib.c").toString()));
        Path program = dir.resolve("libmain");
        run(List.of("mpicc", "-O2", "-o", program.toString(), dir.resolve("main.c").toString(), "-L" + dir, "-lesstep",
                "-Wl,-rpath," + dir));
        Path trace = dir.resolve("lib.trace.json");
        CliHarness cli = new CliHarness();
        assertThat(cli.execute("mpirun", "-np", "4", "--trace", trace.toString(), "--trace-dir", dir.resolve("t").toString(),
                "--mpirun-arg", "--mca", "--mpirun-arg", "btl", "--mpirun-arg", "self,vader", "--", program.toString()))
                .as(cli.err()).isZero();
        JsonNode t = new ObjectMapper().readTree(trace.toFile());
        assertThat(t.path("groups")).as("one group: every rank's calls matched, sites included").hasSize(1);
        Trace read = TraceFile.read(trace);
        assertThat(read.nodes()).anySatisfy(n -> assertThat(n).isInstanceOf(LoopNode.class));
    }

    private static void run(List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", command) + "\n" + out).isZero();
    }
}
