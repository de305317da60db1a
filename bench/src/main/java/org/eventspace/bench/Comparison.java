package org.eventspace.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

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
    /** One line of the comparison: our run and the Open MPI run it is measured against. */
    public record Case(String label, Workload benchmark, String transport, int ranks, int hosts, String mpiBenchmark,
                       int mpiProcesses, String btl, boolean collectors) {
        public Case(String label, Workload benchmark, String transport, int ranks, int hosts, String mpiBenchmark,
                    int mpiProcesses, String btl) {
            this(label, benchmark, transport, ranks, hosts, mpiBenchmark, mpiProcesses, btl, false);
        }

        Case withCollectors(boolean on) {
            return new Case(label + (on ? ", collectors on" : ", collectors off"), benchmark, transport, ranks, hosts,
                    mpiBenchmark, mpiProcesses, btl, on);
        }
    }

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

    /** The configurations of the communication-system issue's bars, plus 4 and 8 ranks. */
    public static List<Case> defaultCases(boolean withTcp) {
        List<Case> cases = new ArrayList<>();
        for (int ranks : new int[] {2, 4, 8}) {
            cases.add(new Case("allreduce " + ranks + " ranks, one JVM vs shared memory", Workload.GSUM, "jvm", ranks, 1,
                    "allreduce", ranks, "shm"));
        }
        cases.add(new Case("pingpong 2 ranks, one JVM vs shared memory", Workload.PINGPONG, "jvm", 2, 1, "pingpong", 2, "shm"));
        if (withTcp) {
            for (int ranks : new int[] {2, 4, 8}) {
                cases.add(new Case("allreduce " + ranks + " processes, TCP vs TCP", Workload.GSUM, "tcp", ranks, ranks,
                        "allreduce", ranks, "tcp"));
            }
            cases.add(new Case("pingpong 2 processes, TCP vs TCP", Workload.PINGPONG, "tcp", 2, 2, "pingpong", 2, "tcp"));
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
                RunConfig config = new RunConfig(k.benchmark(), RunConfig.shortcut(k.ranks(), k.hosts(), 1, TreeShape.hier(8)),
                        k.transport(), iterations, warmup, Duration.ofSeconds(60), 1).withCollectors(k.collectors());
                RunReport report = RunEngine.run(config);
                ok[c] &= report.resultOk();
                ours[c][rep] = report.meanUs();
                oursP50[c][rep] = report.percentileUs(50);
                JsonNode baseline = mpi.run(k.mpiBenchmark(), k.mpiProcesses(), k.btl(), iterations);
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
            row.put("ours_mean_us", Median.of(ours[c]));
            row.put("mpi_mean_us", Median.of(theirs[c]));
            row.put("ratio_mean", Median.of(ours[c]) / Median.of(theirs[c]));
            row.put("ours_p50_us", Median.of(oursP50[c]));
            row.put("mpi_p50_us", Median.of(theirsP50[c]));
            row.put("ratio_p50", Median.of(oursP50[c]) / Median.of(theirsP50[c]));
            row.put("result_ok", ok[c]);
        }
        return root;
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
        }
        out.append(String.format(Locale.ROOT, "medians of %d interleaved repeats, %d iterations each, %d cores%n",
                report.path("repeats").asInt(), report.path("iterations").asInt(), report.path("cores").asInt()));
        out.append("cache-line round trip between two threads before each repeat (ns): ")
                .append(report.path("cacheline_round_trip_ns")).append('\n');
        return out.toString();
    }
}
