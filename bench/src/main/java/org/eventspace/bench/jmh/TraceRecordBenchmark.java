package org.eventspace.bench.jmh;

import java.util.concurrent.TimeUnit;

import org.eventspace.comm.Comm;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.trace.CallSite;
import org.eventspace.trace.TimeEncoding;
import org.eventspace.trace.TraceConfig;
import org.eventspace.trace.TracingComm;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What recording one call costs (ScalaTrace's recorder, {@link TracingComm}): {@link #traced} is an allreduce through a
 * {@code TracingComm} over a {@code Comm} that returns at once, so all of its time is the recorder's — two clock reads,
 * the comparison with the loop body's next call, the deltas added to its statistics or histogram — next to
 * {@link #bare} (the same call without the recorder) and {@link #twoNanoTimes} (the clock it pays for), in the same run,
 * per time encoding; {@link #tracedNestedIteration} records a stencil's iteration, whose loop holds an inner loop. Run with the GC profiler to see the bytes per op:
 * {@code java -cp cli/target/eventspace.jar org.openjdk.jmh.Main TraceRecordBenchmark -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class TraceRecordBenchmark {
    private static final CallSite SITE = CallSite.named("TraceRecordBenchmark.traced");

    @Param({"stats", "hist", "path"})
    public String encoding;

    private Comm bare;
    private TracingComm traced;
    private TracingComm nested;
    private final long[] halo = new long[18];
    private long i;

    /** A one-rank {@code Comm} whose allreduce returns its argument. */
    static final class NopComm implements Comm {
        public int rank() { return 0; }
        public int size() { return 1; }
        public long allreduce(long v, ReduceOp op) { return v; }
        public double allreduce(double v, ReduceOp op) { return v; }
        public void allreduce(long[] v, int c, ReduceOp op) { }
        public void allreduce(double[] v, int c, ReduceOp op) { }
        public void barrier() { }
        public void broadcast(long[] d, int c, int root) { }
        public void gather(long[] s, int c, long[] r, int root) { }
        public void allgather(long[] s, int c, long[] r) { }
        public void scatter(long[] s, int c, long[] r, int root) { }
        public void alltoall(long[] s, int c, long[] r) { }
        public void send(int dest, long[] d, int c) { }
        public int recv(int source, long[] into) { return 0; }
    }

    @Setup
    public void setup() {
        bare = new NopComm();
        traced = new TracingComm(new NopComm(), TraceConfig.of(TimeEncoding.parse(encoding)));
        nested = new TracingComm(new NopComm(), TraceConfig.of(TimeEncoding.parse(encoding)));
    }

    /**
     * One iteration of a stencil's loop, five recorded calls: two halo exchanges (a send and a receive, an inner loop
     * of two iterations) and a convergence allreduce, as SOR makes them; divide by 5 for a call.
     */
    @Benchmark
    public double tracedNestedIteration() {
        for (int exchange = 0; exchange < 2; exchange++) {
            nested.send(0, halo, halo.length);
            nested.recv(0, halo);
        }
        return nested.allreduce((double) i++, ReduceOp.MAX);
    }

    @Benchmark
    public long traced() {
        return traced.at(SITE).allreduce(i++, ReduceOp.SUM);
    }

    @Benchmark
    public long bare() {
        return bare.allreduce(i++, ReduceOp.SUM);
    }

    @Benchmark
    public long twoNanoTimes() {
        long start = System.nanoTime();
        return System.nanoTime() - start;
    }
}
