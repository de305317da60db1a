package org.eventspace.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.events.CollectorSettings;
import org.eventspace.monitor.Coschedule;
import org.eventspace.monitor.MonitorKind;
import org.eventspace.monitor.model.SlowestRankRule;
import org.eventspace.mpi.MpiRun;
import org.eventspace.mpi.MpiRunConfig;
import org.eventspace.mpi.MpiRunResult;
import org.eventspace.run.Faults;
import org.eventspace.run.Monitoring;
import org.eventspace.run.RunConfig;
import org.eventspace.run.RunEngine;
import org.eventspace.run.RunReport;
import org.eventspace.run.Workload;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code eventspace bench verdict}: how often the verdict ({@link SlowestRankRule}) is wrong, measured rather than
 * assumed. Per case it runs N balanced runs, where any culprit named is a false alarm, and N runs with one rank slow,
 * where naming that rank is a hit (the test's power); the two alternate, so a load that changes while the benchmark
 * runs falls on both alike. Each share comes with its Wilson score interval at {@value #CONFIDENCE_PCT} % (exact
 * enough at small N, and never the empty interval a share of 0 of 5 would otherwise suggest).
 *
 * <p>Cases: gsum in one JVM over a few shapes (a slow rank waits {@code slowUs} before each allreduce), and, when
 * {@code mpicc} and {@code mpirun} are on the PATH, the MPI program {@code native/test/es_imbalance.c} at a few rank
 * counts through {@link MpiRun} (every rank computes {@code computeUs} per iteration, the last rank {@code factor}×
 * as long). The rule's own α bounds the false alarms of its significance test only; its minimum effect is what keeps
 * a machine's own order (oversubscribed cores) from being named, and this measures the two together.
 */
public final class VerdictRates {
    public static final String SCHEMA = "eventspace.bench-verdict/1";
    public static final int CONFIDENCE_PCT = 95;
    /** The standard normal quantile of a two-sided 95 % interval. */
    private static final double Z = 1.959963984540054;
    private static final int WARMUP_ITERATIONS = 50;

    private VerdictRates() {
    }

    /**
     * A gsum case: {@code ranks} block-mapped over {@code hosts} hosts, two trees of {@code tree}; {@code slowRank} is
     * slow in its slow runs.
     */
    public record GsumShape(int ranks, int hosts, TreeShape tree, int slowRank) {
        public GsumShape {
            if (ranks < 2 || hosts < 1 || hosts > ranks) {
                throw new IllegalArgumentException("a gsum case needs >= 2 ranks and 1..ranks hosts, got " + ranks
                        + " ranks on " + hosts + " hosts");
            }
            if (slowRank < 0 || slowRank >= ranks) {
                throw new IllegalArgumentException("the slow rank must be a rank of the case, 0.." + (ranks - 1) + ", got "
                        + slowRank);
            }
        }

        /** {@code RANKS:HOSTS:TREE:SLOW}, e.g. {@code 32:4:flat:14} or {@code 8:2:hier:8:5} (the tree may hold a colon). */
        public static GsumShape parse(String text) {
            String[] parts = text.split(":");
            if (parts.length < 4) {
                throw new IllegalArgumentException("a gsum case is RANKS:HOSTS:TREE:SLOW_RANK, e.g. 32:4:flat:14, got '"
                        + text + "'");
            }
            try {
                int ranks = Integer.parseInt(parts[0]);
                int hosts = Integer.parseInt(parts[1]);
                int slow = Integer.parseInt(parts[parts.length - 1]);
                String tree = String.join(":", List.of(parts).subList(2, parts.length - 1));
                return new GsumShape(ranks, hosts, TreeShape.parse(tree), slow);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("a gsum case is RANKS:HOSTS:TREE:SLOW_RANK with integers for RANKS, "
                        + "HOSTS and SLOW_RANK, got '" + text + "'");
            }
        }

        String label() {
            return String.format(Locale.ROOT, "gsum, %d ranks on %d hosts, %s tree", ranks, hosts, tree);
        }
    }

    /**
     * The benchmark's settings.
     *
     * @param runs          balanced runs and slow runs per case (each).
     * @param shapes        the gsum cases.
     * @param iterations    gsum's timed iterations per run.
     * @param slowUs        how long gsum's slow rank waits before each allreduce, µs.
     * @param mpiSource     {@code es_imbalance.c}; null runs no MPI case.
     * @param mpiRanks      the MPI cases' rank counts; the last rank is the slow one.
     * @param mpiIterations the MPI program's iterations ({@code -i}).
     * @param computeUs     its compute per iteration ({@code -c}), µs.
     * @param factor        how many times as long the slow rank computes ({@code -f}).
     * @param timeoutS      the longest one run may take, s.
     */
    public record Config(int runs, List<GsumShape> shapes, int iterations, long slowUs, Path mpiSource,
                         List<Integer> mpiRanks, int mpiIterations, long computeUs, double factor, long timeoutS) {
        public Config {
            shapes = List.copyOf(shapes);
            mpiRanks = List.copyOf(mpiRanks);
            if (runs < 1 || runs > 10_000) {
                throw new IllegalArgumentException("runs must be 1..10000, got " + runs);
            }
            if (iterations < 10 || mpiIterations < 10) {
                throw new IllegalArgumentException("iterations must be >= 10 (the verdict counts calls), got " + iterations
                        + " (gsum) and " + mpiIterations + " (MPI)");
            }
            if (slowUs < 1 || slowUs > Faults.MAX_MICROS || computeUs < 1 || computeUs > Faults.MAX_MICROS) {
                throw new IllegalArgumentException("the slow rank's delay and the compute must be 1.." + Faults.MAX_MICROS
                        + " µs, got " + slowUs + " and " + computeUs);
            }
            if (!(factor > 1) || factor > 1000) {
                throw new IllegalArgumentException("the slow rank's factor must be > 1 and <= 1000, got " + factor);
            }
            for (int np : mpiRanks) {
                if (np < 2 || np > 1024) {
                    throw new IllegalArgumentException("MPI rank counts must be 2..1024, got " + np);
                }
            }
            if (timeoutS < 1) {
                throw new IllegalArgumentException("the timeout must be >= 1 s, got " + timeoutS);
            }
            if (shapes.isEmpty() && (mpiSource == null || mpiRanks.isEmpty())) {
                throw new IllegalArgumentException("nothing to run: no gsum case and no MPI case");
            }
        }
    }

    /**
     * N runs of one kind: how many were hits (balanced: a culprit named, a false alarm; slow: the slow rank named), the
     * share and its interval, and what each run named (null: no culprit).
     */
    @JsonPropertyOrder({"runs", "hits", "rate_pct", "ci_low_pct", "ci_high_pct", "wrong_rank", "culprits"})
    public record Tally(int runs, int hits, @JsonProperty("rate_pct") double ratePct,
                        @JsonProperty("ci_low_pct") double ciLowPct, @JsonProperty("ci_high_pct") double ciHighPct,
                        @JsonProperty("wrong_rank") @JsonInclude(JsonInclude.Include.NON_NULL) Integer wrongRank,
                        @JsonInclude(JsonInclude.Include.ALWAYS) List<Integer> culprits) {
        static Tally of(List<Integer> culprits, Integer right) {
            int hits = 0;
            int wrong = 0;
            for (Integer c : culprits) {
                if (right == null ? c != null : right.equals(c)) {
                    hits++;
                } else if (c != null) {
                    wrong++;
                }
            }
            double[] ci = wilson(hits, culprits.size());
            return new Tally(culprits.size(), hits, round(100.0 * hits / culprits.size()), round(100 * ci[0]),
                    round(100 * ci[1]), right == null ? null : wrong, new ArrayList<>(culprits));
        }

        String text() {
            return String.format(Locale.ROOT, "%d/%d (%.0f %%, %d %% CI %.0f–%.0f %%)", hits, runs, ratePct, CONFIDENCE_PCT,
                    ciLowPct, ciHighPct);
        }
    }

    /** One case: its settings and its two tallies. */
    @JsonPropertyOrder({"workload", "case", "ranks", "hosts", "tree", "slow_rank", "fault", "false_alarms", "power",
            "wall_s"})
    public record Row(String workload, @JsonProperty("case") String label, int ranks, int hosts,
                      @JsonInclude(JsonInclude.Include.NON_NULL) String tree, @JsonProperty("slow_rank") int slowRank,
                      String fault, @JsonProperty("false_alarms") Tally falseAlarms, Tally power,
                      @JsonProperty("wall_s") double wallS) {
        String text() {
            return label + " (" + fault + "): false alarms " + falseAlarms.text() + "; right rank named " + power.text()
                    + (power.wrongRank() != null && power.wrongRank() > 0 ? ", another rank " + power.wrongRank() + "×" : "");
        }
    }

    /**
     * The rows, why the MPI cases did not run (null if they ran), and the machine's load average over the last minute
     * before and after them (negative where the system does not tell): the runs share the cores with whatever else runs.
     */
    public record Result(Config config, List<Row> rows, String mpiSkipped, double loadBefore, double loadAfter) {
    }

    /** The Wilson score interval of {@code k} hits in {@code n} at {@value #CONFIDENCE_PCT} %: {low, high}. */
    public static double[] wilson(int k, int n) {
        if (n <= 0) {
            return new double[] {0, 1};
        }
        double p = (double) k / n;
        double z2 = Z * Z;
        double centre = (p + z2 / (2 * n)) / (1 + z2 / n);
        double half = Z / (1 + z2 / n) * Math.sqrt(p * (1 - p) / n + z2 / (4.0 * n * n));
        return new double[] {Math.max(0, centre - half), Math.min(1, centre + half)};
    }

    /**
     * Runs every case, printing a line per run and per case to {@code out}.
     *
     * @param mpiSkipped null to run the MPI cases (config.mpiSource() must be set), else why they are not run.
     * @throws IllegalStateException if a run fails (its errors say why).
     */
    public static Result run(Config config, String mpiSkipped, PrintStream out) throws IOException, InterruptedException {
        double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        List<Row> rows = new ArrayList<>();
        for (GsumShape s : config.shapes()) {
            long start = System.nanoTime();
            List<Integer> balanced = new ArrayList<>();
            List<Integer> slow = new ArrayList<>();
            for (int i = 0; i < config.runs(); i++) {
                balanced.add(gsum(config, s, false, out));
                slow.add(gsum(config, s, true, out));
            }
            Row row = new Row("gsum", s.label(), s.ranks(), s.hosts(), s.tree().toString(), s.slowRank(),
                    String.format(Locale.ROOT, "rank %d waits %d µs before each allreduce", s.slowRank(), config.slowUs()),
                    Tally.of(balanced, null), Tally.of(slow, s.slowRank()), seconds(start));
            out.println(row.text());
            rows.add(row);
        }
        if (mpiSkipped == null && config.mpiSource() != null && !config.mpiRanks().isEmpty()) {
            Path dir = Files.createTempDirectory("eventspace-bench-verdict-");
            try {
                Path program = compile(config.mpiSource(), dir, config.timeoutS());
                for (int np : config.mpiRanks()) {
                    long start = System.nanoTime();
                    List<Integer> balanced = new ArrayList<>();
                    List<Integer> slow = new ArrayList<>();
                    for (int i = 0; i < config.runs(); i++) {
                        balanced.add(mpi(config, program, np, false, dir, out));
                        slow.add(mpi(config, program, np, true, dir, out));
                    }
                    Row row = new Row("mpi", String.format(Locale.ROOT, "es_imbalance, %d MPI ranks", np), np, 1, null,
                            np - 1, String.format(Locale.ROOT, "rank %d computes %s× as long (%s instead of %d µs an iteration)",
                            np - 1, trim(config.factor()), trim(config.factor() * config.computeUs()), config.computeUs()),
                            Tally.of(balanced, null), Tally.of(slow, np - 1), seconds(start));
                    out.println(row.text());
                    rows.add(row);
                }
            } finally {
                deleteTree(dir);
            }
        }
        return new Result(config, rows, mpiSkipped, loadBefore,
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    private static Integer gsum(Config config, GsumShape s, boolean slow, PrintStream out) {
        RunConfig run = new RunConfig(Workload.GSUM, RunConfig.shortcut(s.ranks(), s.hosts(), 1, s.tree()), "jvm",
                config.iterations(), WARMUP_ITERATIONS, Duration.ZERO, Duration.ofSeconds(config.timeoutS()), 1, "auto", 0,
                true, null, CollectorSettings.ALL, 0, null)
                .withMonitoring(new Monitoring(Set.of(MonitorKind.LOADBALANCE), Coschedule.NONE),
                        slow ? new Faults(s.slowRank(), config.slowUs(), 0, 0) : Faults.NONE);
        RunReport report = RunEngine.run(run);
        if (!report.resultOk() || !report.errors().isEmpty()) {
            throw new IllegalStateException(s.label() + (slow ? ", slow" : ", balanced") + " run failed: "
                    + report.errors());
        }
        Integer culprit = report.model().verdict().slowestRank().culprit();
        out.println("  " + s.label() + (slow ? ", rank " + s.slowRank() + " slow" : ", balanced") + ": "
                + report.model().verdict().slowestRank().words());
        return culprit;
    }

    private static Integer mpi(Config config, Path program, int np, boolean slow, Path dir, PrintStream out)
            throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("-i", Integer.toString(config.mpiIterations()), "-c",
                Long.toString(config.computeUs())));
        if (slow) {
            args.addAll(List.of("-s", Integer.toString(np - 1), "-f", trim(config.factor())));
        }
        Path traces = Files.createTempDirectory(dir, "run-");
        try {
            MpiRunResult result = new MpiRun(new MpiRunConfig(np, program.toString(), args, traces,
                    MpiRunConfig.DEFAULT_CAPACITY, 0, 0, "mpirun", "mpicc", List.of(), config.timeoutS(),
                    MpiRunConfig.MONITORS, true, 0, null)).run();
            if (result.exitCode() == null || result.exitCode() != 0 || !result.model().resultOk()) {
                throw new IllegalStateException("es_imbalance -np " + np + " " + String.join(" ", args) + " failed (exit "
                        + result.exitCode() + "): " + result.model().errors());
            }
            out.println("  es_imbalance -np " + np + (slow ? ", rank " + (np - 1) + " slow" : ", balanced") + ": "
                    + result.model().verdict().slowestRank().words());
            return result.model().verdict().slowestRank().culprit();
        } finally {
            deleteTree(traces);
        }
    }

    /** {@code source} compiled with mpicc into {@code dir}. */
    private static Path compile(Path source, Path dir, long timeoutS) throws IOException, InterruptedException {
        if (!Files.isRegularFile(source)) {
            throw new IllegalArgumentException("the MPI program's source " + source + " does not exist");
        }
        Path program = dir.resolve("es_imbalance");
        Process cc = new ProcessBuilder("mpicc", "-O2", "-o", program.toString(), source.toString())
                .redirectErrorStream(true).start();
        String log = new String(cc.getInputStream().readAllBytes());
        if (!cc.waitFor(Math.min(timeoutS, 300), TimeUnit.SECONDS)) {
            cc.destroyForcibly();
            throw new IllegalStateException("mpicc " + source + " did not finish in " + Math.min(timeoutS, 300) + " s");
        }
        if (cc.exitValue() != 0) {
            throw new IllegalStateException("mpicc " + source + " failed (exit " + cc.exitValue() + "): " + log.strip());
        }
        return program;
    }

    /** The {@code eventspace.bench-verdict/1} document. */
    public static ObjectNode toJson(Result result, ObjectMapper json) {
        Config c = result.config();
        ObjectNode root = json.createObjectNode();
        root.put("schema", SCHEMA);
        ObjectNode settings = root.putObject("settings");
        settings.put("runs_per_case", c.runs());
        settings.put("gsum_iterations", c.iterations());
        settings.put("gsum_warmup", WARMUP_ITERATIONS);
        settings.put("gsum_slow_us", c.slowUs());
        settings.put("gsum_transport", "jvm");
        settings.put("mpi_iterations", c.mpiIterations());
        settings.put("mpi_compute_us", c.computeUs());
        settings.put("mpi_slow_factor", c.factor());
        settings.put("alpha", SlowestRankRule.ALPHA);
        settings.put("min_effect_pct", SlowestRankRule.MIN_EFFECT_PCT);
        settings.put("confidence_pct", CONFIDENCE_PCT);
        settings.put("interval", "wilson");
        root.put("cores", Runtime.getRuntime().availableProcessors());
        root.put("load_average_before", round(result.loadBefore()));
        root.put("load_average_after", round(result.loadAfter()));
        ObjectNode mpi = root.putObject("mpi");
        mpi.put("ran", result.mpiSkipped() == null && c.mpiSource() != null && !c.mpiRanks().isEmpty());
        mpi.put("program", c.mpiSource() == null ? null : c.mpiSource().toAbsolutePath().toString());
        mpi.put("skipped", result.mpiSkipped());
        root.set("rows", json.valueToTree(result.rows()));
        return root;
    }

    private static double seconds(long startNanos) {
        return Math.round((System.nanoTime() - startNanos) / 1e6) / 1e3;
    }

    private static double round(double x) {
        return Math.round(x * 10) / 10.0;
    }

    private static String trim(double x) {
        return x == Math.rint(x) ? Long.toString((long) x) : Double.toString(x);
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
