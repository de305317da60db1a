package org.eventspace.bench.jmh;

import java.util.concurrent.TimeUnit;

import org.eventspace.base.stats.UniformSample;
import org.eventspace.events.analysis.GredCalls;
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
 * What the statistics monitor's join costs per call (EventSpace paper §4.3: the analysis runs on the compute hosts, in
 * the time a waiting rank gives it, so every nanosecond here is taken from a collective's critical path when the host
 * has no idle CPU): {@link #gredCall} adds one call of a gred with {@code ports} contributors and the monitor's median
 * window of 100 to its metrics ({@link GredCalls#add}); {@link #uniformSampleAdd} is the lateness sample it adds to per
 * port and call, one value.
 *
 * <p>Run it with JMH's main from the shaded jar: {@code java -cp cli/target/eventspace.jar org.openjdk.jmh.Main
 * GredCallsBenchmark -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class GredCallsBenchmark {
    @Param({"1", "4"})
    public int ports;

    private GredCalls calls;
    private long[] t1;
    private long[] t4;
    private long now;
    private int i;
    private final UniformSample sample = new UniformSample(256, 1);

    @Setup
    public void setup() {
        calls = new GredCalls(ports, 100);
        t1 = new long[ports];
        t4 = new long[ports];
        now = 1_000_000;
    }

    /** One call: contributors arrive a few hundred ns apart, the gred below answers, they leave in turn. */
    @Benchmark
    public GredCalls gredCall() {
        int k = i++;
        long t = now;
        for (int p = 0; p < ports; p++) {
            t1[p] = t + ((k + 7L * p) & 255);
            t4[p] = t + 7_000 + ((k + 3L * p) & 63);
        }
        calls.add(t1, t4, t + 300, t + 6_800);
        now = t + 7_300 + (k & 127);
        return calls;
    }

    @Benchmark
    public UniformSample uniformSampleAdd() {
        sample.add(7_000 + (i++ & 255));
        return sample;
    }
}
