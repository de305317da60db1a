package org.eventspace.run;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import org.eventspace.base.json.Json;
import org.eventspace.comm.Comm;
import org.eventspace.comm.path.Condition;
import org.eventspace.comm.path.ReduceOp;
import org.eventspace.comm.runtime.PathExtension;
import org.eventspace.job.JobConfig;
import org.eventspace.job.MonitoredJob;
import org.eventspace.job.RankThreads;
import org.eventspace.wan.GatewayScheduler;
import org.eventspace.wan.cluster.AllreduceInput;
import org.eventspace.wan.cluster.ClusterAllreduce;
import org.eventspace.wan.cluster.MultiClusterLayer;
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
public final class MultiClusterRun {
    public static final String SCHEMA = "eventspace.run-wan-allreduce/1";

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
     * @param monitors          the run's {@code monitors} block, or null without monitors.
     */
    public record Result(Workload workload, ClusterAllreduce mode, int ranks, int clusters, int iterations,
                         double usPerIteration, long wanMessages, long[] decided, double iterationsDecidedLocally,
                         long wrongAnswers, long checksum, ObjectNode monitors) {
        /** One line for people: the figures with their units, and the wrong answers if there were any. */
        public String summary(String wanDescription) {
            return String.format(java.util.Locale.ROOT, "%s, allreduce %s, %d ranks in %d clusters%s: %d iterations, "
                            + "%.1f µs per iteration, %d WAN messages; conditional calls decided on local values %d, by a "
                            + "cached remote value %d, by the sequence-number rule %d, by the full exchange %d (summed over "
                            + "the clusters)%s%n", workload.label(), mode, ranks, clusters,
                    wanDescription == null ? "" : ", " + wanDescription, iterations, usPerIteration, wanMessages, decided[0],
                    decided[1], decided[2], decided[3], wrongAnswers == 0 ? "" : "; " + wrongAnswers + " WRONG ANSWERS");
        }

        /**
         * The run's report, {@value #SCHEMA}.
         *
         * @param wan the link file's argument, or null without WAN emulation.
         */
        public ObjectNode toJson(ObjectMapper json, String wan, long computeMicros) {
            ObjectNode doc = json.createObjectNode();
            doc.put("schema", SCHEMA);
            doc.put("benchmark", workload.label());
            doc.put("allreduce", mode.toString());
            doc.put("ranks", ranks);
            doc.put("clusters", clusters);
            doc.put("wan", wan);
            doc.put("compute_us", computeMicros);
            doc.put("iterations", iterations);
            doc.put("us_per_iteration", usPerIteration);
            doc.put("wan_messages", wanMessages);
            doc.put("iterations_decided_locally", iterationsDecidedLocally);
            ObjectNode d = doc.putObject("decided");
            d.put("local", decided[0]);
            d.put("cache", decided[1]);
            d.put("rule", decided[2]);
            d.put("full_exchange", decided[3]);
            doc.put("wrong_answers", wrongAnswers);
            doc.put("checksum", checksum);
            if (monitors != null) {
                doc.set("monitors", monitors);
            }
            return doc;
        }
    }

    private MultiClusterRun() {
    }

    /** This work's kind among the host processes' arguments ({@link RunEngine#main}). */
    static final String KIND = "multi-cluster";

    /**
     * One run of a workload: what every host process runs the same.
     *
     * @param input          noise-allreduce's values (sor: null).
     * @param epsilon        the convergence test's constant: noise-allreduce's from its input, sor's own.
     * @param computeMicros  the fixed compute time per iteration.
     * @param maxIterations  sor's bound on iterations.
     */
    public record Settings(Workload workload, ClusterAllreduce mode, AllreduceInput input, double epsilon, long computeMicros,
                           int maxIterations) {
        public Settings {
            if (workload == Workload.NOISE_ALLREDUCE && input == null) {
                throw new IllegalArgumentException("noise-allreduce needs its input values");
            }
        }

        /** noise-allreduce's epsilon comes from its input. */
        public static Settings of(Workload workload, ClusterAllreduce mode, AllreduceInput input, double sorEpsilon,
                                  long computeMicros, int maxIterations) {
            return new Settings(workload, mode, input, workload == Workload.NOISE_ALLREDUCE ? input.epsilon() : sorEpsilon,
                    computeMicros, maxIterations);
        }

        /** The host processes' arguments after the kind: workload, input file (or "-"), epsilon, compute µs, bound, mode. */
        List<String> arguments() {
            return List.of(KIND, workload.name(), input == null ? "-" : input.file().toAbsolutePath().toString(),
                    Double.toString(epsilon), Long.toString(computeMicros), Integer.toString(maxIterations), mode.name());
        }
    }

    /**
     * A run without monitors, as the tests and benchmarks start one: {@code base} as laid out (its extension, if any,
     * is the WAN emulation).
     */
    public static Result run(JobConfig base, Workload workload, ClusterAllreduce mode, AllreduceInput input,
                             double sorEpsilon, long computeMicros, int maxIterations, Duration limit) {
        return run(RunConfig.forJob(base), Settings.of(workload, mode, input, sorEpsilon, computeMicros, maxIterations), limit);
    }

    /**
     * Runs the workload through the run engine on {@code config}'s job (laid out, its extension, if any, the WAN
     * emulation) with {@code config}'s monitors; the result carries their {@code monitors} block.
     *
     * @throws IllegalStateException when a host failed or sent a malformed report, or a rank failed.
     */
    public static Result run(RunConfig config, Settings settings, Duration limit) {
        JobConfig base = config.job();
        JobConfig job = settings.mode() == ClusterAllreduce.SEQUENTIAL ? base
                : base.withExtension(new MultiClusterLayer(settings.mode(), Condition.GREATER, settings.epsilon(),
                        base.extension()));
        RunEngine.JobRun<HostPart> run = RunEngine.run(config.withJob(job), new Ranks(settings, limit), limit);
        HostPart all = run.local() != null ? run.local() : merge(run);
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
        int clusters = job.spec().topology().clusters().size();
        return new Result(settings.workload(), settings.mode(), job.spec().ranks(), clusters, (int) iterations,
                wall / 1_000.0 / iterations, all.wanMessages(), all.decided(), (double) all.decided()[0] / clusters, wrong,
                checksum, run.monitors());
    }

    /** Over TCP: every host's part summed; a host that failed or sent a malformed report fails the run. */
    private static HostPart merge(RunEngine.JobRun<HostPart> run) {
        List<String> errors = new ArrayList<>(run.errors());
        List<HostPart> parts = new ArrayList<>();
        for (int h = 0; h < run.programs().size(); h++) {
            JsonNode program = run.programs().get(h);
            if (program == null) {
                errors.add("host " + h + " reported nothing");
                continue;
            }
            try {
                parts.add(HostPart.fromJson(program));
            } catch (IllegalArgumentException e) {
                errors.add("host " + h + " sent a malformed report: " + e.getMessage());
            }
        }
        if (!errors.isEmpty()) {
            throw new IllegalStateException(String.join("; ", errors));
        }
        return HostPart.sum(parts);
    }

    /** In a host process: the work its arguments name ({@link Settings#arguments()}). */
    static HostWork<HostPart> decode(RunConfig config, List<String> args) {
        if (args.size() != 7) {
            throw new IllegalArgumentException("expected " + KIND + " <workload> <input file or -> <epsilon> <compute µs> "
                    + "<max iterations> <mode>, got " + args);
        }
        Workload workload = Workload.valueOf(args.get(1));
        AllreduceInput input = args.get(2).equals("-") ? null : AllreduceInput.read(Path.of(args.get(2)));
        Settings settings = new Settings(workload, ClusterAllreduce.valueOf(args.get(6)), input,
                Double.parseDouble(args.get(3)), Long.parseLong(args.get(4)), Integer.parseInt(args.get(5)));
        return new Ranks(settings, RANK_LIMIT);
    }

    /** The workload as the engine's {@link HostWork}: a process's ranks, its cluster roots and its gateways. */
    private record Ranks(Settings settings, Duration limit) implements HostWork<HostPart> {
        @Override
        public Part<HostPart> run(MonitoredJob job) {
            HostPart part = hostPart(job, settings, limit);
            return new Part<>(part, () -> (ObjectNode) part.toJson(), true);
        }

        @Override
        public List<String> arguments() {
            return settings.arguments();
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
    private static HostPart hostPart(MonitoredJob job, Settings work, Duration limit) {
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

    /** {wall ns, 0, iterations, grid bit sum}: the one SOR kernel ({@link Sor}), its changes summed. */
    private static long[] sor(Comm comm, double epsilon, long computeMicros, int maxIterations) {
        int rank = comm.rank();
        int size = comm.size();
        int firstRow = rank * Sor.ROWS_PER_RANK;
        double[][] u = Sor.newBlock(Sor.ROWS_PER_RANK, rank == 0);
        long[] halo = new long[Sor.COLUMNS + 2];
        comm.barrier();
        long start = System.nanoTime();
        int iterations = 0;
        boolean going = true;
        while (going && iterations < maxIterations) {
            compute(computeMicros);
            double delta = Sor.sweep(u, Sor.ROWS_PER_RANK, firstRow, 0, true);
            Sor.exchange(comm, u, halo, rank, size);
            delta += Sor.sweep(u, Sor.ROWS_PER_RANK, firstRow, 1, true);
            Sor.exchange(comm, u, halo, rank, size);
            going = comm.allreduceUntil(delta, ReduceOp.SUM, Condition.GREATER, epsilon);
            iterations++;
        }
        long wall = System.nanoTime() - start;
        return new long[] {wall, 0, iterations, comm.allreduce(Sor.bitSum(u, Sor.ROWS_PER_RANK), ReduceOp.SUM)};
    }

    private static void compute(long micros) {
        long deadline = System.nanoTime() + micros * 1_000;
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
    }
}
