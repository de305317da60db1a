package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

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
 * ranks merged, every call kept; the trace tools read it and a replay says why it cannot re-issue it.
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

        Trace t = TraceFile.read(trace);
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
        assertThat(replay.err()).contains("an MPI program's calls").contains("not replayed yet");
    }
}
