package org.eventspace.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class ReplayTest {
    /**
     * Histogram replay waits bin averages in proportion to the bins' frequencies (Ratn et al. §3.4), so the sum of
     * the compute deltas replayed over one pass of an event's samples is what was recorded; the statistics encoding
     * waits the mean every time.
     */
    @Test
    void histogramReplayFollowsTheBinsAndStatisticsTheMean() {
        for (TimeEncoding encoding : new TimeEncoding[] {TimeEncoding.STATS, TimeEncoding.HIST}) {
            RankTrace t = new RankTrace(0, new TraceConfig(encoding, 4, 1000, 8, 1 << 10));
            for (int i = 0; i < 100; i++) {
                t.record(Op.BARRIER, 1, -1, EventNode.NONE, EventNode.NONE, EventNode.NONE, i % 4 == 0 ? 1000 : 100, 5);
            }
            Trace trace = Trace.of(t, 1);
            EventNode barrier = (EventNode) ((LoopNode) trace.nodes().get(0)).body().get(0);
            Replay replay = new Replay(trace, new CountingComm(), Replay.Compute.SPIN);
            List<Long> waits = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                waits.add(replay.computeDelta(barrier));
            }
            long total = waits.stream().mapToLong(Long::longValue).sum();
            if (encoding == TimeEncoding.STATS) {
                assertThat(waits).containsOnly(325L);
                assertThat(total).isEqualTo(25 * 1000 + 75 * 100);
            } else {
                assertThat(waits).containsOnly(100L, 1000L);
                // In proportion to the bins (25 % long) within a few samples, and spread: no run of long waits.
                assertThat(total).isBetween(23L * 1000 + 77 * 100, 27L * 1000 + 73 * 100);
                for (int i = 1; i < waits.size(); i++) {
                    assertThat(waits.get(i) == 1000L && waits.get(i - 1) == 1000L).as("two long waits in a row at %d", i).isFalse();
                }
            }
        }
    }

    /**
     * A compute delta is waited from the previous call's end (a deadline), and lateness is carried: a wait whose
     * deadline already passed returns at once and owes the difference, which the next wait gives back. The assertions
     * are orderings of clock readings (a spin cannot end before its deadline), not durations.
     */
    @Test
    void computeIsWaitedToADeadlineAndLatenessIsRepaid() {
        RankTrace t = new RankTrace(0, TraceConfig.of(TimeEncoding.STATS));
        t.record(Op.BARRIER, 1, -1, EventNode.NONE, EventNode.NONE, EventNode.NONE, 10, 5);
        Replay replay = new Replay(Trace.of(t, 1), new CountingComm(), Replay.Compute.SPIN);
        long from = System.nanoTime() - 1_000_000; // the previous call "ended" 1 ms ago
        long ended = replay.waitUntil(from, 200_000); // its 200 µs deadline has passed
        assertThat(replay.debt()).isGreaterThanOrEqualTo(800_000L);
        assertThat(ended - from).isGreaterThanOrEqualTo(1_000_000L);
        long owed = replay.debt();
        long next = System.nanoTime();
        long end2 = replay.waitUntil(next, owed + 50_000); // it waits only what it does not owe
        assertThat(end2 - next).isGreaterThanOrEqualTo(50_000L);
        assertThat(replay.debt()).isGreaterThanOrEqualTo(0L);
        long start = System.nanoTime();
        long end3 = replay.waitUntil(start, 100_000 + replay.debt());
        assertThat(end3 - start).isGreaterThanOrEqualTo(100_000L);
    }

    @Test
    void reissuesEveryCallWithoutExpanding() {
        RankTrace t = new RankTrace(0, TraceConfig.of(TimeEncoding.HIST));
        for (int i = 0; i < 30; i++) {
            for (int k = 0; k < 5; k++) {
                t.record(Op.ALLREDUCE_LONGS, 1, 0, EventNode.NONE, 4, EventNode.NONE, 10, 10);
            }
            t.record(Op.BROADCAST, 2, -1, EventNode.NONE, 3, 0, 10, 10);
        }
        CountingComm comm = new CountingComm();
        Replay replay = new Replay(Trace.of(t, 1), comm, Replay.Compute.SLEEP);
        replay.run();
        assertThat(replay.calls()).isEqualTo(180);
        assertThat(comm.allreduces).isEqualTo(150);
        assertThat(comm.broadcasts).isEqualTo(30);
        assertThat(comm.lastWords).isEqualTo(3);
    }

    /**
     * Over the ranks together, a histogram replay waits the compute the ranks recorded, also where each rank made an
     * event once: the first call, before which a run's start-up (class loading, JIT, a TCP job's first frames) puts
     * its longest delta. Each rank drawing from the merged histogram on its own took the short bin on both ranks here
     * (the positions 0 and 0.41 of a two-sample histogram) and lost 1.6 ms of 3.2; path-sensitive, the loop's first
     * iteration (after the first call's site) is a histogram of two samples alike.
     */
    @Test
    void theRanksTogetherWaitTheComputeTheyRecorded() {
        for (TimeEncoding encoding : new TimeEncoding[] {TimeEncoding.HIST, TimeEncoding.PATH}) {
            java.util.Random random = new java.util.Random(7);
            List<RankTrace> ranks = new ArrayList<>();
            long recorded = 0;
            for (int r = 0; r < 2; r++) {
                RankTrace t = new RankTrace(r, new TraceConfig(encoding, 5, 8, 8, 1 << 10));
                long first = r == 0 ? 2_400_000 : 800_000;
                t.record(Op.ALLREDUCE_LONG, 1, 0, EventNode.NONE, 1, EventNode.NONE, first, 5_000);
                recorded += first;
                for (int i = 0; i < 300; i++) {
                    long compute = i % 50 == 0 ? 200_000 + random.nextInt(100_000) : 1_000 + random.nextInt(10_000);
                    t.record(Op.ALLREDUCE_LONG, 2, 0, EventNode.NONE, 1, EventNode.NONE, compute, 3_000);
                    recorded += compute;
                }
                ranks.add(t);
            }
            Trace trace = Trace.mergeAll(ranks);
            long waited = 0;
            for (int r = 0; r < 2; r++) {
                Replay replay = new Replay(trace, new CountingComm(r, 2), Replay.Compute.SPIN);
                replay.run();
                assertThat(replay.calls()).isEqualTo(301);
                waited += replay.computeNanos();
            }
            // Each draw is a bin average rounded to the nanosecond.
            assertThat(waited).as("%s: compute waited over both ranks", encoding).isBetween(recorded - 602, recorded + 602);
        }
    }

    /**
     * The recorder marks the timed phase after the calls made before it; the replay re-issues those first and times the
     * rest from the end of the last of them: at least the compute the timed calls recorded, less than the whole run.
     * Per operation, the replay's calls' time is kept.
     */
    @Test
    void aMarkedTimedPhaseIsTimedAfterTheCallsBeforeIt() {
        TracingComm traced = new TracingComm(new CountingComm(), TraceConfig.of(TimeEncoding.STATS));
        for (int i = 0; i < 4; i++) {
            traced.barrier();
        }
        TracingComm.markTimed(traced);
        assertThatThrownBy(() -> TracingComm.markTimed(traced)).hasMessageContaining("marked its timed phase twice");
        for (int i = 0; i < 6; i++) {
            traced.allreduce(1L, org.eventspace.comm.path.ReduceOp.SUM);
        }
        assertThat(traced.trace().timedFrom()).isEqualTo(4);
        assertThat(traced.trace().timedSpanNanos()).isPositive().isLessThanOrEqualTo(traced.trace().spanNanos());
        TracingComm.markTimed(new CountingComm()); // a Comm that does not record: nothing to mark, no error

        RankTrace t = new RankTrace(0, TraceConfig.of(TimeEncoding.STATS));
        for (int i = 0; i < 5; i++) {
            t.record(Op.BARRIER, 1, -1, EventNode.NONE, EventNode.NONE, EventNode.NONE, 2_000_000, 10);
        }
        t.timedFrom = t.recorded();
        for (int i = 0; i < 10; i++) {
            t.record(Op.ALLREDUCE_LONG, 2, 0, EventNode.NONE, 1, EventNode.NONE, 300_000, 10);
        }
        t.spanNanos = 5 * 2_000_010L + 10 * 300_010L;
        t.timedStartNanos = 5 * 2_000_010L; // timed span: 10 * 300 010 ns
        Replay replay = new Replay(Trace.of(t, 1), new CountingComm(), Replay.Compute.SPIN);
        long wall = replay.run();
        assertThat(replay.timedNanos()).isGreaterThanOrEqualTo(10 * 300_000L).isLessThan(wall);
        assertThat(wall).isGreaterThanOrEqualTo(5 * 2_000_000L + 10 * 300_000L);
        assertThat(replay.communicateNanos(Op.ALLREDUCE_LONG)).isPositive();
        assertThat(replay.communicateNanos(Op.SEND)).isZero();

        Replay unmarked = new Replay(Trace.of(new RankTrace(0, TraceConfig.of(TimeEncoding.STATS)), 1), new CountingComm(),
                Replay.Compute.SPIN);
        unmarked.run();
        assertThat(unmarked.timedNanos()).isEqualTo(-1);
    }

    /** A Comm that counts, of rank 0 of 1 unless told. */
    /**
     * A loop whose iterations differ in their sizes (kept as runs, {@link CountRuns}) is replayed with each
     * occurrence's own size, in order.
     */
    @Test
    void sizesThatVaryBetweenIterationsAreReplayedOccurrenceByOccurrence() {
        RankTrace t = new RankTrace(0, TraceConfig.of(TimeEncoding.STATS));
        List<Integer> sizes = new java.util.ArrayList<>();
        for (int p = 0; p < 30; p++) {
            int size = 10 + (p * 7) % 13;
            t.record(Op.BARRIER, 1, -1, EventNode.NONE, EventNode.NONE, EventNode.NONE, 1_000, 10);
            for (int s = 0; s < 3; s++) {
                t.record(Op.ALLREDUCE_LONGS, 2, 0, EventNode.NONE, size, EventNode.NONE, 1_000, 10);
                sizes.add(size);
            }
        }
        Trace trace = Trace.of(t, 1);
        assertThat(trace.nodes()).as(TracePrinter.structure(trace)).hasSize(1);
        List<Integer> replayed = new java.util.ArrayList<>();
        CountingComm comm = new CountingComm() {
            @Override
            public void allreduce(long[] v, int c, org.eventspace.comm.path.ReduceOp op) {
                super.allreduce(v, c, op);
                replayed.add(c);
            }
        };
        new Replay(trace, comm, Replay.Compute.SPIN).run();
        assertThat(replayed).isEqualTo(sizes);
    }

    static class CountingComm implements org.eventspace.comm.Comm {
        int allreduces, broadcasts, lastWords;
        private final int rank;
        private final int size;

        CountingComm() {
            this(0, 1);
        }

        CountingComm(int rank, int size) {
            this.rank = rank;
            this.size = size;
        }

        public int rank() { return rank; }
        public int size() { return size; }
        public long allreduce(long v, org.eventspace.comm.path.ReduceOp op) { allreduces++; return v; }
        public double allreduce(double v, org.eventspace.comm.path.ReduceOp op) { allreduces++; return v; }
        public void allreduce(long[] v, int c, org.eventspace.comm.path.ReduceOp op) { allreduces++; lastWords = c; }
        public void allreduce(double[] v, int c, org.eventspace.comm.path.ReduceOp op) { allreduces++; lastWords = c; }
        public void barrier() { }
        public void broadcast(long[] d, int c, int root) { broadcasts++; lastWords = c; }
        public void gather(long[] s, int c, long[] r, int root) { }
        public void allgather(long[] s, int c, long[] r) { }
        public void scatter(long[] s, int c, long[] r, int root) { }
        public void alltoall(long[] s, int c, long[] r) { }
        public void send(int dest, long[] d, int c) { }
        public int recv(int source, long[] into) { return 0; }
    }
}
