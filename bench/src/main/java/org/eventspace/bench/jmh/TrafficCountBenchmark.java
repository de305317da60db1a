package org.eventspace.bench.jmh;

import java.util.concurrent.TimeUnit;

import org.eventspace.comm.path.Message;
import org.eventspace.comm.traffic.TrafficCounters;
import org.eventspace.comm.traffic.TrafficScope;
import org.eventspace.comm.traffic.TrafficTag;
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
 * What counting one message where it leaves costs (ibprof paper §3.2; our bar: at most 15 ns and 0 bytes per message):
 * {@link #countRequest} is a hop's {@link TrafficCounters.Channel#request} of a counted message (the tag lookup and the
 * two atomic adds into its port's cell), {@link #countOutsideScope} the same for a message the scope leaves out (the
 * lookup alone), {@link #baseline} an empty benchmark measured in the same run (JMH's own cost of a call).
 *
 * <p>Run: {@code java -cp cli/target/eventspace.jar org.openjdk.jmh.Main TrafficCountBenchmark -prof gc -jvmArgsAppend
 * "--add-opens java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED"} (docs/BENCHMARKS.md).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class TrafficCountBenchmark {
    private TrafficCounters.Channel counted;
    private TrafficCounters.Channel outside;
    private Message message;

    @Setup
    public void setup() {
        TrafficScope all = TrafficScope.all();
        counted = new TrafficCounters(0, 64, 16, all).client(true, 3, 17, 5);
        outside = new TrafficCounters(0, 64, 16, TrafficScope.parse("collectives:alltoall")).client(true, 3, 17, 5);
        message = new Message(8).length(8).tag(TrafficTag.of(all.phase("solve"), TrafficTag.SEND));
    }

    @Benchmark
    public void countRequest() {
        counted.request(message);
    }

    @Benchmark
    public void countOutsideScope() {
        outside.request(message);
    }

    @Benchmark
    public void baseline() {
    }
}
