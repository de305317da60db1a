package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code eventspace mpirun} over a program one rank of which fails (native/test/es_fault.c): the report names that
 * rank with its signal or code, and the ranks mpirun stopped after it are said to have been stopped, not blamed.
 */
@Timeout(180)
class MpirunFaultTest {
    @TempDir
    Path dir;

    /** One run of es_fault with 4 ranks (stopped after 60 s at most); its exit code and report. */
    private Run run(String... args) throws Exception {
        Path program = NativePrograms.compile("es_fault", dir);
        Path json = dir.resolve("run.json");
        CliHarness cli = new CliHarness();
        int exit = cli.execute(Stream.concat(Stream.of("mpirun", "-np", "4", "--timeout", "60", "--json", json.toString(),
                "--trace-dir", dir.resolve("trace").toString(), "--", program.toString()), Stream.of(args))
                .toArray(String[]::new));
        return new Run(exit, new ObjectMapper().readTree(json.toFile()), cli.err());
    }

    private record Run(int exit, JsonNode report, String err) {
        List<String> errors() {
            return texts(report.path("errors"));
        }

        JsonNode exit(int rank) {
            JsonNode e = report.at("/mpi/rank_exits/" + rank);
            assertThat(e.path("rank").asInt()).as(err).isEqualTo(rank);
            return e;
        }

        private static List<String> texts(JsonNode array) {
            List<String> out = new ArrayList<>();
            array.forEach(n -> out.add(n.asText()));
            return out;
        }
    }

    @Test
    void aSegfaultingRankIsNamedWithItsSignalAndTheOthersAsStoppedAfterIt() throws Exception {
        Run run = run("segv", "1");

        assertThat(run.exit()).as(run.err()).isNotZero();
        assertThat(run.report().path("result_ok").asBoolean()).isFalse();
        // rank 1 faulted in its own code, after its fifth MPI_Allreduce; mpirun then sent the others SIGTERM
        assertThat(run.errors()).as(run.err()).containsExactly(
                "rank 1 was killed by signal 11 (SIGSEGV) after MPI_Allreduce",
                "ranks [0, 2, 3] were stopped before MPI_Finalize (after rank 1 failed)");
        JsonNode rank1 = run.exit(1);
        assertThat(rank1.path("state").asText()).isEqualTo("killed_by_signal");
        assertThat(rank1.path("signal").asInt()).isEqualTo(11);
        assertThat(rank1.path("signal_name").asText()).isEqualTo("SIGSEGV");
        assertThat(rank1.path("last_call").asText()).isEqualTo("MPI_Allreduce");
        assertThat(rank1.path("in_call").asBoolean()).isFalse();
        assertThat(rank1.has("stopped_after_rank")).isFalse();
        for (int r : new int[] {0, 2, 3}) {
            assertThat(run.exit(r).path("stopped_after_rank").asInt()).as("rank %d", r).isEqualTo(1);
            assertThat(run.exit(r).has("exit_code")).isFalse();
        }
        assertThat(ReportSchemas.errors("run-report.schema.json", run.report().toString())).isEmpty();
        assertThat(run.err().lines().findFirst().orElseThrow()).startsWith(
                "eventspace: run failed: rank 1 was killed by signal 11 (SIGSEGV)");
        // the run model says the same: the rank, its signal, the verdict's headline, the coverage's unfinished ranks
        assertThat(run.report().at("/per_rank/1/exit/state").asText()).isEqualTo("killed_by_signal");
        assertThat(run.report().at("/per_rank/1/exit/signal_name").asText()).isEqualTo("SIGSEGV");
        assertThat(run.report().at("/per_rank/0/exit/state").asText()).isEqualTo("stopped");
        assertThat(run.report().at("/verdict/headline").asText()).startsWith("run failed: rank 1 was killed by signal 11");
        assertThat(run.report().at("/coverage/unfinished_ranks").findValuesAsText("reason")).hasSize(4)
                .anyMatch(r -> r.startsWith("was killed by signal 11 (SIGSEGV)"));
    }

    @Test
    void aRankThatCallsMpiAbortIsNamedWithItsCode() throws Exception {
        Run run = run("abort", "2", "7");

        assertThat(run.exit()).as(run.err()).isEqualTo(7);
        assertThat(run.report().path("result_ok").asBoolean()).isFalse();
        assertThat(run.errors()).as(run.err()).containsExactly("rank 2 called MPI_Abort with code 7",
                "ranks [0, 1, 3] were stopped before MPI_Finalize (after rank 2 failed)");
        JsonNode rank2 = run.exit(2);
        assertThat(rank2.path("state").asText()).isEqualTo("aborted");
        assertThat(rank2.path("abort_code").asInt()).isEqualTo(7);
        assertThat(rank2.path("last_call").asText()).isEqualTo("MPI_Abort");
        assertThat(run.report().at("/mpi/calls/MPI_Abort").asLong()).as("the abort is a call tuple too").isEqualTo(1);
    }

    @Test
    void aRankThatReturnsThreeAfterFinalizeIsTheOnlyOneNamed() throws Exception {
        Run run = run("exit", "3", "3");

        assertThat(run.exit()).as(run.err()).isEqualTo(3);
        assertThat(run.report().path("result_ok").asBoolean()).isFalse();
        // rank 3 is the cause; Open MPI's MPI_Finalize is no barrier, so mpirun may stop a rank still inside it
        // when rank 3 exits: such a rank is named only as stopped after rank 3, never as a cause
        assertThat(run.errors().get(0)).as(run.err()).isEqualTo("rank 3 exited with code 3");
        assertThat(run.errors().subList(1, run.errors().size()))
                .allMatch(e -> e.matches("ranks? .* stopped before MPI_Finalize \\(after rank 3 failed\\)"));
        assertThat(run.exit(3).path("state").asText()).isEqualTo("exited_nonzero");
        assertThat(run.exit(3).path("exit_code").asInt()).isEqualTo(3);
        for (int r = 0; r < 3; r++) {
            JsonNode e = run.exit(r);
            assertThat(e.path("state").asText().equals("finished") || e.path("stopped_after_rank").asInt(-1) == 3)
                    .as("rank %d: %s", r, e).isTrue();
        }
    }

    @Test
    void aRankThatExitsBeforeFinalizeIsNamedWithItsCodeAndLastCall() throws Exception {
        Run run = run("early", "1", "5");

        assertThat(run.exit()).as(run.err()).isNotZero();
        assertThat(run.errors()).as(run.err()).containsExactly(
                "rank 1 exited with code 5 before MPI_Finalize (after MPI_Allreduce)",
                "ranks [0, 2, 3] were stopped before MPI_Finalize (after rank 1 failed)");
        assertThat(run.exit(1).path("state").asText()).isEqualTo("exited_before_finalize");
        assertThat(run.exit(1).path("exit_code").asInt()).isEqualTo(5);
    }
}
