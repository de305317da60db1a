package org.eventspace.bench.jmh;

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

/**
 * The cost of one event collector on the path (our bar: at most its two clock reads plus 15 ns, and 0
 * bytes per op), next to the clock it pays for, measured in the same run: {@link #collectorCall} is a whole
 * {@link EventCollector#call} around a next wrapper that does nothing, {@link #bufferWrite} the tuple store
 * alone, {@link #nanoTime} and {@link #twoNanoTimes} the clock.
 *
 * <p>{@code eventspace bench collector} runs {@link #collectorCall} and {@link #nanoTime} with the GC profiler
 * ({@link CollectorCost}); the annotations are the defaults of a run by JMH's own main
 * ({@code java -cp cli/target/eventspace.jar org.openjdk.jmh.Main CollectorWriteBenchmark -prof gc -jvmArgsAppend
 * "--add-opens java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED"}: Agrona's
 * buffers need them in the forked JVM), which also runs the other two. It lives in bench's main sources because the CLI runs it: JMH forks a JVM with the
 * current class path, so the benchmark and its generated harness must be in the shaded jar.
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
}
