package org.eventspace.wan.cluster;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import org.eventspace.base.json.Json;
import org.eventspace.comm.Comm;
import org.eventspace.comm.path.Condition;
import org.eventspace.comm.path.Gred;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.runtime.PathExtension;
import org.eventspace.comm.launch.JobEnvironment;
import org.eventspace.job.HostResult;
import org.eventspace.job.JobConfig;
import org.eventspace.job.JobLauncher;
import org.eventspace.job.JobTransport;
import org.eventspace.job.MonitoredJob;
import org.eventspace.job.RankThreads;
import org.eventspace.wan.GatewayScheduler;
import org.eventspace.wan.WanEmulation;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code run noise-allreduce|sor --allreduce sequential|magpie|conditional}: the dissertation's two conditional-allreduce
 * workloads (appendix 7.3 §V) on a job in one JVM or in one process per host over TCP, usually over an emulated WAN
 * ({@code --wan FILE}).
 *
 * <ul>
 *   <li><b>noise-allreduce</b>: per iteration a compute phase of a fixed time (a timed park: on a shared 2-core machine
 *       spinning ranks would measure the machine, not the algorithm), then an 8-byte allreduce of the value the input
 *       file gives this rank ({@link AllreduceInput}) whose only use is the test "sum &gt; epsilon"; every answer is
 *       checked against the exact sum.</li>
 *   <li><b>sor</b>: red-black SOR on a grid of 4 rows × 16 columns per rank (halo exchange with rank ± 1), a compute
 *       phase of the same fixed time, and the convergence test "sum of |change| &gt; epsilon" each iteration, until it
 *       fails or {@code maxIterations}; the iterations run and the grid's bit sum are the application's result.</li>
 * </ul>
 *
 * With {@code sequential} and {@code magpie} the test is a plain allreduce followed by the comparison
 * ({@link Comm#allreduceUntil} on a tree that is not conditional); with {@code conditional} the cluster roots decide it.
 */
public final class WanAllreduceBenchmark {
    public static final String SCHEMA = "eventspace.run-wan-allreduce/1";
    private static final int ROWS = 4;
    private static final int COLUMNS = 16;
    private static final double OMEGA = 1.5;

    public enum Workload {
        NOISE_ALLREDUCE("noise-allreduce"), SOR("sor");

        private final String label;

        Workload(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /**
     * @param usPerIteration    the slowest rank's timed wall time over its iterations, µs.
     * @param wanMessages       messages the gateways released (each crossing of an emulated link counts once).
     * @param decided           conditional calls decided at the cluster roots, summed over the clusters: on local
     *                          values, by a cached remote value, by the sequence-number rule, by the full exchange.
     * @param iterationsDecidedLocally the mean over clusters of calls decided on the cluster's own values.
     * @param wrongAnswers      noise-allreduce: answers that differ from the exact sum's; sor: 0.
     * @param checksum          sor: the grid's bit sum (equal across modes is the bit-identical check); noise: the
     *                          number of "true" answers.
     */
    public record Result(Workload workload, ClusterAllreduce mode, int ranks, int clusters, int iterations,
                         double usPerIteration, long wanMessages, long[] decided, double iterationsDecidedLocally,
                         long wrongAnswers, long checksum) {
    }

    private WanAllreduceBenchmark() {
    }

    /**
     * @param base           the job as laid out (its extension, if any, is the WAN emulation).
     * @param input          noise-allreduce's values (sor: its epsilon only, or null for {@code sorEpsilon}).
     * @param computeMicros  the fixed compute time per iteration.
     * @param maxIterations  sor's bound on iterations.
     */
    public static Result run(JobConfig base, Workload workload, ClusterAllreduce mode, AllreduceInput input,
                             double sorEpsilon, long computeMicros, int maxIterations, Duration limit) {
        return run(base, workload, mode, input, sorEpsilon, computeMicros, maxIterations, limit, Beside.NONE);
    }

    /**
     * What a caller runs beside the workload in this JVM, for layers this module does not know (the monitors, which
     * live above it): a release listener for the job's greds (a coscheduler), something started once the job's hosts
     * are built, and told when the ranks are done, before the job closes. In one JVM, or over TCP in every host process
     * ({@link #hostMain()}), each host's {@link #hostReport()} merged on the launcher ({@link #merged}).
     */
    public interface Beside {
        Beside NONE = new Beside() {
        };

        default Gred.ReleaseListener listener(Pathmap pathmap) {
            return Gred.ReleaseListener.NONE;
        }

        default void started(MonitoredJob job) {
        }

        default void ranksDone(MonitoredJob job) {
        }

        /**
         * Over TCP: the host processes' main class, which makes this {@code Beside} again from {@link #hostArguments()}
         * (the last of its arguments) and calls {@link #host(String[], Beside)}; null: one JVM only.
         */
        default String hostMain() {
            return null;
        }

        default List<String> hostArguments() {
            return List.of();
        }

        /** In a host process, once its ranks are done: what it reports of this host (null: nothing). */
        default JsonNode hostReport() {
            return null;
        }

        /** On the launcher of a TCP run: every host's {@link #hostReport()}, by host (null where a host sent none). */
        default void merged(List<JsonNode> reports, Pathmap pathmap) {
        }
    }

    /**
     * As {@link #run(JobConfig, Workload, ClusterAllreduce, AllreduceInput, double, long, int, Duration)}, with
     * {@code beside} running in the job.
     *
     * @throws IllegalArgumentException if {@code beside} runs in one JVM only ({@link Beside#hostMain()} null) and the
     *                                  job is over TCP.
     */
    public static Result run(JobConfig base, Workload workload, ClusterAllreduce mode, AllreduceInput input,
                             double sorEpsilon, long computeMicros, int maxIterations, Duration limit, Beside beside) {
        double epsilon = workload == Workload.NOISE_ALLREDUCE ? input.epsilon() : sorEpsilon;
        JobConfig config = mode == ClusterAllreduce.SEQUENTIAL ? base
                : base.withExtension(new MultiClusterLayer(mode, Condition.GREATER, epsilon, base.extension()));
        int ranks = config.spec().ranks();
        int clusters = config.spec().topology().clusters().size();
        Work work = new Work(workload, input, epsilon, computeMicros, maxIterations);
        HostPart all;
        if (config.transport() == JobTransport.TCP) {
            if (beside != Beside.NONE && beside.hostMain() == null) {
                throw new IllegalArgumentException(beside + " runs in one JVM only (--transport jvm)");
            }
            List<JsonNode> reports = new ArrayList<>();
            all = overTcp(config, work, limit, beside, reports);
            beside.merged(reports, config.pathmap());
        } else {
            try (MonitoredJob job = MonitoredJob.inJvm(config, beside::listener)) {
                beside.started(job);
                all = hostPart(job, work, limit);
                beside.ranksDone(job);
            }
        }
        long wall = 0;
        long wrong = 0;
        long iterations = -1;
        long checksum = -1;
        for (long[] v : all.ranks()) {
            wall = Math.max(wall, v[0]);
            wrong += v[1];
            if (iterations >= 0 && (iterations != v[2] || checksum != v[3])) {
                wrong++;
            }
            iterations = v[2];
            checksum = v[3];
        }
        return new Result(workload, mode, ranks, clusters, (int) iterations, wall / 1_000.0 / iterations,
                all.wanMessages(), all.decided(), (double) all.decided()[0] / clusters, wrong, checksum);
    }

    /** What one run of the workload is: the same in every host process. */
    private record Work(Workload workload, AllreduceInput input, double epsilon, long computeMicros, int maxIterations) {
        /** The host processes' arguments after the job's: workload, input file (or "-"), epsilon, compute µs, bound. */
        List<String> arguments() {
            return List.of(workload.name(), input == null ? "-" : input.file().toAbsolutePath().toString(),
                    Double.toString(epsilon), Long.toString(computeMicros), Integer.toString(maxIterations));
        }

        static Work of(String[] args) {
            if (args.length != 6) {
                throw new IllegalArgumentException("usage: WanAllreduceBenchmark <encoded job configuration> <workload> "
                        + "<input file or -> <epsilon> <compute µs> <max iterations>");
            }
            Workload workload = Workload.valueOf(args[1]);
            AllreduceInput input = args[2].equals("-") ? null : AllreduceInput.read(Path.of(args[2]));
            return new Work(workload, input, Double.parseDouble(args[3]), Long.parseLong(args[4]), Integer.parseInt(args[5]));
        }
    }

    /**
     * What one process's ranks and cluster roots report: per rank {wall ns, wrong answers, iterations, checksum}; the
     * conditional calls its cluster roots decided (local, cache, rule, full exchange); the messages its gateways released.
     */
    @JsonPropertyOrder({"ranks", "decided", "wan_messages"})
    private record HostPart(List<long[]> ranks, long[] decided, @JsonProperty("wan_messages") long wanMessages) {
        JsonNode toJson() {
            return JSON.valueToTree(this);
        }

        static HostPart fromJson(JsonNode node) {
            if (node == null || !node.path("ranks").isArray() || !node.path("decided").isArray()
                    || node.path("decided").size() != 4 || !node.path("wan_messages").canConvertToLong()) {
                throw new IllegalArgumentException("expected {\"ranks\": [[4 numbers]...], \"decided\": [4 numbers], "
                        + "\"wan_messages\": number}, got " + node);
            }
            List<long[]> ranks = new ArrayList<>();
            for (JsonNode r : node.get("ranks")) {
                if (!r.isArray() || r.size() != 4) {
                    throw new IllegalArgumentException("expected a rank's 4 numbers, got " + r);
                }
                ranks.add(new long[] {r.get(0).asLong(), r.get(1).asLong(), r.get(2).asLong(), r.get(3).asLong()});
            }
            long[] decided = new long[4];
            for (int i = 0; i < 4; i++) {
                decided[i] = node.get("decided").get(i).asLong();
            }
            return new HostPart(ranks, decided, node.get("wan_messages").asLong());
        }

        static HostPart sum(List<HostPart> parts) {
            List<long[]> ranks = new ArrayList<>();
            long[] decided = new long[4];
            long wan = 0;
            for (HostPart p : parts) {
                ranks.addAll(p.ranks);
                for (int i = 0; i < 4; i++) {
                    decided[i] += p.decided[i];
                }
                wan += p.wanMessages;
            }
            return new HostPart(ranks, decided, wan);
        }
    }

    private static final ObjectMapper JSON = Json.mapper();

    /** Runs the workload on {@code job}'s local ranks (every rank in one JVM) and reads its cluster roots and gateways. */
    private static HostPart hostPart(MonitoredJob job, Work work, Duration limit) {
        List<RankThreads.Outcome<long[]>> outcomes = job.runRanks(rank -> work.workload() == Workload.NOISE_ALLREDUCE
                ? noise(job.comm(rank), work.input(), work.computeMicros())
                : sor(job.comm(rank), work.epsilon(), work.computeMicros(), work.maxIterations()), limit);
        List<long[]> ranks = new ArrayList<>();
        for (RankThreads.Outcome<long[]> o : outcomes) {
            if (!o.ok()) {
                throw new IllegalStateException("rank " + o.rank() + " failed: " + o.error());
            }
            ranks.add(o.value());
        }
        long[] decided = new long[4];
        long wanMessages = 0;
        PathExtension.Started started = job.extension().orElse(null);
        if (started instanceof MultiClusterLayer.Running layer) {
            decided = layer.clusterKinds().decided();
            started = layer.inner();
        }
        if (started instanceof WanEmulation.Running wan) {
            for (GatewayScheduler.Stats s : wan.stats()) {
                wanMessages += s.released();
            }
        }
        return new HostPart(ranks, decided, wanMessages);
    }

    /**
     * One process per host on this machine ({@link #main}), each running its ranks and reporting them with what its
     * cluster roots decided and its gateways released; a host that failed or sent a malformed report fails the run.
     */
    private static HostPart overTcp(JobConfig config, Work work, Duration limit, Beside beside, List<JsonNode> reports) {
        List<String> args = new ArrayList<>(work.arguments());
        args.addAll(beside.hostArguments());
        String main = beside.hostMain() != null ? beside.hostMain() : WanAllreduceBenchmark.class.getName();
        JobLauncher.Outcome outcome = JobLauncher.launch(config, main, args, limit);
        List<String> errors = new ArrayList<>(outcome.errors());
        List<HostPart> parts = new ArrayList<>();
        for (int h = 0; h < outcome.hosts().size(); h++) {
            HostResult host = outcome.hosts().get(h);
            reports.add(host == null || host.program() == null ? null : host.program().get("beside"));
            if (host == null) {
                errors.add("host " + h + " reported nothing");
                continue;
            }
            try {
                parts.add(HostPart.fromJson(host.program()));
            } catch (IllegalArgumentException e) {
                errors.add("host " + h + " sent a malformed report: " + e.getMessage());
            }
        }
        if (!errors.isEmpty()) {
            throw new IllegalStateException(String.join("; ", errors));
        }
        return HostPart.sum(parts);
    }

    /**
     * One host process of a TCP run: joins the job named by the environment, runs its ranks and reports them. Exit code
     * 0 when it ran, 1 when a rank failed, 2 for malformed arguments.
     */
    public static void main(String[] args) {
        System.exit(host(args));
    }

    /** The host process's work, its exit code returned: {@link #main} without the exit. */
    static int host(String[] args) {
        return host(args, Beside.NONE);
    }

    /**
     * A host process's work with {@code beside} running in its part of the job (made by {@link Beside#hostMain()}, which
     * passes the arguments without its own): its {@link Beside#hostReport()} travels in the report as {@code beside}.
     */
    public static int host(String[] args, Beside beside) {
        JobConfig config;
        Work work;
        try {
            config = JobLauncher.config(args);
            work = Work.of(args);
        } catch (IllegalArgumentException e) {
            System.err.println("WanAllreduceBenchmark: " + e.getMessage());
            return 2;
        }
        JobEnvironment env = JobEnvironment.current();
        try (MonitoredJob job = MonitoredJob.join(config, env, beside::listener)) {
            beside.started(job);
            HostPart part = hostPart(job, work, RANK_LIMIT);
            beside.ranksDone(job);
            ObjectNode report = (ObjectNode) part.toJson();
            JsonNode extra = beside.hostReport();
            if (extra != null) {
                report.set("beside", extra);
            }
            job.finish(report);
            return 0;
        } catch (RuntimeException e) {
            System.err.println("host " + env.host() + ": " + e.getMessage());
            return 1;
        }
    }

    /** A host process's bound on its ranks (the launcher bounds the whole job by the caller's limit). */
    private static final Duration RANK_LIMIT = Duration.ofHours(1);

    /** {wall ns, wrong answers, iterations, true answers}. */
    private static long[] noise(Comm comm, AllreduceInput input, long computeMicros) {
        int n = input.values().length;
        boolean[] expected = new boolean[n];
        for (int i = 0; i < n; i++) {
            expected[i] = input.expected(i, comm.size());
        }
        comm.barrier();
        long start = System.nanoTime();
        long wrong = 0;
        long trues = 0;
        for (int i = 0; i < n; i++) {
            compute(computeMicros);
            boolean holds = comm.allreduceUntil(input.contribution(i, comm.rank(), comm.size()), ReduceOp.SUM,
                    Condition.GREATER, input.epsilon());
            if (holds != expected[i]) {
                wrong++;
            }
            if (holds) {
                trues++;
            }
        }
        return new long[] {System.nanoTime() - start, wrong, n, trues};
    }

    /** {wall ns, 0, iterations, grid bit sum}. */
    private static long[] sor(Comm comm, double epsilon, long computeMicros, int maxIterations) {
        int rank = comm.rank();
        int size = comm.size();
        double[][] u = new double[ROWS + 2][COLUMNS + 2];
        if (rank == 0) {
            Arrays.fill(u[0], 1.0);
        }
        long[] halo = new long[COLUMNS + 2];
        comm.barrier();
        long start = System.nanoTime();
        int iterations = 0;
        boolean going = true;
        while (going && iterations < maxIterations) {
            compute(computeMicros);
            double delta = sweep(u, rank * ROWS, 0);
            exchange(comm, u, halo, rank, size);
            delta += sweep(u, rank * ROWS, 1);
            exchange(comm, u, halo, rank, size);
            going = comm.allreduceUntil(delta, ReduceOp.SUM, Condition.GREATER, epsilon);
            iterations++;
        }
        long wall = System.nanoTime() - start;
        long bits = 0;
        for (int r = 1; r <= ROWS; r++) {
            for (int c = 1; c <= COLUMNS; c++) {
                bits += Double.doubleToRawLongBits(u[r][c]);
            }
        }
        return new long[] {wall, 0, iterations, comm.allreduce(bits, ReduceOp.SUM)};
    }

    private static void compute(long micros) {
        long deadline = System.nanoTime() + micros * 1_000;
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
    }

    /** One colour's half-sweep; returns the sum of |change| (non-negative: the partial sums only grow). */
    private static double sweep(double[][] u, int firstRow, int colour) {
        double delta = 0;
        for (int r = 1; r <= ROWS; r++) {
            int globalRow = firstRow + r - 1;
            for (int c = 1 + ((globalRow + 1 + colour) & 1); c <= COLUMNS; c += 2) {
                double old = u[r][c];
                double next = old + OMEGA * (0.25 * (u[r - 1][c] + u[r + 1][c] + u[r][c - 1] + u[r][c + 1]) - old);
                u[r][c] = next;
                delta += Math.abs(next - old);
            }
        }
        return delta;
    }

    private static void exchange(Comm comm, double[][] u, long[] halo, int rank, int size) {
        for (int phase = 0; phase < 2; phase++) {
            boolean sending = (rank % 2 == 0) == (phase == 0);
            if (sending) {
                if (rank > 0) {
                    send(comm, u[1], halo, rank - 1);
                }
                if (rank + 1 < size) {
                    send(comm, u[ROWS], halo, rank + 1);
                }
            } else {
                if (rank > 0) {
                    receive(comm, u[0], halo, rank - 1);
                }
                if (rank + 1 < size) {
                    receive(comm, u[ROWS + 1], halo, rank + 1);
                }
            }
        }
    }

    private static void send(Comm comm, double[] row, long[] halo, int dest) {
        for (int c = 0; c < row.length; c++) {
            halo[c] = Double.doubleToRawLongBits(row[c]);
        }
        comm.send(dest, halo, row.length);
    }

    private static void receive(Comm comm, double[] row, long[] halo, int source) {
        int n = comm.recv(source, halo);
        for (int c = 0; c < n; c++) {
            row[c] = Double.longBitsToDouble(halo[c]);
        }
    }
}
