package org.eventspace.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

import org.eventspace.comm.launch.CpuBinding;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.base.stats.Median;
import org.eventspace.run.Workload;
import org.eventspace.run.RunEngine;
import org.eventspace.run.RunConfig;
import org.eventspace.run.RunReport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Ours against Open MPI, configuration by configuration, in one run (our side with or without its event collectors): each repeat runs every configuration
 * once on each side, interleaved, and the report takes the median over repeats of each side's mean latency.
 * Ratios (ours / Open MPI) are what we quote; absolute figures move with the machine's load.
 */
public final class Comparison {
    /**
     * One line of the comparison: our run and the Open MPI run it is measured against. {@code binding} applies to both
     * sides of a TCP case (our host processes, mpirun's ranks); {@code tree} is our side's pathmap shape.
     */
    public record Case(String label, Workload benchmark, String transport, int ranks, int hosts, String mpiBenchmark,
                       int mpiProcesses, String btl, boolean collectors, CpuBinding binding, TreeShape tree) {
        public Case(String label, Workload benchmark, String transport, int ranks, int hosts, String mpiBenchmark,
                    int mpiProcesses, String btl) {
            this(label, benchmark, transport, ranks, hosts, mpiBenchmark, mpiProcesses, btl, false, CpuBinding.NONE,
                    DEFAULT_JVM_TREE);
        }

        Case withCollectors(boolean on) {
            return new Case(label + (on ? ", collectors on" : ", collectors off"), benchmark, transport, ranks, hosts,
                    mpiBenchmark, mpiProcesses, btl, on, binding, tree);
        }

        /** The same case with our side's tree {@code shape}. */
        public Case withTree(TreeShape shape) {
            return new Case(label, benchmark, transport, ranks, hosts, mpiBenchmark, mpiProcesses, btl, collectors, binding,
                    shape);
        }

        /** The same case with both sides bound as {@code how} says (a TCP case; in one JVM nothing is bound). */
        Case bound(CpuBinding how) {
            return new Case(label + (how == CpuBinding.CORE ? ", bound to cores" : ", unbound"), benchmark, transport, ranks,
                    hosts, mpiBenchmark, mpiProcesses, btl, collectors, how, tree);
        }
    }

    /** Our tree in one JVM: one gred joins up to 8 ranks, as the communication system's bars were measured. */
    public static final TreeShape DEFAULT_JVM_TREE = TreeShape.hier(8);
    /**
     * Our tree between host processes: the butterfly, one message each way per round as Open MPI's small-message
     * allreduce (recursive doubling), driven by the ranks' own threads.
     */
    public static final TreeShape DEFAULT_TCP_TREE = TreeShape.butterfly(Integer.MAX_VALUE);

    /**
     * Every case of {@code cases} with our side's collectors as {@code collectors} says: {@code off} (the cases as they
     * are), {@code on}, or {@code both} (each case twice, off then on, in the same repeat against the same Open MPI run's
     * neighbours, so the two ratios are taken under the same load).
     *
     * @throws IllegalArgumentException for another word.
     */
    public static List<Case> withCollectors(List<Case> cases, String collectors) {
        List<Case> out = new ArrayList<>();
        for (Case k : cases) {
            switch (collectors) {
                case "off" -> out.add(k);
                case "on" -> out.add(k.withCollectors(true));
                case "both" -> {
                    out.add(k.withCollectors(false));
                    out.add(k.withCollectors(true));
                }
                default -> throw new IllegalArgumentException("collectors must be off, on or both, got " + collectors);
            }
        }
        return out;
    }

    /**
     * The configurations of the communication-system issue's bars, plus 4 and 8 ranks; every TCP case bound to cores
     * and unbound, one after the other in each repeat (so their ratio is taken under the same load).
     */
    public static List<Case> defaultCases(boolean withTcp) {
        List<Case> cases = new ArrayList<>();
        for (int ranks : new int[] {2, 4, 8}) {
            cases.add(new Case("allreduce " + ranks + " ranks, one JVM vs shared memory", Workload.GSUM, "jvm", ranks, 1,
                    "allreduce", ranks, "shm"));
        }
        cases.add(new Case("pingpong 2 ranks, one JVM vs shared memory", Workload.PINGPONG, "jvm", 2, 1, "pingpong", 2, "shm"));
        if (withTcp) {
            List<Case> tcp = new ArrayList<>();
            for (int ranks : new int[] {2, 4, 8}) {
                tcp.add(new Case("allreduce " + ranks + " processes, TCP vs TCP", Workload.GSUM, "tcp", ranks, ranks,
                        "allreduce", ranks, "tcp").withTree(DEFAULT_TCP_TREE));
            }
            tcp.add(new Case("pingpong 2 processes, TCP vs TCP", Workload.PINGPONG, "tcp", 2, 2, "pingpong", 2, "tcp")
                    .withTree(DEFAULT_TCP_TREE));
            for (Case k : tcp) {
                cases.add(k.bound(CpuBinding.CORE));
                cases.add(k.bound(CpuBinding.NONE));
            }
        }
        return cases;
    }

    private final MpiBaseline mpi;
    private final int iterations;
    private final int warmup;
    private final int repeats;

    public Comparison(MpiBaseline mpi, int iterations, int warmup, int repeats) {
        if (repeats < 1) {
            throw new IllegalArgumentException("repeats must be >= 1, repeats=" + repeats);
        }
        this.mpi = mpi;
        this.iterations = iterations;
        this.warmup = warmup;
        this.repeats = repeats;
    }

    /** Runs every case {@code repeats} times, interleaved, and returns the eventspace.compare/1 document. */
    public ObjectNode run(List<Case> cases, ObjectMapper json, Consumer<String> progress) {
        double[][] ours = new double[cases.size()][repeats];
        double[][] theirs = new double[cases.size()][repeats];
        double[][] oursP50 = new double[cases.size()][repeats];
        double[][] theirsP50 = new double[cases.size()][repeats];
        boolean[] ok = new boolean[cases.size()];
        Arrays.fill(ok, true);
        double[] cacheLine = new double[repeats];
        for (int rep = 0; rep < repeats; rep++) {
            cacheLine[rep] = CacheLineProbe.roundTripNanos();
            progress.accept(String.format(Locale.ROOT, "repeat %d/%d  cache-line round trip between two threads: %.0f ns",
                    rep + 1, repeats, cacheLine[rep]));
            for (int c = 0; c < cases.size(); c++) {
                Case k = cases.get(c);
                // The communication system against Open MPI, our side with or without its event collectors (what the
                // collectors alone cost is measured against runs without them: bench overhead).
                RunConfig config = new RunConfig(k.benchmark(), RunConfig.shortcut(k.ranks(), k.hosts(), 1, k.tree()),
                        k.transport(), iterations, warmup, Duration.ofSeconds(60), 1).withCollectors(k.collectors());
                config = config.withJob(config.job().withBinding(k.binding()));
                RunReport report = RunEngine.run(config);
                ok[c] &= report.resultOk();
                ours[c][rep] = report.meanUs();
                oursP50[c][rep] = report.percentileUs(50);
                JsonNode baseline = mpi.run(k.mpiBenchmark(), k.mpiProcesses(), k.btl(), iterations,
                        k.transport().equals("tcp") ? k.binding() : null);
                ok[c] &= baseline.path("result_ok").asBoolean(false);
                theirs[c][rep] = baseline.path("mean_us").asDouble();
                theirsP50[c][rep] = baseline.path("p50_us").asDouble();
                progress.accept(String.format(Locale.ROOT, "repeat %d/%d  %-50s ours %8.2f µs  Open MPI %8.2f µs", rep + 1,
                        repeats, k.label(), ours[c][rep], theirs[c][rep]));
            }
        }
        ObjectNode root = json.createObjectNode();
        root.put("schema", "eventspace.compare/1");
        root.put("iterations", iterations);
        root.put("warmup", warmup);
        root.put("repeats", repeats);
        root.put("cores", Runtime.getRuntime().availableProcessors());
        ArrayNode probe = root.putArray("cacheline_round_trip_ns");
        for (double ns : cacheLine) {
            probe.add(Math.round(ns));
        }
        root.put("date", Instant.now().toString());
        ArrayNode rows = root.putArray("cases");
        for (int c = 0; c < cases.size(); c++) {
            Case k = cases.get(c);
            ObjectNode row = rows.addObject();
            row.put("label", k.label());
            row.put("benchmark", k.benchmark().label());
            row.put("transport", k.transport());
            row.put("ranks", k.ranks());
            row.put("hosts", k.hosts());
            row.put("mpi_btl", k.btl());
            row.put("collectors", k.collectors() ? "on" : "off");
            row.put("tree", k.tree().toString());
            if (k.transport().equals("tcp")) {
                row.put("binding", k.binding().label());
            }
            row.put("ours_mean_us", Median.of(ours[c]));
            row.put("mpi_mean_us", Median.of(theirs[c]));
            row.put("ratio_mean", Median.of(ours[c]) / Median.of(theirs[c]));
            row.put("ours_p50_us", Median.of(oursP50[c]));
            row.put("mpi_p50_us", Median.of(theirsP50[c]));
            row.put("ratio_p50", Median.of(oursP50[c]) / Median.of(theirsP50[c]));
            row.put("result_ok", ok[c]);
        }
        addBindingRatios(cases, ours, rows);
        return root;
    }

    /**
     * On each bound TCP row whose unbound twin ran too: our bound mean ÷ our unbound mean, the median of the repeats'
     * ratios (each repeat ran the two back to back).
     */
    private static void addBindingRatios(List<Case> cases, double[][] ours, ArrayNode rows) {
        for (int c = 0; c < cases.size(); c++) {
            Case k = cases.get(c);
            if (!k.transport().equals("tcp") || k.binding() != CpuBinding.CORE) {
                continue;
            }
            for (int u = 0; u < cases.size(); u++) {
                Case other = cases.get(u);
                if (other.binding() == CpuBinding.NONE && other.transport().equals("tcp") && other.benchmark() == k.benchmark()
                        && other.ranks() == k.ranks() && other.hosts() == k.hosts() && other.collectors() == k.collectors()
                        && other.tree().equals(k.tree())) {
                    double[] ratios = new double[ours[c].length];
                    for (int rep = 0; rep < ratios.length; rep++) {
                        ratios[rep] = ours[c][rep] / ours[u][rep];
                    }
                    ((ObjectNode) rows.get(c)).put("ours_bound_vs_unbound", Median.of(ratios));
                }
            }
        }
    }

    private static String treesOf(JsonNode report) {
        java.util.Set<String> trees = new java.util.LinkedHashSet<>();
        for (JsonNode row : report.path("cases")) {
            trees.add(row.path("transport").asText() + " " + row.path("tree").asText("hier:8"));
        }
        return String.join(", ", trees);
    }

    /** The comparison as a table for people. */
    public static String table(JsonNode report) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%-64s %12s %12s %7s %11s %11s %7s%n", "configuration", "ours mean", "MPI mean",
                "ratio", "ours p50", "MPI p50", "ratio"));
        for (JsonNode row : report.path("cases")) {
            out.append(String.format(Locale.ROOT, "%-64s %9.2f µs %9.2f µs %6.2fx %8.2f µs %8.2f µs %6.2fx%s%n",
                    row.path("label").asText(), row.path("ours_mean_us").asDouble(), row.path("mpi_mean_us").asDouble(),
                    row.path("ratio_mean").asDouble(), row.path("ours_p50_us").asDouble(), row.path("mpi_p50_us").asDouble(),
                    row.path("ratio_p50").asDouble(), row.path("result_ok").asBoolean() ? "" : "  WRONG RESULT"));
            if (row.has("ours_bound_vs_unbound")) {
                out.append(String.format(Locale.ROOT, "    ours bound ÷ ours unbound (median of the repeats' ratios): %.2fx%n",
                        row.path("ours_bound_vs_unbound").asDouble()));
            }
        }
        out.append(String.format(Locale.ROOT, "medians of %d interleaved repeats, %d iterations each, %d cores; our trees: %s%n",
                report.path("repeats").asInt(), report.path("iterations").asInt(), report.path("cores").asInt(),
                treesOf(report)));
        out.append("cache-line round trip between two threads before each repeat (ns): ")
                .append(report.path("cacheline_round_trip_ns")).append('\n');
        return out.toString();
    }
}
