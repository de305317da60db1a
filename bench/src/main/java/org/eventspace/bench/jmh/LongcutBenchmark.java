package org.eventspace.bench.jmh;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.agrona.concurrent.SystemNanoClock;
import org.eventspace.comm.path.Message;
import org.eventspace.comm.path.Wrapper;
import org.eventspace.comm.transport.AgentThreads;
import org.eventspace.wan.GatewayScheduler;
import org.eventspace.wan.LinkDirection;
import org.eventspace.wan.LinkSchedule;
import org.eventspace.wan.Longcut;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the Longcut wrapper itself costs a message, apart from the delay it emulates (dissertation §8.1): {@link #schedule}
 * is the delay arithmetic of one message on a link ({@link LinkSchedule}: serialisation, latency, FIFO), {@link
 * #throughGateway} a message through a Longcut whose link has no latency and 10^6 Mbit/s (each direction: stamp, queue,
 * the gateway's scheduler thread schedules and releases it, the caller's thread wakes), {@link #direct} the same next
 * wrapper called without it. With {@code -prof gc}: bytes per message (0 expected: waiters and queues are preallocated).
 *
 * <p>Run: {@code java -cp cli/target/eventspace.jar org.openjdk.jmh.Main LongcutBenchmark -prof gc -jvmArgsAppend
 * "--add-opens java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED"} (docs/BENCHMARKS.md).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LongcutBenchmark {
    private final Message message = new Message(8).length(8);
    private final Wrapper next = m -> m.word(0, m.word(0) + 1);
    private LinkSchedule link;
    private long arrival;
    private GatewayScheduler gateway;
    private AgentRunner runner;
    private Longcut longcut;

    @Setup(Level.Trial)
    public void setup() {
        link = new LinkSchedule(LinkDirection.constant("a", "b", 5, 10), 0);
        LinkDirection out = LinkDirection.constant("a", "b", 0, 1_000_000);
        LinkDirection back = LinkDirection.constant("a", "c", 0, 1_000_000);
        gateway = new GatewayScheduler("jmh", List.of(new LinkSchedule(out, 0), new LinkSchedule(back, 0)),
                SystemNanoClock.INSTANCE, GatewayScheduler.DEFAULT_SPIN_WINDOW_NS, TimeUnit.SECONDS.toNanos(30));
        longcut = new Longcut(next, gateway.register(), gateway.link("a>b"), gateway.link("a>c"));
        runner = AgentThreads.start(gateway, new NoOpIdleStrategy());
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        gateway.close();
        AgentThreads.awaitEnd(runner, Duration.ofSeconds(2));
    }

    @Benchmark
    public long schedule() {
        arrival += 1_000;
        return link.schedule(arrival, 64);
    }

    @Benchmark
    public long throughGateway() {
        longcut.call(message);
        return message.word(0);
    }

    @Benchmark
    public long direct() {
        next.call(message);
        return message.word(0);
    }
}
