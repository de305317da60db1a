package org.eventspace.bench.jmh;

import java.io.PrintStream;
import java.time.Instant;
import java.util.Collection;
import java.util.Locale;

import org.eventspace.run.RunReport;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What one event collector costs against the clock it pays for (our bar: one write, both timestamps
 * included, at most two {@code System.nanoTime()} plus 15 ns, 0 bytes per op): one JMH run of
 * {@link CollectorWriteBenchmark#collectorCall} and {@link CollectorWriteBenchmark#nanoTime} with the GC
 * profiler, as the {@code eventspace.bench-collector/1} document.
 *
 * <p>Not thread-safe: JMH runs one benchmark at a time per process.
 */
public final class CollectorCost {
    public static final String SCHEMA = "eventspace.bench-collector/1";
    /** The target for a collector write: its two clock reads plus at most this much (EventSpace paper §6.1 took 1.1 µs). */
    public static final double BAR_OVER_TWO_CLOCKS_NS = 15;

    private static final String COLLECTOR = "collectorCall";
    private static final String CLOCK = "nanoTime";
    /** JMH's normalised allocation: bytes allocated per benchmark operation. */
    private static final String ALLOC_PER_OP = "gc.alloc.rate.norm";
    /** Agrona's buffers need these on Java 17; a forked JVM gets them whatever the parent was started with. */
    private static final String[] FORK_JVM_ARGS = {"--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "--add-opens", "java.base/java.nio=ALL-UNNAMED"};

    private CollectorCost() {
    }

    /**
     * JMH settings, validated.
     *
     * @param warmupIterations warm-up iterations per benchmark (per fork).
     * @param iterations       measured iterations per benchmark (per fork).
     * @param iterationSeconds length of every warm-up and measured iteration.
     * @param forks            JVMs forked per benchmark (JMH's default isolation); 0 runs in this JVM.
     */
    public record Settings(int warmupIterations, int iterations, double iterationSeconds, int forks) {
        public static final Settings DEFAULT = new Settings(3, 5, 1.0, 1);

        public Settings {
            if (warmupIterations < 0) {
                throw new IllegalArgumentException("warm-up iterations must be >= 0, warmupIterations=" + warmupIterations);
            }
            if (iterations < 1) {
                throw new IllegalArgumentException("iterations must be >= 1, iterations=" + iterations);
            }
            if (!(iterationSeconds >= 0.001)) {
                throw new IllegalArgumentException("iteration time must be >= 0.001 s, iterationSeconds=" + iterationSeconds);
            }
            if (forks < 0) {
                throw new IllegalArgumentException("forks must be >= 0, forks=" + forks);
            }
        }

        TimeValue iterationTime() {
            return TimeValue.microseconds(Math.round(iterationSeconds * 1e6));
        }
    }

    /** A JMH score and its error (half-width of the 99.9 % confidence interval; NaN with too few iterations). */
    public record Score(double value, double error) {
        static Score of(Result<?> result) {
            return new Score(result.getScore(), result.getScoreError());
        }
    }

    /** What one run measured: a collector write in ns/op and B/op, and one clock read in ns/op. */
    public record Measured(Score collectorNs, Score bytesPerOp, Score clockNs) {
        /** The collector's cost beyond its two clock reads: ns_per_op − 2 × clock_ns. */
        public double overTwoClocksNs() {
            return collectorNs.value() - 2 * clockNs.value();
        }

        /** Errors add up in the worst case: the collector's plus twice the clock's. */
        public double overTwoClocksError() {
            return collectorNs.error() + 2 * clockNs.error();
        }

        public boolean barMet() {
            return overTwoClocksNs() <= BAR_OVER_TWO_CLOCKS_NS && Math.round(bytesPerOp.value()) == 0;
        }
    }

    /** Runs both benchmarks in one JMH run; JMH's progress goes to {@code progress}. */
    public static Measured run(Settings settings, PrintStream progress) throws RunnerException {
        String prefix = CollectorWriteBenchmark.class.getName() + ".";
        ChainedOptionsBuilder options = new OptionsBuilder()
                .include(java.util.regex.Pattern.quote(prefix + COLLECTOR) + "$")
                .include(java.util.regex.Pattern.quote(prefix + CLOCK) + "$")
                .addProfiler(GCProfiler.class)
                .warmupIterations(settings.warmupIterations())
                .warmupTime(settings.iterationTime())
                .measurementIterations(settings.iterations())
                .measurementTime(settings.iterationTime())
                .forks(settings.forks())
                .shouldFailOnError(true);
        if (settings.forks() > 0) {
            options.jvmArgsAppend(FORK_JVM_ARGS);
        }
        Runner runner = new Runner(options.build(), OutputFormatFactory.createFormatInstance(progress, VerboseMode.NORMAL));
        return measured(runner.run());
    }

    /** Picks the two benchmarks' scores and the collector's {@code gc.alloc.rate.norm} out of JMH's results. */
    public static Measured measured(Collection<RunResult> results) {
        Score collector = null;
        Score bytes = null;
        Score clock = null;
        for (RunResult run : results) {
            String name = run.getParams().getBenchmark();
            String method = name.substring(name.lastIndexOf('.') + 1);
            if (method.equals(COLLECTOR)) {
                collector = Score.of(run.getPrimaryResult());
                Result<?> alloc = run.getSecondaryResults().get(ALLOC_PER_OP);
                bytes = alloc == null ? null : Score.of(alloc);
            } else if (method.equals(CLOCK)) {
                clock = Score.of(run.getPrimaryResult());
            }
        }
        if (collector == null || clock == null || bytes == null) {
            throw new IllegalStateException("JMH results lack " + (collector == null ? COLLECTOR : clock == null ? CLOCK
                    : ALLOC_PER_OP + " (GC profiler)") + ", results=" + results.size());
        }
        return new Measured(collector, bytes, clock);
    }

    /** The {@code eventspace.bench-collector/1} document. */
    public static ObjectNode toJson(Measured m, Settings settings, ObjectMapper json) {
        ObjectNode root = json.createObjectNode();
        root.put("schema", SCHEMA);
        put(root, "ns_per_op", m.collectorNs().value());
        put(root, "ns_per_op_error", m.collectorNs().error());
        put(root, "bytes_allocated_per_op", m.bytesPerOp().value());
        put(root, "bytes_allocated_per_op_error", m.bytesPerOp().error());
        put(root, "clock_ns", m.clockNs().value());
        put(root, "clock_ns_error", m.clockNs().error());
        put(root, "overhead_over_two_clocks_ns", m.overTwoClocksNs());
        put(root, "overhead_over_two_clocks_ns_error", m.overTwoClocksError());
        ObjectNode bar = root.putObject("bar");
        bar.put("max_overhead_over_two_clocks_ns", BAR_OVER_TWO_CLOCKS_NS);
        bar.put("max_bytes_allocated_per_op", 0);
        bar.put("met", m.barMet());
        ObjectNode jmh = root.putObject("jmh");
        jmh.put("version", "1.37");
        jmh.put("benchmark_class", CollectorWriteBenchmark.class.getName());
        jmh.put("benchmarks", COLLECTOR + ", " + CLOCK);
        jmh.put("mode", "avgt");
        jmh.put("warmup_iterations", settings.warmupIterations());
        jmh.put("iterations", settings.iterations());
        jmh.put("iteration_s", settings.iterationSeconds());
        jmh.put("forks", settings.forks());
        jmh.put("forked", settings.forks() > 0);
        jmh.put("profiler", "gc");
        jmh.put("error", "99.9 % confidence half-width, null with too few iterations");
        RunReport.putMachine(root);
        root.put("date", Instant.now().toString());
        return root;
    }

    /** The summary for people: every number with its unit. */
    public static String summary(Measured m, Settings settings) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "collector write (both timestamps): %s ns/op, %.3f B/op%n",
                plusMinus(m.collectorNs().value(), m.collectorNs().error()), m.bytesPerOp().value()));
        out.append(String.format(Locale.ROOT, "one System.nanoTime():             %s ns/op%n",
                plusMinus(m.clockNs().value(), m.clockNs().error())));
        out.append(String.format(Locale.ROOT, "beyond two clock reads:            %s ns (bar: <= %.0f ns and 0 B/op: %s)%n",
                plusMinus(m.overTwoClocksNs(), m.overTwoClocksError()), BAR_OVER_TWO_CLOCKS_NS, m.barMet() ? "met" : "NOT met"));
        out.append(String.format(Locale.ROOT, "JMH: %d fork(s)%s, %d × %.3g s warm-up, %d × %.3g s measured, GC profiler%n",
                settings.forks(), settings.forks() == 0 ? " (in this JVM)" : "", settings.warmupIterations(),
                settings.iterationSeconds(), settings.iterations(), settings.iterationSeconds()));
        return out.toString();
    }

    private static String plusMinus(double value, double error) {
        return Double.isFinite(error) ? String.format(Locale.ROOT, "%.2f ± %.2f", value, error)
                : String.format(Locale.ROOT, "%.2f (no error bar: too few iterations)", value);
    }

    /** JSON has no NaN: a score JMH could not give (an error from too few iterations) is null. */
    private static void put(ObjectNode node, String field, double value) {
        if (Double.isFinite(value)) {
            node.put(field, value);
        } else {
            node.putNull(field);
        }
    }
}
