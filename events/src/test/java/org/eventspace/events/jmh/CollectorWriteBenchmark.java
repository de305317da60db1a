package org.eventspace.events.jmh;

import java.util.Collection;
import java.util.concurrent.TimeUnit;

import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.path.ValueType;
import org.eventspace.comm.path.Wrapper;
import org.eventspace.events.EventCollector;
import org.eventspace.events.TraceBuffer;
import org.eventspace.events.TraceOp;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * The cost of one event collector on the path (issue 3's bar: at most its two clock reads plus 15 ns, and 0
 * bytes per op), next to the clock it pays for, measured in the same run: {@link #collectorCall} is a whole
 * {@link EventCollector#call} around a next wrapper that does nothing, {@link #bufferWrite} the tuple store
 * alone, {@link #nanoTime} and {@link #twoNanoTimes} the clock.
 *
 * <p>Run with {@link #main} (GC profiler on, prints ns/op and B/op); it lives with the tests so that its JMH
 * annotation processing never touches the module's artifact, and surefire never runs it (no {@code Test} suffix).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CollectorWriteBenchmark {
    private TraceBuffer buffer;
    private EventCollector collector;
    private Message message;
    private long sequence;

    @Setup
    public void setup() {
        buffer = TraceBuffer.direct(4096);
        Wrapper next = m -> { };
        collector = new EventCollector(1, buffer, next);
        message = new Message(1).op(ReduceOp.SUM).type(ValueType.LONG).length(1).word(0, 42);
    }

    @Benchmark
    public void collectorCall() {
        collector.call(message);
    }

    @Benchmark
    public void bufferWrite() {
        long s = sequence++;
        buffer.write(1, TraceOp.ALLREDUCE_SUM, 0, s, 42, s, s + 1);
    }

    @Benchmark
    public long nanoTime() {
        return System.nanoTime();
    }

    @Benchmark
    public long twoNanoTimes() {
        long down = System.nanoTime();
        return System.nanoTime() - down;
    }

    public static void main(String[] args) throws RunnerException {
        Options options = new OptionsBuilder()
                .include(CollectorWriteBenchmark.class.getName() + "\\.")
                .addProfiler(GCProfiler.class)
                .build();
        Collection<RunResult> results = new Runner(options).run();
        System.out.println();
        System.out.printf("%-16s %12s %12s %12s%n", "benchmark", "ns/op", "± ns/op", "B/op");
        for (RunResult run : results) {
            Result<?> primary = run.getPrimaryResult();
            Result<?> alloc = run.getSecondaryResults().get("gc.alloc.rate.norm");
            String name = run.getParams().getBenchmark();
            System.out.printf("%-16s %12.2f %12.2f %12s%n", name.substring(name.lastIndexOf('.') + 1),
                    primary.getScore(), primary.getScoreError(),
                    alloc == null ? "n/a" : String.format("%.3f", alloc.getScore()));
        }
    }
}
