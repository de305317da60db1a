package org.eventspace.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import org.eventspace.bench.Benchmark;
import org.eventspace.bench.CollectorOverhead;
import org.eventspace.bench.InterleavedOverhead;
import org.eventspace.bench.PaperTables;
import org.eventspace.bench.OffloadBenchmark;
import org.eventspace.bench.ReplayAccuracy;
import org.eventspace.bench.RunConfig;
import org.eventspace.bench.jmh.CollectorCost;
import org.eventspace.base.stats.Median;
import org.eventspace.scope.GatherMode;
import org.eventspace.trace.Replay;
import org.eventspace.trace.TimeEncoding;
import org.eventspace.trace.TraceConfig;
import org.eventspace.wan.WanAccuracy;
import org.eventspace.wan.WanFile;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code eventspace bench collector|overhead|offload|dashboard-load|fuzz}: what the event collectors cost (one write
 * against the clock reads it pays for, EventSpace paper §6.1; whole runs with collectors off and on), ToM's offload
 * benchmark through an event scope (ToM §5.2), what clients polling the dashboard cost a monitored job
 * ({@link DashboardLoad}), and the fuzz suite of the project's input formats ({@link FuzzCommand}).
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "What the event collectors cost: one collector write (JMH), or whole runs with collectors off and on; "
                + "ToM's offload benchmark through an event scope; the fuzz suite of the input formats.",
        subcommands = {BenchCommand.Collector.class, BenchCommand.Overhead.class, BenchCommand.Offload.class,
                BenchCommand.ReplayBench.class, BenchCommand.DashboardLoadCommand.class, BenchCommand.WanAccuracyCommand.class,
                BenchCommand.WanCompressionCommand.class,
                FuzzCommand.class})
final class BenchCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    private static ObjectMapper json() {
        return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    }

    /** {@code eventspace bench collector}: one collector write and one clock read, one JMH run, GC profiler. */
    @Command(name = "collector", mixinStandardHelpOptions = true,
            description = "JMH: one event collector write (both timestamps) and one System.nanoTime() in the same run, "
                    + "with the GC profiler; --json writes eventspace.bench-collector/1.")
    static final class Collector implements Callable<Integer> {
        @Option(names = "--warmup-iterations", defaultValue = "3", description = "JMH warm-up iterations. Default: ${DEFAULT-VALUE}.")
        int warmupIterations;

        @Option(names = "--iterations", defaultValue = "5", description = "JMH measured iterations. Default: ${DEFAULT-VALUE}.")
        int iterations;

        @Option(names = "--time-s", defaultValue = "1", description = "Seconds per warm-up and measured iteration. Default: ${DEFAULT-VALUE}.")
        double timeSeconds;

        @Option(names = "--forks", defaultValue = "1",
                description = "JVMs JMH forks per benchmark (0: measure in this JVM, less isolated). Default: ${DEFAULT-VALUE}.")
        int forks;

        @Option(names = "--json", description = "Write the eventspace.bench-collector/1 report to this file.")
        Path json;

        @Option(names = "--jmh-log", paramLabel = "FILE", description = "Write JMH's own output (progress, every iteration, "
                + "its tables) to this file. Without it that output is kept in memory and shown only if JMH fails.")
        Path jmhLog;

        @Override
        public Integer call() throws Exception {
            CollectorCost.Settings settings;
            try {
                settings = new CollectorCost.Settings(warmupIterations, iterations, timeSeconds, forks);
            } catch (IllegalArgumentException e) {
                throw new UsageError("--warmup-iterations/--iterations/--time-s/--forks: " + e.getMessage());
            }
            if (json != null) {
                ConfigFiles.checkWritable("--json", json);
            }
            if (jmhLog != null) {
                ConfigFiles.checkWritable("--jmh-log", jmhLog);
            }
            // JMH prints some 150 lines for two benchmarks: they go to memory (or --jmh-log), so the answer comes first.
            System.err.printf(java.util.Locale.ROOT, "bench collector: JMH, 2 benchmarks × %d fork(s) × (%d + %d) × %.3g s, "
                    + "about %.0f s%s%n", Math.max(1, forks), warmupIterations, iterations, timeSeconds,
                    2.0 * Math.max(1, forks) * (warmupIterations + iterations) * timeSeconds,
                    jmhLog == null ? "" : "; JMH's log: " + jmhLog);
            java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
            CollectorCost.Measured measured;
            try (java.io.PrintStream progress = new java.io.PrintStream(log, true, java.nio.charset.StandardCharsets.UTF_8)) {
                try {
                    measured = CollectorCost.run(settings, progress);
                } catch (Exception | Error e) {
                    progress.flush();
                    writeLog(log);
                    if (jmhLog == null) {
                        System.err.print(log.toString(java.nio.charset.StandardCharsets.UTF_8));
                    }
                    throw e;
                }
            }
            writeLog(log);
            System.out.print(CollectorCost.summary(measured, settings));
            if (jmhLog != null) {
                System.out.println("JMH's log: " + jmhLog);
            }
            if (json != null) {
                ObjectMapper mapper = json();
                mapper.writeValue(json.toFile(), CollectorCost.toJson(measured, settings, mapper));
            }
            return EventSpaceCommand.EXIT_OK;
        }

        private void writeLog(java.io.ByteArrayOutputStream log) throws java.io.IOException {
            if (jmhLog != null) {
                java.nio.file.Files.write(jmhLog, log.toByteArray());
            }
        }
    }

    /** {@code eventspace bench offload}: ToM §5.2's offload benchmark over a sweep of configurations. */
    @Command(name = "offload", mixinStandardHelpOptions = true,
            description = "ToM's offload benchmark (§5.2, Figure 8): ranks alternate work(period), an offload of a profile of "
                    + "E events into an event scope, and a barrier, while host 0 pulls the scope back to back; prints "
                    + "avg_offload_us (mean over rounds of the worst rank's offload + barrier) for every combination of the "
                    + "comma-separated values given. --json writes eventspace.bench-offload/1.")
    static final class Offload implements Callable<Integer> {
        @Option(names = "--ranks", split = ",", defaultValue = "64", description = "Ranks (threads). Default: ${DEFAULT-VALUE}.")
        List<Integer> ranks;

        @Option(names = "--hosts", defaultValue = "0",
                description = "Simulated hosts, the scope's leaves; 0: one per 4 ranks. Default: ${DEFAULT-VALUE}.")
        int hosts;

        @Option(names = "--fanout", split = ",", defaultValue = "2,4,8", description = "The scope's fan-out (hier:F). Default: ${DEFAULT-VALUE}.")
        List<Integer> fanouts;

        @Option(names = "--period-us", split = ",", defaultValue = "100,1000,10000",
                description = "Work between offloads in µs (ToM's profile period). Default: ${DEFAULT-VALUE}.")
        List<Integer> periods;

        @Option(names = "--events", defaultValue = "20", description = "Events per profile. Default: ${DEFAULT-VALUE}.")
        int events;

        @Option(names = "--reduce", split = ",", defaultValue = "none,hist",
                description = "none (concatenate) or hist (ToM's 3-phase histogram). Default: ${DEFAULT-VALUE}.")
        List<String> reduces;

        @Option(names = "--bins", defaultValue = "16", description = "Histogram bins with --reduce hist. Default: ${DEFAULT-VALUE}.")
        int bins;

        @Option(names = "--gather", defaultValue = "seq", description = "seq or par:N. Default: ${DEFAULT-VALUE}.")
        String gather;

        @Option(names = "--iterations", defaultValue = "200", description = "Timed rounds per configuration. Default: ${DEFAULT-VALUE}.")
        int iterations;

        @Option(names = "--buffer-profiles", defaultValue = "2",
                description = "Profiles per rank a host's push buffer holds before offloads block. Default: ${DEFAULT-VALUE}.")
        int bufferProfiles;

        @Option(names = "--timeout", defaultValue = "60", description = "Seconds anything may wait. Default: ${DEFAULT-VALUE}.")
        double timeoutSeconds;

        @Option(names = "--work", defaultValue = "sleep", description = "How a rank works between offloads: sleep (lets "
                + "the scope run when ranks outnumber cores) or spin (ToM's busy loop, for a core per rank). Default: ${DEFAULT-VALUE}.")
        String work;

        @Option(names = "--repeats", defaultValue = "1",
                description = "Sweeps, one after the other; each configuration reports the median over them. Default: ${DEFAULT-VALUE}.")
        int repeats;

        @Option(names = "--json", description = "Write the eventspace.bench-offload/1 report to this file.")
        Path json;

        @Override
        public Integer call() throws Exception {
            if (repeats < 1) {
                throw new UsageError("--repeats must be >= 1, got " + repeats);
            }
            if (!work.equals("sleep") && !work.equals("spin")) {
                throw new UsageError("--work must be sleep or spin, got " + work);
            }
            List<OffloadBenchmark.Config> configs = new ArrayList<>();
            for (int r : ranks) {
                for (int f : fanouts) {
                    for (String reduce : reduces) {
                        for (int p : periods) {
                            try {
                                configs.add(new OffloadBenchmark.Config(r, hosts > 0 ? hosts : Math.max(1, r / 4),
                                        f, p, events, reduce, bins, gather, iterations, bufferProfiles,
                                        Duration.ofMillis((long) (timeoutSeconds * 1000)), work.equals("spin")));
                            } catch (IllegalArgumentException e) {
                                throw new UsageError("bench offload: " + e.getMessage());
                            }
                        }
                    }
                }
            }
            try {
                GatherMode.parse(gather);
            } catch (IllegalArgumentException e) {
                throw new UsageError("--gather: " + e.getMessage());
            }
            // Whole sweeps one after the other, so a slow spell of the machine hits every configuration alike.
            List<List<OffloadBenchmark.Result>> runs = new ArrayList<>();
            for (int i = 0; i < configs.size(); i++) {
                runs.add(new ArrayList<>());
            }
            for (int rep = 0; rep < repeats; rep++) {
                for (int i = 0; i < configs.size(); i++) {
                    OffloadBenchmark.Result r = OffloadBenchmark.run(configs.get(i));
                    System.err.println("sweep " + (rep + 1) + "/" + repeats + "  " + OffloadBenchmark.line(r));
                    runs.get(i).add(r);
                }
            }
            List<OffloadBenchmark.Result> results = new ArrayList<>();
            for (List<OffloadBenchmark.Result> of : runs) {
                // The run whose avg_offload_us is the lower median, so that every figure comes from one real run.
                results.add(Median.lowerOf(of, OffloadBenchmark.Result::avgOffloadUs));
            }
            System.out.print(OffloadBenchmark.summary(results));
            if (json != null) {
                ObjectMapper mapper = json();
                mapper.writeValue(json.toFile(), OffloadBenchmark.toJson(results, runs, mapper));
            }
            return EventSpaceCommand.EXIT_OK;
        }
    }

    /** {@code eventspace bench wan-accuracy}: Longcut's emulated links against their configuration (dissertation §8.1 §V). */
    @Command(name = "wan-accuracy", mixinStandardHelpOptions = true,
            description = "Longcut's accuracy: allreduce ping-pongs of each size between two emulated sites through their "
                    + "gateways, with K connections through the gateway pair, each with the emulation and without (the LAN "
                    + "baseline); prints per (K, size) the configured and modelled two-way time, the emulated one (with minus "
                    + "without), the error and whether it is within max(5 %, 50 µs). --json writes "
                    + "eventspace.bench-wan-accuracy/1.")
    static final class WanAccuracyCommand implements Callable<Integer> {
        @Option(names = "--wan", paramLabel = "FILE", description = "Link file (docs/WAN-FORMAT.md); its first two sites "
                + "and both links between them are used. Default: examples/wan/aalborg-odense.wan of this installation.")
        Path wan;

        @Option(names = "--sizes", split = ",", defaultValue = "8,64,512,4096,16384,65536",
                description = "Message sizes in bytes (multiples of 8). Default: ${DEFAULT-VALUE}.")
        List<Integer> sizes;

        @Option(names = "--connections", split = ",", defaultValue = "1,40",
                description = "Connections through the gateway pair (ranks on the second site). Default: ${DEFAULT-VALUE}.")
        List<Integer> connections;

        @Option(names = "--iterations", defaultValue = "10", description = "Timed iterations per row. Default: ${DEFAULT-VALUE}.")
        int iterations;

        @Option(names = "--warmup", defaultValue = "2", description = "Untimed iterations first. Default: ${DEFAULT-VALUE}.")
        int warmup;

        @Option(names = "--spin-us", defaultValue = "200", description = "How long before a message's due time a gateway's "
                + "scheduler stops parking and spins. Default: ${DEFAULT-VALUE}.")
        long spinUs;

        @Option(names = "--json", description = "Write the eventspace.bench-wan-accuracy/1 report to this file.")
        Path json;

        @Override
        public Integer call() throws Exception {
            Path file = wan != null ? wan
                    : Path.of(System.getenv().getOrDefault("ES_HOME", ".")).resolve("examples/wan/aalborg-odense.wan");
            if (json != null) {
                ConfigFiles.checkWritable("--json", json);
            }
            WanAccuracy.Config config;
            try {
                config = new WanAccuracy.Config(WanFile.read(file), file, sizes, connections, iterations, warmup,
                        spinUs * 1000);
            } catch (IllegalArgumentException e) {
                throw new UsageError("bench wan-accuracy: " + e.getMessage());
            }
            List<WanAccuracy.Row> rows = WanAccuracy.run(config, System.out);
            boolean all = rows.stream().allMatch(WanAccuracy.Row::withinBar);
            System.out.println(all ? "every row within max(5 %, 50 µs) of the model"
                    : rows.stream().filter(r -> !r.withinBar()).count() + " of " + rows.size() + " rows outside max(5 %, 50 µs)");
            if (json != null) {
                ObjectMapper mapper = json();
                mapper.writeValue(json.toFile(), WanAccuracy.toJson(config, rows, mapper));
            }
            return EventSpaceCommand.EXIT_OK;
        }
    }

    /**
     * {@code eventspace bench wan-compression}: the monitors' results of a real multi-cluster run, captured as each
     * site's gather sends them through its gateway, replayed through every edge codec ({@link
     * org.eventspace.bench.WanCompression}).
     */
    @Command(name = "wan-compression", mixinStandardHelpOptions = true,
            description = "Runs BENCHMARK with run's flags (give --wan FILE --clusters C --monitor loadbalance,stats), "
                    + "captures per scope round the newest-results packet each site sends over its WAN link to the "
                    + "front-end's site, and replays it through each codec (none, deflate, cbc, cbc+deflate): bytes, ratio, "
                    + "encode and decode µs, and the emulated link's serialisation and transfer time per round. --json "
                    + "writes eventspace.bench-wan-compression/1 (instead of run's report).")
    static final class WanCompressionCommand implements Callable<Integer> {
        @picocli.CommandLine.Parameters(index = "0", paramLabel = "BENCHMARK", defaultValue = "gsum",
                description = "As for run. Default: ${DEFAULT-VALUE}.")
        String benchmark;

        @Mixin
        RunOptions options;

        @Option(names = "--codecs", split = ",", defaultValue = "none,deflate,cbc,cbc+deflate",
                description = "Codecs to replay (EdgeCodec text). Default: ${DEFAULT-VALUE}.")
        List<String> codecs;

        @Option(names = "--passes", defaultValue = "5", description = "Replays per codec; the median by CPU time is kept. "
                + "Default: ${DEFAULT-VALUE}.")
        int passes;

        @Override
        public Integer call() throws Exception {
            if (options.layout.wan == null) {
                throw new UsageError("bench wan-compression needs --wan FILE (and --clusters matching its sites)");
            }
            if (passes < 1) {
                throw new UsageError("--passes must be >= 1, got " + passes);
            }
            List<org.eventspace.scope.filter.EdgeCodec> parsed = new ArrayList<>();
            for (String c : codecs) {
                try {
                    parsed.add(org.eventspace.scope.filter.EdgeCodec.parse(c));
                } catch (IllegalArgumentException e) {
                    throw new UsageError("--codecs: " + e.getMessage());
                }
            }
            Path out = options.json;
            options.json = null;
            RunConfig config = options.toConfig(Benchmark.parse(benchmark));
            if (!config.monitoring().enabled()) {
                throw new UsageError("bench wan-compression measures the monitors' results: give --monitor");
            }
            var layout = WanFile.read(options.layout.wan);
            var edges = org.eventspace.bench.WanCompression.capture(config, layout);
            List<org.eventspace.bench.WanCompression.Figures> figures = new ArrayList<>();
            for (var codec : parsed) {
                figures.add(org.eventspace.bench.WanCompression.measure(edges, codec, passes));
            }
            for (var e : edges) {
                System.out.printf(java.util.Locale.ROOT, "site %s → front-end over %s: %d rounds, %d bytes raw%n", e.site(),
                        e.link().name(), e.packets().size(), e.packets().stream().mapToLong(b -> b.length).sum());
            }
            System.out.print(org.eventspace.bench.WanCompression.table(figures));
            if (out != null) {
                ObjectMapper mapper = json();
                mapper.writeValue(out.toFile(), org.eventspace.bench.WanCompression.json(mapper,
                        "bench wan-compression " + benchmark, edges, figures));
            }
            return EventSpaceCommand.EXIT_OK;
        }
    }

    /** {@code eventspace bench dashboard-load}: the job's overhead with N clients polling the dashboard, interleaved. */
    @Command(name = "dashboard-load", mixinStandardHelpOptions = true,
            description = "What clients polling the dashboard's API cost a monitored job: one job (the demo's compute-gsum, "
                    + "both monitors, its dashboard on loopback) runs throughout while the clients poll or idle in "
                    + "alternating blocks (ABBA pairs); prints the job's overhead per iteration with a 95 % confidence "
                    + "interval. Stops by itself after --warmup-s + --duration. --json writes eventspace.bench-dashboard-load/1.")
    static final class DashboardLoadCommand implements Callable<Integer> {
        @Option(names = "--clients", defaultValue = "50", description = "HTTP clients, a thread each. Default: ${DEFAULT-VALUE}.")
        int clients;

        @Option(names = "--duration", defaultValue = "30", paramLabel = "S",
                description = "Seconds of measured blocks (half of them with the clients polling). Default: ${DEFAULT-VALUE}.")
        double durationS;

        @Option(names = "--block-s", defaultValue = "1", description = "Seconds per block. Default: ${DEFAULT-VALUE}.")
        double blockS;

        @Option(names = "--warmup-s", defaultValue = "20", description = "Seconds before the first block, the clients "
                + "polling (the JIT compiles the job's and the serving code, the monitors make their first calls). "
                + "Default: ${DEFAULT-VALUE}.")
        double warmupS;

        @Option(names = "--poll-ms", defaultValue = "500", description = "Each client's period: one GET, the next endpoint "
                + "of the API each time (the frame changes every 500 ms). Default: ${DEFAULT-VALUE}.")
        long pollMs;

        @Option(names = "--ranks", defaultValue = "8", description = "Ranks of the job. Default: ${DEFAULT-VALUE}.")
        int ranks;

        @Option(names = "--hosts", defaultValue = "4", description = "Simulated hosts of the job. Default: ${DEFAULT-VALUE}.")
        int hosts;

        @Option(names = "--endpoints", split = ",", paramLabel = "PATH",
                description = "The API paths the clients cycle through, comma-separated (what your script or page "
                        + "polls). Default: what the page reads, health, loadbalance, stats, tree, histograms?last=1, "
                        + "timemap, cost and frame.")
        List<String> endpoints;

        @Option(names = "--front-end-cpus", paramLabel = "CPUS",
                description = "Run the dashboard's threads, the clients and the JVM's JIT compiler threads on these CPUs "
                        + "(1, 2-3, 1,3) and the job's threads on the others, as a front-end host and browsers elsewhere "
                        + "would be (needs taskset). Default: all share every CPU.")
        String frontEndCpus;

        @Option(names = "--clients-at-lowest-priority", description = "The client threads lower themselves to nice 19, as "
                + "the dashboard's own threads do: they stand in for browsers on other machines, and this measures what "
                + "serving costs the job rather than what generating the load here does. Has no effect when the whole "
                + "process runs under SCHED_IDLE (chrt -i), where nice values are ignored; the report says which.")
        boolean clientsAtLowestPriority;

        @Option(names = "--json", description = "Write the eventspace.bench-dashboard-load/1 report to this file.")
        Path json;

        @Override
        public Integer call() throws Exception {
            DashboardLoad.Config config;
            try {
                config = new DashboardLoad.Config(clients, RunOptions.seconds("--duration", durationS, 0.4, 86_400),
                        RunOptions.seconds("--block-s", blockS, 0.1, 3_600), RunOptions.seconds("--warmup-s", warmupS, 0, 3_600),
                        pollMs, ranks, hosts, clientsAtLowestPriority,
                        endpoints == null ? DashboardLoad.ENDPOINTS : endpoints, frontEndCpus == null ? null
                                : FrontEndPlacement.parse(frontEndCpus, Runtime.getRuntime().availableProcessors()));
                new org.eventspace.ui.DemoJob.Settings(ranks, hosts, "hier:2", 0, 0, 2000, 16, 200).job().pathmap();
            } catch (IllegalArgumentException e) {
                throw new UsageError("bench dashboard-load: " + e.getMessage());
            }
            if (json != null) {
                ConfigFiles.checkWritable("--json", json);
            }
            System.err.printf(java.util.Locale.ROOT, "bench dashboard-load: %d clients, %d pairs of %.1f s blocks after %.1f s "
                    + "of warm-up (about %.0f s)%n", clients, config.pairs(), blockS, warmupS,
                    warmupS + config.pairs() * 2 * blockS);
            ObjectMapper mapper = json();
            ObjectNode report = new DashboardLoad(config).run(mapper);
            System.out.print(DashboardLoad.summary(report));
            if (json != null) {
                mapper.writeValue(json.toFile(), report);
            }
            return report.path("request_errors").asLong() == 0 ? EventSpaceCommand.EXIT_OK : EventSpaceCommand.EXIT_FAILURE;
        }
    }

    /** {@code eventspace bench overhead}: runs with collectors off and on, interleaved; the median overhead. */
    @Command(name = "overhead", mixinStandardHelpOptions = true,
            description = "Run a benchmark with collectors off and on, alternately, --repeats times each; print the overhead "
                    + "(median over the pairs, and its spread). --json writes eventspace.bench-overhead/1 (not the run report); "
                    + "--collectors is ignored (both sides run); --trace-dump applies to the on-runs.")
    static final class Overhead implements Callable<Integer> {
        @Option(names = "--benchmark", defaultValue = "gsum", description = "gsum or compute-gsum. Default: ${DEFAULT-VALUE}.")
        String benchmark;

        @Option(names = "--repeats", defaultValue = "5", description = "Runs per side, interleaved off, on, off, on, … Default: ${DEFAULT-VALUE}.")
        int repeats;

        @Option(names = "--interleave", paramLabel = "BLOCK", defaultValue = "0", description = "Instead of separate runs: one "
                + "run whose calls alternate between a tree with collectors (and --monitor's analysis) and one without, "
                + "summed in blocks of BLOCK pairs; reports the paired difference with a 95 %% confidence interval over the "
                + "blocks (--iterations pairs in all). 0: separate runs. Default: ${DEFAULT-VALUE}.")
        int interleave;

        @Option(names = "--record", paramLabel = "ENCODING", description = "With --interleave: measure the trace recorder "
                + "(run --trace) instead of the collectors: calls alternate between a recording Comm (time encoding stats, "
                + "hist or path) and the bare one, no collectors on either tree; in one JVM or over TCP.")
        String record;

        @Option(names = "--table", paramLabel = "N", defaultValue = "0", description = "The EventSpace paper's Table N (1: "
                + "load balance with one event scope, the central analysis; 2: load balance with distributed analysis; 3: "
                + "the statistics monitor: analysis threads, coscheduling, sequential and parallel gathering): every row by "
                + "both methods (--repeats separate off/on pairs, and an interleaved crossover in blocks of --interleave, "
                + "default 500), printed as a Markdown table beside the paper's figures; --json writes "
                + "eventspace.bench-paper-table/1. The rows set --monitor, --coschedule, --analysis and --gather themselves. "
                + "0: no table. Default: ${DEFAULT-VALUE}.")
        int table;

        @Mixin
        RunOptions options;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            if (record != null && (interleave == 0 || table != 0)) {
                throw new UsageError("--record " + record + " needs --interleave BLOCK (and no --table)");
            }
            if (table != 0) {
                return paperTable();
            }
            // --traffic with --collectors off and --interleave: the traffic counters alone are measured.
            boolean countersAlone = options.traffic != null && interleave != 0 && record == null
                    && "off".equals(options.layout.collectors);
            if (spec.commandLine().getParseResult().hasMatchedOption("--collectors") && !countersAlone) {
                spec.commandLine().getErr().println("eventspace: bench overhead: --collectors " + options.layout.collectors
                        + " is ignored: every pair runs with collectors off, then on");
            }
            if (!benchmark.equals("gsum") && !benchmark.equals("compute-gsum")) {
                throw new UsageError("--benchmark must be gsum or compute-gsum, got " + benchmark);
            }
            Benchmark kind = Benchmark.parse(benchmark);
            if (options.traffic != null && (interleave == 0 || record != null)) {
                throw new UsageError("--traffic " + options.traffic + " with bench overhead needs --interleave BLOCK (the "
                        + "counters then count the monitored tree's messages, with its collectors or, with --collectors off, "
                        + "alone; FILE gets the first run's matrix); for one run's communication matrix use run --traffic");
            }
            if (repeats < 1) {
                throw new UsageError("--repeats must be >= 1, got " + repeats);
            }
            RunConfig config = options.toConfig(kind);
            ObjectMapper mapper = json();
            if (interleave != 0) {
                if (kind != Benchmark.GSUM) {
                    throw new UsageError("--interleave runs gsum; --benchmark " + benchmark + " cannot interleave");
                }
                if (interleave < 1 || options.iterations % interleave != 0 || options.iterations / interleave < 10) {
                    throw new UsageError("--interleave " + interleave + " must be >= 1 and divide --iterations "
                            + options.iterations + " into at least 10 blocks");
                }
                ObjectNode report;
                if (record != null) {
                    TraceConfig traceConfig;
                    try {
                        traceConfig = TraceConfig.of(TimeEncoding.parse(record));
                    } catch (IllegalArgumentException e) {
                        throw new UsageError("--record: " + e.getMessage());
                    }
                    try {
                        report = InterleavedOverhead.runRecording(config, interleave, traceConfig, mapper);
                    } catch (IllegalArgumentException e) {
                        throw new UsageError("--record: " + e.getMessage());
                    }
                } else {
                    RunConfig interleaved;
                    try {
                        // Collectors on the measured tree, unless the counters alone are measured.
                        interleaved = InterleavedOverhead.config(config.withCollectors(!countersAlone), interleave);
                    } catch (IllegalArgumentException e) {
                        throw new UsageError("--interleave: " + e.getMessage());
                    }
                    report = InterleavedOverhead.run(interleaved, mapper, options.traffic);
                }
                System.out.print(InterleavedOverhead.summary(report));
                if (options.json != null) {
                    mapper.writeValue(options.json.toFile(), report);
                }
                return report.path("result_ok").asBoolean() ? EventSpaceCommand.EXIT_OK : EventSpaceCommand.EXIT_FAILURE;
            }
            ObjectNode report = new CollectorOverhead(config, repeats).run(mapper, System.err::println);
            System.out.print(CollectorOverhead.summary(report));
            if (options.json != null) {
                mapper.writeValue(options.json.toFile(), report);
            }
            return report.path("result_ok").asBoolean() ? EventSpaceCommand.EXIT_OK : EventSpaceCommand.EXIT_FAILURE;
        }

        /** {@code --table N}: the paper's table, every row by both methods. */
        private Integer paperTable() throws Exception {
            for (String flag : List.of("--monitor", "--coschedule", "--analysis", "--gather", "--scope", "--filter", "--benchmark")) {
                if (spec.commandLine().getParseResult().hasMatchedOption(flag)) {
                    throw new UsageError("--table " + table + " sets " + flag + " itself, row by row; drop " + flag);
                }
            }
            if (table < 1 || table > 3) {
                throw new UsageError("--table must be 1, 2 or 3 (the EventSpace paper's Tables 1-3), got " + table);
            }
            if (repeats < 1) {
                throw new UsageError("--repeats must be >= 1, got " + repeats);
            }
            int block = interleave == 0 ? 500 : interleave;
            if (block < 1 || options.iterations % block != 0 || options.iterations / block < 10) {
                throw new UsageError("--interleave " + block + " must be >= 1 and divide --iterations " + options.iterations
                        + " into at least 10 blocks");
            }
            RunConfig base = options.toConfig(Benchmark.GSUM).withCollectors(true);
            ObjectMapper mapper = json();
            ObjectNode doc = PaperTables.run(table, base, repeats, block, mapper, System.err::println);
            System.out.print(PaperTables.markdown(doc));
            if (options.json != null) {
                mapper.writeValue(options.json.toFile(), doc);
            }
            return doc.path("result_ok").asBoolean() ? EventSpaceCommand.EXIT_OK : EventSpaceCommand.EXIT_FAILURE;
        }
    }

    /** {@code eventspace bench replay}: pairs of a traced run and the replay of its trace; the median error. */
    @Command(name = "replay", mixinStandardHelpOptions = true,
            description = "Replay accuracy: --pairs times, run the benchmark with --trace and replay the trace at once (same "
                    + "transport); print the median error (replay − original) / original and how far two originals differ. "
                    + "--json writes eventspace.bench-replay/1.")
    static final class ReplayBench implements Callable<Integer> {
        @Option(names = "--benchmark", defaultValue = "gsum", description = "gsum, compute-gsum or sor. Default: ${DEFAULT-VALUE}.")
        String benchmark;

        @Option(names = "--pairs", defaultValue = "5", description = "Traced runs, each followed by its replay. Default: ${DEFAULT-VALUE}.")
        int pairs;

        @Option(names = "--time-encoding", defaultValue = "hist", description = "stats, hist or path. Default: ${DEFAULT-VALUE}.")
        String timeEncoding;

        @Option(names = "--compute", defaultValue = "spin", description = "How the replay waits compute deltas: spin or sleep. "
                + "Default: ${DEFAULT-VALUE}.")
        String compute;

        @Mixin
        RunOptions options;

        @Override
        public Integer call() throws Exception {
            Benchmark kind;
            try {
                kind = Benchmark.parse(benchmark);
            } catch (IllegalArgumentException e) {
                throw new UsageError("--benchmark: " + e.getMessage());
            }
            if (kind == Benchmark.GSUM_INTERLEAVED || kind == Benchmark.PINGPONG) {
                throw new UsageError("--benchmark must be gsum, compute-gsum or sor, got " + benchmark);
            }
            if (pairs < 1) {
                throw new UsageError("--pairs must be >= 1, got " + pairs);
            }
            Replay.Compute mode = switch (compute) {
                case "spin" -> Replay.Compute.SPIN;
                case "sleep" -> Replay.Compute.SLEEP;
                default -> throw new UsageError("--compute must be spin or sleep, got " + compute);
            };
            TraceConfig traceConfig;
            try {
                traceConfig = TraceConfig.of(TimeEncoding.parse(timeEncoding));
            } catch (IllegalArgumentException e) {
                throw new UsageError("--time-encoding: " + e.getMessage());
            }
            RunConfig config = options.toConfig(kind);
            ObjectMapper mapper = json();
            ObjectNode report = ReplayAccuracy.run(config, traceConfig, mode, pairs, mapper, System.err::println);
            System.out.print(ReplayAccuracy.summary(report));
            if (options.json != null) {
                mapper.writeValue(options.json.toFile(), report);
            }
            return report.path("result_ok").asBoolean() ? EventSpaceCommand.EXIT_OK : EventSpaceCommand.EXIT_FAILURE;
        }
    }
}
