package org.eventspace.bench.jmh;

import java.util.concurrent.TimeUnit;

import org.eventspace.wan.cluster.ClusterRootProbe;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a multi-cluster allreduce's cluster root costs a call, apart from waiting for the other clusters (dissertation
 * appendix 7.3 §IV; docs/MULTI-CLUSTER.md): a conditional call decided on the cluster's own value, one decided by a
 * cached remote value, and a plain call combining three clusters' partial results. With {@code -prof gc}: bytes per
 * call (0 expected). Uncontended here: the root's monitors (publishing, the caches) are shared only with the prefetch
 * and fetch threads.
 *
 * <p>Run: {@code java -cp cli/target/eventspace.jar org.openjdk.jmh.Main ClusterRootBenchmark -prof gc -jvmArgsAppend
 * "--add-opens java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED"}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ClusterRootBenchmark {
    private final ClusterRootProbe probe = new ClusterRootProbe();

    @Benchmark
    public long decidedLocally() {
        return probe.decidedLocally();
    }

    @Benchmark
    public long decidedByCache() {
        return probe.decidedByCache();
    }

    @Benchmark
    public long combined() {
        return probe.combined();
    }
}
