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
 * {@link #countRequest} is a hop's {@link TrafficCounters.Channel#request} of a counted message (the test of the tag's
 * counted bit and the four atomic adds into its port's phase and operation cells), {@link #countOutsideScope} the same for a message the
 * sender's scope left out (the test alone), {@link #baseline} an empty benchmark measured in the same run (JMH's own cost
 * of a call).
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
    private TrafficCounters.Channel channel;
    private Message counted;
    private Message outside;

    @Setup
    public void setup() {
        TrafficScope scope = TrafficScope.parse("collectives:send");
        channel = new TrafficCounters(0, 64, 16, scope).client(true, 3, 17, 5);
        int phase = scope.phase("solve");
        counted = new Message(8).length(8).tag(scope.tag(phase, TrafficTag.SEND));
        outside = new Message(8).length(8).tag(scope.tag(phase, TrafficTag.ALLREDUCE));
    }

    @Benchmark
    public void countRequest() {
        channel.request(counted);
    }

    @Benchmark
    public void countOutsideScope() {
        channel.request(outside);
    }

    @Benchmark
    public void baseline() {
    }
}
