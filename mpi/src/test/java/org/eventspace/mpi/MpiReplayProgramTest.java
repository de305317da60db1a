package org.eventspace.mpi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.eventspace.trace.EventNode;
import org.eventspace.trace.Op;
import org.eventspace.trace.RankTrace;
import org.eventspace.trace.TimeEncoding;
import org.eventspace.trace.Trace;
import org.eventspace.trace.TraceConfig;
import org.junit.jupiter.api.Test;

/**
 * What the MPI replayer is given: each rank's part of the merged trace with its loops kept, peers made absolute, tags,
 * roots and bytes per occurrence, the compute delta to wait; and what it refuses, named and counted, before anything
 * runs.
 */
class MpiReplayProgramTest {
    private static final long NONE = EventNode.NONE;
    private static final long WORLD = MpiTuple.COMM_WORLD_ID;

    /** A ring exchange on 3 ranks: init, 5 × (irecv from prev, isend to next, waitall of 2), an allreduce, finalize. */
    private static Trace ring(TimeEncoding encoding) {
        int ranks = 3;
        List<RankTrace> all = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            RankTrace t = new RankTrace(r, TraceConfig.of(encoding));
            int next = (r + 1) % ranks;
            int prev = (r + ranks - 1) % ranks;
            t.record(Op.MPI_INIT, 1, -1, NONE, 0, NONE, NONE, WORLD, 0, 1000);
            for (int i = 0; i < 5; i++) {
                t.record(Op.MPI_IRECV, 2, -1, prev - r, 1024, NONE, 5, WORLD, 100_000 + 1000L * i, 10);
                t.record(Op.MPI_ISEND, 3, -1, next - r, 1024, NONE, 5, WORLD, 10, 10);
                t.record(Op.MPI_WAITALL, 4, -1, NONE, 0, NONE, 2, NONE, 10, 500);
            }
            t.record(Op.MPI_ALLREDUCE, 5, -1, NONE, 8, NONE, NONE, WORLD, 50_000, 100);
            t.record(Op.MPI_FINALIZE, 6, -1, NONE, 0, NONE, NONE, WORLD, 10, 100);
            all.add(t);
        }
        return Trace.mergeAll(all);
    }

    @Test
    void aRanksProgramKeepsTheLoopAndMakesPeersAbsolute() {
        Trace trace = ring(TimeEncoding.STATS);
        assertThat(MpiReplayProgram.isMpi(trace)).isTrue();
        assertThat(MpiReplayProgram.refusals(trace)).isEmpty();
        MpiReplayProgram p = MpiReplayProgram.of(trace, 2);
        List<String> lines = p.text().lines().toList();
        assertThat(lines.get(0)).isEqualTo(MpiReplayProgram.FORMAT + " 2 3 1024 18 8");
        assertThat(lines).hasSize(9);
        assertThat(lines.get(1)).startsWith("call mpi_init 1 -1 -1 -1 1 0 ");
        assertThat(lines.get(2)).isEqualTo("loop 5");
        // rank 2: previous rank 1, next rank 0 (relative +1 -> 2 + (0 - 2) = 0)
        assertThat(lines.get(3)).startsWith("call mpi_irecv 2 1 5 -1 1 1024 " + Long.MAX_VALUE + " ");
        assertThat(lines.get(4)).startsWith("call mpi_isend 3 0 5 -1 1 1024 ");
        assertThat(lines.get(5)).startsWith("call mpi_waitall 4 -1 2 -1 1 0 ");
        assertThat(lines.get(6)).isEqualTo("end");
        assertThat(lines.get(7)).startsWith("call mpi_allreduce 5 -1 -1 -1 1 8 " + Long.MAX_VALUE + " 50000 0");
        assertThat(p.calls()).isEqualTo(Map.of(Op.MPI_INIT, 1L, Op.MPI_IRECV, 5L, Op.MPI_ISEND, 5L, Op.MPI_WAITALL, 5L,
                Op.MPI_ALLREDUCE, 1L, Op.MPI_FINALIZE, 1L));
        assertThat(p.totalCalls()).isEqualTo(18);
        // the irecv's compute deltas, 100 to 104 µs over the ranks: the mean without histograms
        assertThat(lines.get(3)).endsWith(" 102000 0");
    }

    /**
     * With histograms, the program carries each event's bins and where this rank's walk through their sample positions
     * starts (DeltaSampler's permutation): the replayer draws what the Java replay would.
     */
    @Test
    void withHistogramsTheProgramCarriesTheBinsAndThisRanksWalk() {
        Trace trace = ring(TimeEncoding.HIST);
        String irecv = MpiReplayProgram.of(trace, 1).text().lines().filter(l -> l.startsWith("call mpi_irecv")).findFirst()
                .orElseThrow();
        String[] w = irecv.split(" ");
        // call op site peer tag root runs value length mean tables | prev n step position bins ...
        assertThat(w[10]).isEqualTo("1");
        assertThat(w[11]).isEqualTo("-1");
        long n = Long.parseLong(w[12]);
        assertThat(n).isEqualTo(15); // 5 occurrences × 3 ranks
        long a = MpiReplayProgram.stride(n);
        assertThat(Long.parseLong(w[13])).isEqualTo(3 * a % n);
        assertThat(Long.parseLong(w[14])).isEqualTo(1 * a % n);
        int bins = Integer.parseInt(w[15]);
        long freq = 0;
        for (int b = 0; b < bins; b++) {
            freq += Long.parseLong(w[16 + 2 * b]);
        }
        assertThat(freq).isEqualTo(n);
    }

    @Test
    void callsTheReplayerCannotIssueAreNamedAndCounted() {
        int ranks = 4;
        List<RankTrace> all = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            RankTrace t = new RankTrace(r, TraceConfig.of(TimeEncoding.STATS));
            t.record(Op.MPI_COMM_SPLIT, 1, -1, NONE, 0, NONE, NONE, WORLD, 0, 10);
            for (int i = 0; i < 3; i++) {
                t.record(Op.MPI_ALLREDUCE, 2, -1, NONE, 8, NONE, NONE, 77, 10, 10);
                t.record(Op.MPI_ALLTOALLV, 3, -1, NONE, 64L * (r + 1), NONE, NONE, WORLD, 10, 10);
            }
            t.record(Op.MPI_TEST, 4, -1, NONE, 0, NONE, 1, NONE, 0, 10);
            t.record(Op.MPI_SEND, 5, -1, 1, 8, NONE, NONE, NONE, 0, 10); // as recorded before tags were kept
            all.add(t);
        }
        Trace trace = Trace.mergeAll(all);
        List<String> refused = MpiReplayProgram.refusals(trace);
        assertThat(refused).hasSize(5);
        assertThat(refused).anySatisfy(s -> assertThat(s).startsWith("mpi_comm_split ×4: the MPI replayer does not issue"));
        assertThat(refused).anySatisfy(s -> assertThat(s).startsWith("mpi_test ×4: the MPI replayer does not issue"));
        assertThat(refused).anySatisfy(s -> assertThat(s).startsWith("mpi_allreduce ×12: on a communicator other than "
                + "MPI_COMM_WORLD (id 77)"));
        assertThat(refused).anySatisfy(s -> assertThat(s).startsWith("mpi_alltoallv ×12: a v-variant whose counts differ"));
        assertThat(refused).anySatisfy(s -> assertThat(s).startsWith("mpi_send ×4: recorded without its communicator"));
        assertThatThrownBy(() -> MpiReplayProgram.of(trace, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void callsTheTraceLostRefuseTheReplay() {
        RankTrace t = new RankTrace(0, TraceConfig.of(TimeEncoding.STATS).withMaxNodes(16));
        for (int i = 0; i < 20; i++) {
            t.record(Op.MPI_BARRIER, 10 + i, -1, NONE, 0, NONE, NONE, WORLD, 10, 10); // no two alike: nothing folds
        }
        Trace trace = Trace.mergeAll(List.of(t));
        assertThat(MpiReplayProgram.refusals(trace)).singleElement().asString().startsWith("rank 0 ×4: calls the trace lost");
    }

    @Test
    void aTraceOfOurOwnWorkloadIsNotAnMpiTrace() {
        RankTrace t = new RankTrace(0, TraceConfig.of(TimeEncoding.STATS));
        t.record(Op.BARRIER, 1, -1, NONE, NONE, NONE, 10, 10);
        assertThat(MpiReplayProgram.isMpi(Trace.mergeAll(List.of(t)))).isFalse();
    }
}
