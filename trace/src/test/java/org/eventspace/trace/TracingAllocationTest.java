package org.eventspace.trace;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;

import org.eventspace.comm.path.ReduceOp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The GC-free check of the recorder: once a loop is established, a traced call allocates nothing (the collectors'
 * rule for the application's critical path, EventSpace paper §4.1, applied to ScalaTrace's recording). Measured per
 * thread with the JVM's allocation counter: one 16-byte object per call would show as 1.6 MB over 100 000 calls.
 * Each encoding, with marked call sites (ids beyond the boxing cache, so a boxed lookup would show) and a loop body
 * of several calls, as gsum (one call) and compute-gsum (an allreduce and a barrier) make them.
 */
@Timeout(60)
class TracingAllocationTest {
    private static final int WARM = 200_000;
    private static final int CALLS = 100_000;
    private static final long LIMIT = 1024;
    private static final CallSite SUM = CallSite.named("TracingAllocationTest.sum");
    private static final CallSite CHECK = CallSite.named("TracingAllocationTest.check");

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void aTracedCallInALoopAllocatesNothingInAnyEncoding() {
        for (TimeEncoding encoding : TimeEncoding.values()) {
            TracingComm comm = new TracingComm(new ReplayTest.CountingComm(), TraceConfig.of(encoding));
            long[] words = new long[4];
            run(comm, words, WARM);
            long before = THREADS.getCurrentThreadAllocatedBytes();
            run(comm, words, CALLS);
            long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
            assertThat(allocated).as("bytes allocated by %d traced iterations, encoding %s", CALLS, encoding)
                    .isLessThan(LIMIT);
            assertThat(comm.trace().recorded()).isEqualTo(3L * (WARM + CALLS));
            // And nothing was lost to get there: one loop of every iteration.
            Trace trace = Trace.of(comm.trace(), 1);
            assertThat(trace.nodes()).hasSize(1);
            assertThat(((LoopNode) trace.nodes().get(0)).iterations()).isEqualTo(WARM + CALLS);
        }
    }

    /**
     * A loop with a loop inside its iteration, as a stencil makes them (SOR: two halo exchanges of a send and a receive,
     * then the convergence allreduce): once established, nothing is allocated either. The slower path built a copy of
     * the inner loop every iteration and merged it into the body (4.6 KB and ~0.7 µs a call before the flattened path).
     */
    @Test
    void aTracedCallInANestedLoopAllocatesNothing() {
        for (TimeEncoding encoding : TimeEncoding.values()) {
            TracingComm comm = new TracingComm(new ReplayTest.CountingComm(0, 2), TraceConfig.of(encoding));
            long[] halo = new long[18];
            runNested(comm, halo, WARM / 5);
            long before = THREADS.getCurrentThreadAllocatedBytes();
            runNested(comm, halo, CALLS / 5);
            long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
            assertThat(allocated).as("bytes allocated by %d traced iterations of a nested loop, encoding %s", CALLS / 5, encoding)
                    .isLessThan(LIMIT);
            Trace trace = Trace.of(comm.trace(), 2);
            assertThat(trace.nodes()).hasSize(1);
            LoopNode outer = (LoopNode) trace.nodes().get(0);
            assertThat(outer.iterations()).isEqualTo((WARM + CALLS) / 5);
            assertThat(outer.body.get(0)).isInstanceOf(LoopNode.class);
            assertThat(((LoopNode) outer.body.get(0)).iterations()).isEqualTo(2);
            // every call's deltas are in the trace: the inner loop's send saw 2 per outer iteration
            EventNode send = (EventNode) ((LoopNode) outer.body.get(0)).body.get(0);
            assertThat(send.computeDelta().stats().count()).isEqualTo(2L * (WARM + CALLS) / 5);
        }
    }

    /**
     * An iteration longer than the compression window (a benchmark's warm-up round: a hundred allreduces, a barrier
     * and the vote on whether to go on, 102 calls): held whole, allocation-free too. Before the hold could grow past
     * the window, every round went the slower path, an object per call, and a traced warm-up of a few seconds
     * allocated tens of MB (young collections that reached into the timed phase).
     */
    @Test
    void anIterationLongerThanTheWindowAllocatesNothing() {
        for (TimeEncoding encoding : TimeEncoding.values()) {
            TraceConfig config = TraceConfig.of(encoding).withWindow(64);
            TracingComm comm = new TracingComm(new ReplayTest.CountingComm(), config);
            assertThat(ROUND + 2).isGreaterThan(config.window());
            runRounds(comm, WARM / ROUND);
            long before = THREADS.getCurrentThreadAllocatedBytes();
            runRounds(comm, CALLS / ROUND);
            long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
            assertThat(allocated).as("bytes allocated by %d rounds of %d calls, encoding %s", CALLS / ROUND, ROUND + 2,
                    encoding).isLessThan(LIMIT);
            Trace trace = Trace.of(comm.trace(), 1);
            assertThat(trace.nodes()).hasSize(1);
            LoopNode rounds = (LoopNode) trace.nodes().get(0);
            assertThat(rounds.iterations()).isEqualTo((WARM + CALLS) / ROUND);
            assertThat(((LoopNode) rounds.body.get(0)).iterations()).isEqualTo(ROUND);
            EventNode sum = (EventNode) ((LoopNode) rounds.body.get(0)).body.get(0);
            assertThat(sum.computeDelta().stats().count()).isEqualTo((long) (WARM + CALLS) / ROUND * ROUND);
        }
    }

    private static final int ROUND = 100;

    private static void runRounds(TracingComm comm, int rounds) {
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < ROUND; i++) {
                comm.at(SUM).allreduce(i, ReduceOp.SUM);
            }
            TracingComm.at(comm, CHECK).barrier();
            comm.allreduce(r, ReduceOp.MAX);
        }
    }

    private static void runNested(TracingComm comm, long[] halo, int iterations) {
        for (int i = 0; i < iterations; i++) {
            for (int exchange = 0; exchange < 2; exchange++) {
                comm.send(1, halo, halo.length);
                comm.recv(1, halo);
            }
            comm.allreduce((double) i, ReduceOp.MAX);
        }
    }

    private static void run(TracingComm comm, long[] words, int iterations) {
        for (int i = 0; i < iterations; i++) {
            comm.at(SUM).allreduce(i, ReduceOp.SUM);
            comm.allreduce(words, 4, ReduceOp.MAX);
            TracingComm.at(comm, CHECK).barrier();
        }
    }
}
