package org.eventspace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.eventspace.trace.LoopNode;
import org.eventspace.trace.Node;
import org.eventspace.trace.Op;
import org.eventspace.trace.Trace;
import org.eventspace.trace.TraceFile;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * ScalaTrace's partial cross-rank merge on an MPI program whose ranks agree on almost everything
 * (native/test/es_mostly_agree.c: rank 0 alone polls for I/O every 50 steps, ranks 1 and 2 order a send and a barrier
 * differently at the end). No two ranks' whole traces match at 3 ranks, so merging whole traces only kept one copy per
 * rank; aligned, the ranks that agree share their loop, the trace is far smaller than flat, every rank's calls come
 * back out, and the loop's allreduce, merged over the ranks that share it, shows the last rank's extra compute.
 */
@Timeout(240)
class MpirunPartialMergeTest {
    private static final int STEPS = 1000;
    private static final int EVERY = 50;
    /**
     * Microseconds of compute per step (eight times that on the last rank): large against the scheduler's noise on a
     * loaded machine, so the slowest allreduce arrival is the last rank's, not another rank's descheduling.
     */
    private static final int UNIT_US = 100;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {3, 4})
    void ranksThatMostlyAgreeShareTheirLoopAndEveryRanksCallsComeBack(int ranks) throws Exception {
        Path program = NativePrograms.compile("es_mostly_agree", dir); // skips without Open MPI
        Path trace = dir.resolve("agree" + ranks + ".cbor");
        Path json = dir.resolve("run" + ranks + ".json");
        CliHarness cli = new CliHarness();
        int exit = cli.execute("mpirun", "-np", String.valueOf(ranks), "--trace", trace.toString(), "--json",
                json.toString(), "--trace-dir", dir.resolve("t" + ranks).toString(), "--mpirun-arg", "--mca",
                "--mpirun-arg", "btl", "--mpirun-arg", "self,vader", "--", program.toString(), String.valueOf(STEPS),
                String.valueOf(EVERY), String.valueOf(UNIT_US));
        assertThat(exit).as(cli.err()).isZero();
        assertThat(cli.err()).containsPattern("flat \\d+ bytes, \\d+(\\.\\d)?× smaller\\)");
        JsonNode report = new ObjectMapper().readTree(json.toFile());
        long bytes = report.at("/trace/bytes").asLong();
        long flat = report.at("/trace/flat_bytes").asLong();
        assertThat(bytes).as("at least 5× smaller than flat").isLessThanOrEqualTo(flat / 5);

        Trace t = TraceFile.read(trace);
        assertThat(t.ranks()).isEqualTo(ranks);
        // Every rank's expansion: as many calls of each op as the report counted, and each rank's own order.
        Map<String, Long> expanded = new java.util.TreeMap<>();
        long total = 0;
        for (int r = 0; r < ranks; r++) {
            List<Trace.Call> calls = t.expand(r);
            total += calls.size();
            for (Trace.Call c : calls) {
                expanded.merge(c.op().name(), 1L, Long::sum); // MPI_ALLREDUCE
            }
            long iprobes = calls.stream().filter(c -> c.op() == Op.MPI_IPROBE).count();
            assertThat(iprobes).as("rank %d's I/O polls", r).isEqualTo(r == 0 ? 3L * (STEPS / EVERY) : 0);
            assertThat(calls.stream().filter(c -> c.op() == Op.MPI_ALLREDUCE).count()).isEqualTo(STEPS);
            List<Op> tail = calls.subList(calls.size() - 4, calls.size()).stream().map(Trace.Call::op).toList();
            if (r == 1) {
                assertThat(tail).containsExactly(Op.MPI_SEND, Op.MPI_BARRIER, Op.MPI_RECV, Op.MPI_FINALIZE);
            } else if (r == 2) {
                assertThat(tail).containsExactly(Op.MPI_BARRIER, Op.MPI_SEND, Op.MPI_RECV, Op.MPI_FINALIZE);
            }
        }
        assertThat(total).isEqualTo(t.eventsRecorded()).isEqualTo(report.at("/trace/events_recorded").asLong());
        Map<String, Long> reported = new java.util.TreeMap<>();
        report.at("/mpi/calls").fields().forEachRemaining(e -> reported.put(e.getKey().toUpperCase(java.util.Locale.ROOT), e.getValue().asLong()));
        assertThat(expanded).isEqualTo(reported);

        // The ranks that agree (all but rank 0) share one loop of every step; rank 0's own loop is the only other.
        LoopNode shared = null;
        for (Node n : t.nodes()) {
            if (n instanceof LoopNode l && l.iterations() == STEPS) {
                shared = l;
            }
        }
        assertThat(shared).as("one loop of %d steps", STEPS).isNotNull();
        assertThat(shared.ranks().size()).as("ranks sharing the loop").isEqualTo(ranks - 1);
        assertThat(shared.ranks().contains(0)).isFalse();
        Map<Integer, Integer> loopsByRanks = new java.util.HashMap<>();
        for (Node n : t.nodes()) {
            if (n instanceof LoopNode) {
                loopsByRanks.merge(n.ranks().size(), 1, Integer::sum);
            }
        }
        assertThat(loopsByRanks.values().stream().mapToInt(Integer::intValue).sum())
                .as("top-level loops: fewer than one per rank").isLessThan(ranks);

        CliHarness stats = new CliHarness();
        assertThat(stats.execute("trace", "stats", trace.toString())).as(stats.err()).isZero();
        assertThat(stats.out()).as("the allreduce the last rank arrives late at").contains("mpi_allreduce")
                .doesNotStartWith("0 collectives");
        CliHarness show = new CliHarness();
        assertThat(show.execute("trace", "show", "--no-times", trace.toString())).as(show.err()).isZero();
        assertThat(show.out()).contains("loop ×" + STEPS + "  ranks 1.." + (ranks - 1));
    }
}
