package org.eventspace.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

import org.eventspace.base.stats.Median;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.run.RunConfig;
import org.eventspace.run.RunEngine;
import org.eventspace.run.RunReport;
import org.eventspace.run.Workload;
import org.eventspace.sim.AllreduceModel;
import org.eventspace.sim.Costs;
import org.eventspace.sim.ScopeConfig;
import org.eventspace.sim.ScopeModel;
import org.eventspace.sim.ScopePrediction;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code simulate --validate}: runs gsum for real at each case and simulates the same case with the cost file, on
 * the same machine: the model's error on the latency a run reports ({@code allreduce_us.mean}, the slowest rank's
 * time ÷ iterations) and on the median call ({@code p50}: every rank's calls in the run, rank 0's in the model). None of these runs is one the calibration fitted.
 */
public final class ModelValidation {
    public static final String SCHEMA = "eventspace.simulate-validation/1";

    /** One case: gsum with collectors on, the run's defaults otherwise (tree {@code hier:8}, 2 trees). */
    public record Case(int ranks, int hosts, AllreduceModel.Transport transport, int iterations) {
        public static Case parse(String text) {
            String[] p = text.split("[/:]");
            if (p.length != 3) {
                throw new IllegalArgumentException("a case is RANKS/HOSTS/jvm|tcp, e.g. 64/8/tcp, got '" + text + "'");
            }
            int ranks = Integer.parseInt(p[0]);
            int hosts = Integer.parseInt(p[1]);
            AllreduceModel.Transport t = switch (p[2]) {
                case "jvm" -> AllreduceModel.Transport.JVM;
                case "tcp" -> AllreduceModel.Transport.TCP;
                default -> throw new IllegalArgumentException("a case's transport is jvm or tcp, got '" + p[2] + "'");
            };
            if (ranks < 1 || hosts < 1 || hosts > ranks) {
                throw new IllegalArgumentException("a case needs 1 <= hosts <= ranks, got '" + text + "'");
            }
            // A few seconds a run: fewer allreduces as each gets slower.
            int iterations = (int) Math.max(200, Math.min(20_000, 160_000L * (t == AllreduceModel.Transport.TCP ? 1 : 4) / ranks));
            return new Case(ranks, hosts, t, iterations);
        }

        /** A gather case runs in one JVM: the scope model is fed its in-process hop costs. */
        public Case requireOneJvm() {
            if (transport != AllreduceModel.Transport.JVM) {
                throw new IllegalArgumentException("a gather case runs in one JVM: RANKS/HOSTS/jvm, got '" + this + "'");
            }
            return this;
        }

        @Override
        public String toString() {
            return ranks + "/" + hosts + "/" + transport.name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * What one case gave; {@code modelSwitchesPerCall} and {@code modelParksPerCall} are the model's context switches
     * and parks per allreduce over the whole machine, to set beside the kernel's (docs/SIMULATION.md says how).
     */
    public record Row(Case c, double measuredMeanUs, double measuredP50Us, double modelUs, double errorMeanPct,
                      double errorP50Pct, double lowestMeanUs, double highestMeanUs, double modelP50Us,
                      double modelSwitchesPerCall, double modelParksPerCall) {
        /** Whether the model's mean is within {@value #BAR_PCT} % of the measured mean. */
        public boolean withinBar() {
            return Math.abs(errorMeanPct) <= BAR_PCT;
        }
    }

    /** The error the issue allows the model, in % of the measured figure. */
    public static final double BAR_PCT = 15;

    /** Long enough for the JIT to finish with the hot path (a 0.5 s warm-up left 8 ranks 7× slower, from stalls). */
    static final Duration WARM_UP = Duration.ofSeconds(2);
    static final int REPEATS = 3;

    public static final List<String> DEFAULT_CASES = List.of("8/1/jvm", "64/8/jvm", "256/32/jvm", "1024/128/jvm",
            "8/2/tcp", "64/8/tcp", "256/16/tcp");

    private ModelValidation() {
    }

    /** The measured side of one case: the median of the runs' means and p50s, and the range of the means. */
    public record Measured(Case c, double meanUs, double p50Us, double lowestMeanUs, double highestMeanUs) {
    }

    /** Runs each case for real ({@value #REPEATS} times) and simulates it: one row each. */
    public static List<Row> run(Costs costs, List<Case> cases, Consumer<String> progress) {
        List<Row> rows = new ArrayList<>();
        for (Case c : cases) {
            rows.add(compare(costs, measure(c), progress));
        }
        return rows;
    }

    /** Simulates again the cases of an earlier validation's document, against the measurements it holds. */
    public static List<Row> rerun(Costs costs, JsonNode earlier, String source, Consumer<String> progress) {
        if (!SCHEMA.equals(earlier.path("schema").asText())) {
            throw new IllegalArgumentException(source + ": schema: expected \"" + SCHEMA + "\", got "
                    + earlier.path("schema"));
        }
        List<Row> rows = new ArrayList<>();
        int i = 0;
        for (JsonNode o : earlier.path("cases")) {
            String where = source + ": cases[" + i++ + "]";
            for (String field : List.of("case", "iterations", "measured_mean_us", "measured_p50_us")) {
                if (o.path(field).isMissingNode()) {
                    throw new IllegalArgumentException(where + ": expected a field " + field);
                }
            }
            Case parsed;
            try {
                parsed = Case.parse(o.path("case").asText());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + ".case: " + e.getMessage());
            }
            Case c = new Case(parsed.ranks(), parsed.hosts(), parsed.transport(), o.path("iterations").asInt());
            double mean = o.path("measured_mean_us").asDouble();
            rows.add(compare(costs, new Measured(c, mean, o.path("measured_p50_us").asDouble(),
                    o.path("measured_mean_lowest_us").asDouble(mean), o.path("measured_mean_highest_us").asDouble(mean)),
                    progress));
        }
        return rows;
    }

    private static Measured measure(Case c) {
        RunConfig config = new RunConfig(Workload.GSUM, RunConfig.shortcut(c.ranks(), c.hosts(), 1, TreeShape.hier(8)),
                c.transport() == AllreduceModel.Transport.TCP ? "tcp" : "jvm", c.iterations(), 100,
                WARM_UP, Duration.ofSeconds(300), 1, "auto", 0, true, null);
        // A run's mean moves by a quarter from one run to the next here: the median of three.
        double[] means = new double[REPEATS];
        double[] p50s = new double[REPEATS];
        for (int i = 0; i < REPEATS; i++) {
            RunReport report = RunEngine.run(config);
            means[i] = report.meanUs();
            p50s[i] = report.percentileUs(50);
        }
        return new Measured(c, Median.of(means), Median.of(p50s), Arrays.stream(means).min().orElse(0),
                Arrays.stream(means).max().orElse(0));
    }

    private static Row compare(Costs costs, Measured m, Consumer<String> progress) {
        Case c = m.c();
        double mean = m.meanUs();
        double p50 = m.p50Us();
        AllreduceModel.Result r = AllreduceModel.run(costs, new AllreduceModel.Config(c.ranks(), c.hosts(),
                TreeShape.hier(8), 2, c.transport(), true, 1, costs.cores(), Math.min(c.iterations(), 400) + 20, 20));
        double model = r.latencyNs() / 1000;
        double lowest = m.lowestMeanUs();
        double highest = m.highestMeanUs();
        Row row = new Row(c, mean, p50, model, 100 * (model - mean) / mean, 100 * (r.p50Ns() / 1000 - p50) / p50, lowest,
                highest, r.p50Ns() / 1000, r.switchesPerCall(), r.parksPerCall());
        progress.accept(String.format(Locale.ROOT, "%-13s measured mean %9.1f µs (runs %.1f … %.1f), p50 %9.1f µs; model"
                + " mean %9.1f µs (%+.0f %%), p50 %9.1f µs (%+.0f %%), %.0f switches and %.1f parks a call", c, mean,
                lowest, highest, p50, model, row.errorMeanPct(), r.p50Ns() / 1000, row.errorP50Pct(), r.switchesPerCall(),
                r.parksPerCall()));
        return row;
    }

    /** Buffers small enough that a sequential scope loses tuples at every size: the gather rate says something. */
    public static final int GATHER_CAPACITY = 2;
    public static final List<String> DEFAULT_GATHER_CASES = List.of("16/16/jvm", "64/8/jvm", "256/32/jvm", "1024/128/jvm");

    /**
     * A scope's gather rate: measured (a flat sequential concat scope over buffers of {@value #GATHER_CAPACITY} tuples,
     * the median of {@value #REPEATS} runs) and the model's at the same rate of calls.
     */
    public record GatherRow(Case c, double measuredRate, double measuredRoundUs, double callsPerSecond, double modelRate,
                            double modelRoundUs) {
        public double errorPct() {
            return 100 * (modelRate - measuredRate) / measuredRate;
        }

        public boolean withinBar() {
            return Math.abs(errorPct()) <= BAR_PCT;
        }
    }

    /**
     * Runs each case with the scope and sets {@code ScopeModel} beside it, fed with the run's own rate of calls (so
     * the row judges the scope's model, not the allreduce's).
     */
    public static List<GatherRow> gather(Costs costs, List<Case> cases, Consumer<String> progress) {
        List<GatherRow> rows = new ArrayList<>();
        for (Case c : cases) {
            c.requireOneJvm();
            double[] rates = new double[REPEATS];
            double[] rounds = new double[REPEATS];
            double[] calls = new double[REPEATS];
            for (int i = 0; i < REPEATS; i++) {
                Calibration.ScopePull pull = Calibration.scopeRun(c.ranks(), c.hosts(), GATHER_CAPACITY, 0, c.iterations());
                rates[i] = pull.gatherRate();
                rounds[i] = pull.roundNs() / 1000;
                calls[i] = pull.callsPerSecond();
            }
            double perSecond = Median.of(calls);
            int collectors = (int) Math.round(2.0 * AllreduceModel.tuplesPerCall(c.ranks(), c.hosts(), TreeShape.hier(8))[0]
                    / c.hosts());
            ScopeConfig config = ScopeConfig.of(c.hosts(), TreeShape.FLAT, Calibration.inJvmScope(costs))
                    .withSharedMachine(true).withMachineRanks(c.ranks()).withBufferTuples(GATHER_CAPACITY)
                    .withLoad(collectors, perSecond / 2);
            ScopePrediction p = ScopeModel.predict(config);
            GatherRow row = new GatherRow(c, Median.of(rates), Median.of(rounds), perSecond, p.gatherRate(), p.roundNs() / 1000);
            rows.add(row);
            progress.accept(String.format(Locale.ROOT, "%-13s gather rate measured %5.1f %% (round %8.1f µs, %.0f calls/s);"
                    + " model %5.1f %% (round %8.1f µs): %+.0f %%", c, 100 * row.measuredRate(), row.measuredRoundUs(),
                    perSecond, 100 * row.modelRate(), row.modelRoundUs(), row.errorPct()));
        }
        return rows;
    }


    public static ObjectNode toJson(Costs costs, List<Row> rows, List<GatherRow> gatherRows, ObjectMapper json) {
        ObjectNode root = json.createObjectNode();
        root.put("schema", SCHEMA);
        root.put("machine", costs.machine());
        root.put("costs_date", costs.date());
        ArrayNode a = root.putArray("cases");
        for (Row r : rows) {
            ObjectNode o = a.addObject();
            o.put("case", r.c().toString());
            o.put("iterations", r.c().iterations());
            o.put("repeats", REPEATS);
            o.put("measured_mean_us", r.measuredMeanUs());
            o.put("measured_mean_lowest_us", r.lowestMeanUs());
            o.put("measured_mean_highest_us", r.highestMeanUs());
            o.put("measured_p50_us", r.measuredP50Us());
            o.put("model_us", r.modelUs());
            o.put("model_p50_us", r.modelP50Us());
            o.put("model_switches_per_call", r.modelSwitchesPerCall());
            o.put("model_parks_per_call", r.modelParksPerCall());
            o.put("error_vs_mean_pct", r.errorMeanPct());
            o.put("error_vs_p50_pct", r.errorP50Pct());
            o.put("within_15_pct_of_mean", r.withinBar());
        }
        ArrayNode g = root.putArray("gather_cases");
        for (GatherRow r : gatherRows) {
            ObjectNode o = g.addObject();
            o.put("case", r.c().toString());
            o.put("buffer_tuples", GATHER_CAPACITY);
            o.put("measured_gather_rate", r.measuredRate());
            o.put("measured_round_us", r.measuredRoundUs());
            o.put("calls_per_second", r.callsPerSecond());
            o.put("model_gather_rate", r.modelRate());
            o.put("model_round_us", r.modelRoundUs());
            o.put("error_pct", r.errorPct());
            o.put("within_15_pct", r.withinBar());
        }
        return root;
    }
}
