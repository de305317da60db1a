package org.eventspace.comm.launch;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.eventspace.comm.Comm;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.path.WaitPolicy;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.Topology;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.runtime.CommOptions;
import org.eventspace.comm.transport.tcp.TcpOptions;

/**
 * 8-byte allreduce latency over TCP loopback, 2 host processes × 1 rank, measured as bench/mpi/allreduce.c
 * does: warm-up, then the mean of the timed iterations (the slower host's), every sum checked.
 *
 * <p>Run from the comm module after {@code mvn test-compile}:
 * <pre>
 * java -cp target/test-classes:target/classes:$(deps) --add-opens java.base/jdk.internal.misc=ALL-UNNAMED \
 *     --add-opens java.base/java.nio=ALL-UNNAMED org.eventspace.comm.launch.TcpAllreduceLatency \
 *     yieldReads=500 gredYields=500 [spinReads=N] [gredSpins=N] [warmup=1000] [iterations=20000] [trees=1]
 * </pre>
 * {@code spinReads}/{@code yieldReads} are the {@link TcpOptions} polling counts, {@code gredSpins}/{@code gredYields}
 * the gred's {@link WaitPolicy}; all default to 0 (block at once). Without {@code ES_HOST} it launches two copies
 * of itself and prints their JSON lines and a summary; with it, it is one host. Not a test: surefire skips it.
 */
public final class TcpAllreduceLatency {
    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new HashMap<>(Map.of("spinReads", "0", "yieldReads", "0", "gredSpins", "0",
                "gredYields", "0", "iterations", "20000", "warmup", "1000", "trees", "1", "hosts", "2"));
        for (String a : args) {
            String[] kv = a.split("=", 2);
            if (kv.length != 2 || !opts.containsKey(kv[0])) {
                throw new IllegalArgumentException("expected key=value with key in " + opts.keySet() + ", got " + a);
            }
            opts.put(kv[0], kv[1]);
        }
        if (System.getenv(JobEnvironment.ES_HOST) == null) {
            int hosts = Integer.parseInt(opts.get("hosts"));
            Launcher.Result result = Launcher.launch(hosts, Launcher.javaCommand(TcpAllreduceLatency.class, args),
                    Map.of(), Duration.ofMinutes(5));
            double worst = 0;
            double p50 = 0;
            for (String line : result.resultLines()) {
                System.out.println(line);
                if (line != null) {
                    worst = Math.max(worst, Double.parseDouble(line.replaceAll(".*\"mean_us\":([0-9.]+).*", "$1")));
                    p50 = Math.max(p50, Double.parseDouble(line.replaceAll(".*\"p50_us\":([0-9.]+).*", "$1")));
                }
            }
            System.out.printf("%s mean_us=%.2f p50_us=%.2f (slower host) %s%n", Arrays.toString(args), worst, p50,
                    result.succeeded() ? "" : "FAILED: " + result.failure());
            System.exit(result.exitCode());
        }
        runHost(opts);
    }

    private static void runHost(Map<String, String> opts) {
        JobEnvironment env = JobEnvironment.current();
        int hosts = env.hosts();
        Pathmap pathmap = PathmapBuilder.build(PathmapSpec.of(Topology.simulated(1, hosts, 2), hosts,
                Integer.parseInt(opts.get("trees")), TreeShape.hier(2)));
        CommOptions options = CommOptions.defaults(2).withWaitPolicy(new WaitPolicy(Integer.parseInt(opts.get("gredSpins")),
                Integer.parseInt(opts.get("gredYields")), Duration.ofSeconds(30).toNanos()));
        TcpOptions tcp = TcpOptions.defaults().withPolling(Integer.parseInt(opts.get("spinReads")),
                Integer.parseInt(opts.get("yieldReads")));
        int iterations = Integer.parseInt(opts.get("iterations"));
        int warmup = Integer.parseInt(opts.get("warmup"));
        try (TcpHost host = TcpHost.start(pathmap, env, options, tcp)) {
            List<Integer> ranks = host.ranks();
            Comm comm = host.comm(ranks.get(0));
            long n = comm.size();
            long wrong = 0;
            for (int k = 0; k < warmup; k++) {
                wrong += comm.allreduce(comm.rank() + 1 + k % 7, ReduceOp.SUM) == n * (n + 1) / 2 + n * (k % 7) ? 0 : 1;
            }
            comm.barrier();
            long[] samples = new long[iterations];
            long start = System.nanoTime();
            long last = start;
            for (int k = 0; k < iterations; k++) {
                wrong += comm.allreduce(comm.rank() + 1 + k % 7, ReduceOp.SUM) == n * (n + 1) / 2 + n * (k % 7) ? 0 : 1;
                long now = System.nanoTime();
                samples[k] = now - last;
                last = now;
            }
            double mean = (last - start) / 1e3 / iterations;
            Arrays.sort(samples);
            host.finish(String.format("{\"host\":%d,\"iterations\":%d,\"mean_us\":%.3f,\"p50_us\":%.3f,\"p99_us\":%.3f,\"wrong\":%d}",
                    env.host(), iterations, mean, samples[iterations / 2] / 1e3, samples[(int) (iterations * 0.99)] / 1e3, wrong));
            if (wrong != 0) {
                System.exit(2);
            }
        }
    }
}
