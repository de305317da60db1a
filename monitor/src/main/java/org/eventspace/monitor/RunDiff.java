package org.eventspace.monitor;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

import org.eventspace.monitor.model.RankRecord;
import org.eventspace.monitor.model.RunModel;
import org.eventspace.monitor.model.RunText;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Two runs compared (the analysis's last step, dissertation §7.1: compare the old and the new configuration), read
 * from their run models ({@link RunModel}), so an MPI run and one of our workloads compare alike: each run's verdict
 * (headline, culprit, coverage); per operation its calls, mean and largest time per rank and imbalance; per rank its
 * wait at collectives, lateness, late-sender wait and calls, and the rank whose wait changed most; and stage by stage,
 * where both runs had the statistics monitor, every gred's arrival, reduce and broadcast stages, down and up latency,
 * every port's total and arrival wait, every store's and hop's latency (from the {@code monitors.stats} block, the
 * one thing the model does not hold).
 *
 * <p>A row is a figure both runs have; a figure only one run has is counted in a note ("only in A"), never a row with
 * a blank side. Each row gives A, B, B/A and a verdict: lower below {@value #SAME_LOW} of A, higher above
 * {@value #SAME_HIGH}, the same between (runs on these shared machines differ by a few percent on their own). Each
 * section is drawn on one scale per unit, so bars of different rows compare too; a section whose values are all 0
 * has no bars. Immutable.
 */
public final class RunDiff {
    public static final String SCHEMA = "eventspace.diff/2";
    public static final double SAME_LOW = 0.95;
    public static final double SAME_HIGH = 1.05;
    /** Ranks the text shows in its per-rank section (those whose wait changed most); the JSON has them all. */
    public static final int RANKS_SHOWN = 8;
    static final String VERDICT = "verdict";
    static final String RUN = "run";
    static final String OPERATIONS = "per operation";
    static final String RANKS = "per rank";
    static final String LAUNCH = "start and end of the host processes";
    public static final String NO_MPI_STAGES = "MPI runs have no stages: PMPI sees calls, not a collective's hops";
    private static final int BAR = 30;

    /**
     * One run as diff reads it.
     *
     * @param name   what to call it (its file name).
     * @param model  its run model.
     * @param stats  its {@code monitors.stats} block, null when the statistics monitor did not run.
     */
    public record Run(String name, RunModel model, JsonNode stats, JsonNode launch) {
        /** A run without host processes' phases. */
        public Run(String name, RunModel model, JsonNode stats) {
            this(name, model, stats, null);
        }

        /**
         * The run of report {@code report} ({@code eventspace.run/2}), with its statistics monitor's block and, for a run
         * of host processes, its {@code launch} block (null where absent).
         *
         * @throws IllegalArgumentException naming {@code name}, when the document is not such a report.
         */
        public static Run of(String name, JsonNode report) {
            RunModel model = RunModel.read(report, name);
            JsonNode stats = report.path("monitors").get("stats");
            JsonNode launch = report.get("launch");
            return new Run(name, model, stats == null || !stats.isObject() ? null : stats,
                    launch == null || !launch.path("phases").isArray() ? null : launch);
        }

        /** The statistics monitor's per-wrapper figures, or an empty object. */
        JsonNode wrappers() {
            JsonNode w = stats == null ? null : stats.get("wrappers");
            return w == null || !w.isObject() ? JsonNodeFactory.instance.objectNode() : w;
        }
    }

    /**
     * One compared figure; both runs have it.
     *
     * @param rank  the rank it is of, null when it is not a rank's.
     * @param time  whether it is a duration of work (faster/slower) rather than an amount (lower/higher).
     */
    public record Row(String section, String what, String unit, Integer rank, double a, double b, boolean time) {
        public Row {
            if (!Double.isFinite(a) || !Double.isFinite(b)) {
                throw new IllegalArgumentException(what + ": a row compares two figures, got A " + a + ", B " + b);
            }
        }

        /** B/A, NaN when A is 0 or either is negative (a signed figure such as lateness has no ratio). */
        public double ratio() {
            return a <= 0 || b < 0 ? Double.NaN : b / a;
        }

        public String verdict() {
            if (a == b) {
                return "same";
            }
            if (a != 0) {
                double rel = (b - a) / Math.abs(a);
                if (rel >= SAME_LOW - 1 && rel <= SAME_HIGH - 1) {
                    return "same";
                }
            }
            boolean up = b > a;
            return time ? (up ? "slower" : "faster") : (up ? "higher" : "lower");
        }
    }

    /** The rank whose wait at collectives changed most between the runs: µs in A, in B. */
    public record WaitChange(int rank, double aUs, double bUs) {
        public double changeUs() {
            return bUs - aUs;
        }
    }

    private final Run a;
    private final Run b;
    private final List<Row> rows;
    private final List<String> notes;
    private final WaitChange waitChangedMost;
    private final String noWaitChange;

    private RunDiff(Run a, Run b, List<Row> rows, List<String> notes, WaitChange waitChangedMost, String noWaitChange) {
        this.a = a;
        this.b = b;
        this.rows = List.copyOf(rows);
        this.notes = List.copyOf(notes);
        this.waitChangedMost = waitChangedMost;
        this.noWaitChange = noWaitChange;
    }

    /** Compares the reports {@code a} and {@code b} ({@code eventspace.run/2}); refuses anything else, naming it. */
    public static RunDiff of(String nameA, JsonNode a, String nameB, JsonNode b) {
        return of(Run.of(nameA, a), Run.of(nameB, b));
    }

    /** Compares run {@code a} with run {@code b}. */
    public static RunDiff of(Run a, Run b) {
        Builder d = new Builder();
        RunModel ma = a.model();
        RunModel mb = b.model();
        if (!ma.kind().equals(mb.kind())) {
            d.notes.add("A is " + kindWords(ma) + ", B " + kindWords(mb) + ": only the figures both have are compared");
        }
        d.compare(RUN, "wall time", "s", null, true, ma.wallS(), mb.wallS());
        operations(d, ma, mb);
        WaitChange most = ranks(d, ma, mb);
        String noChange = most != null ? null : noWaitChange(ma, mb);
        stages(d, a, b);
        launch(d, a, b);
        List<String> notes = new ArrayList<>(d.notes);
        d.only.forEach((key, count) -> notes.add(key.text(count)));
        return new RunDiff(a, b, d.rows, notes, most, noChange);
    }

    private static String kindWords(RunModel m) {
        return m.mpi() ? "an MPI run" : "one of our workloads";
    }

    private static void operations(Builder d, RunModel a, RunModel b) {
        if (a.operations().isEmpty() && b.operations().isEmpty()) {
            d.notes.add("per operation: neither run has a profile (an MPI run always has one; ours with --monitor)");
            return;
        }
        if (a.operations().isEmpty() || b.operations().isEmpty()) {
            d.notes.add("per operation: only " + (a.operations().isEmpty() ? "B" : "A") + " has a profile (ours: "
                    + "--monitor)");
            return;
        }
        for (String op : new TreeSet<>(union(a.operations().keySet(), b.operations().keySet()))) {
            var oa = a.operations().get(op);
            var ob = b.operations().get(op);
            if (oa == null || ob == null) {
                d.onlyIn(oa == null ? "B" : "A", OPERATIONS, op, "operation");
                continue;
            }
            d.compare(OPERATIONS, op + " calls", "calls", null, false, (double) oa.calls(), (double) ob.calls());
            d.compare(OPERATIONS, op + " mean time per rank", "µs", null, true, oa.meanUs(), ob.meanUs());
            d.compare(OPERATIONS, op + " max time per rank", "µs", null, true, oa.maxUs(), ob.maxUs());
            d.compare(OPERATIONS, op + " imbalance", "%", null, false, oa.imbalancePct(), ob.imbalancePct());
        }
    }

    /** Per rank both runs have, its figures; returns the rank whose wait at collectives changed most, or null. */
    private static WaitChange ranks(Builder d, RunModel a, RunModel b) {
        List<Figure> figures = List.of(
                new Figure("wait at collectives", "µs", false, RankRecord::collectiveWaitUs),
                new Figure("lateness", "µs", false, RankRecord::latenessUs),
                new Figure("late-sender wait", "µs", false, RankRecord::lateSenderUs),
                new Figure("calls", "calls", false, r -> r.calls() == null ? null : r.calls().doubleValue()));
        WaitChange most = null;
        int onlyA = 0;
        int onlyB = 0;
        for (int r = 0; r < Math.max(a.ranks(), b.ranks()); r++) {
            RankRecord ra = a.rank(r);
            RankRecord rb = b.rank(r);
            if (ra == null || rb == null) {
                onlyA += ra != null ? 1 : 0;
                onlyB += rb != null ? 1 : 0;
                continue;
            }
            for (Figure f : figures) {
                Double x = f.of().apply(ra);
                Double y = f.of().apply(rb);
                if (x != null && y != null) {
                    d.compare(RANKS, "rank " + r + " " + f.name(), f.unit(), r, f.time(), x, y);
                } else if (x != null || y != null) {
                    d.onlyIn(x != null ? "A" : "B", RANKS, f.name(), "rank");
                }
            }
            if (ra.collectiveWaitUs() != null && rb.collectiveWaitUs() != null) {
                double change = Math.abs(rb.collectiveWaitUs() - ra.collectiveWaitUs());
                if (most == null || change > Math.abs(most.changeUs())) {
                    most = new WaitChange(r, ra.collectiveWaitUs(), rb.collectiveWaitUs());
                }
            }
        }
        // A figure 0 on every rank of both runs (late senders in a program without point-to-point) is one note, not
        // a row per rank.
        for (Figure f : figures) {
            String suffix = " " + f.name();
            List<Row> of = d.rows.stream().filter(x -> RANKS.equals(x.section()) && x.what().endsWith(suffix)).toList();
            if (!of.isEmpty() && of.stream().allMatch(x -> x.a() == 0 && x.b() == 0)) {
                d.rows.removeAll(of);
                d.notes.add("per rank: " + f.name() + " is 0 " + f.unit() + " on every rank in both runs");
            }
        }
        if (onlyA + onlyB > 0) {
            d.notes.add(String.format(Locale.ROOT, "per rank: A has %d ranks, B %d: the %d rank(s) only %s has are not "
                    + "compared", a.ranks(), b.ranks(), onlyA + onlyB, onlyA > 0 ? "A" : "B"));
        }
        return most;
    }

    private record Figure(String name, String unit, boolean time, Function<RankRecord, Double> of) {
    }

    private static String noWaitChange(RunModel a, RunModel b) {
        boolean hasA = a.perRank().stream().anyMatch(r -> r.collectiveWaitUs() != null);
        boolean hasB = b.perRank().stream().anyMatch(r -> r.collectiveWaitUs() != null);
        String why = hasA == hasB ? (hasA ? "the runs share no rank" : "neither run measured it")
                : "only " + (hasA ? "A" : "B") + " measured it";
        return "no rank's wait at collectives to compare: " + why + " (an MPI run always measures it; ours with "
                + "--monitor loadbalance)";
    }

    /**
     * The host processes' start and end, phase by phase, in seconds: a run's own cost around its work (a change to the
     * launcher or a machine's JVM start shows here and not in the wall time). Nothing when neither ran host processes.
     */
    private static void launch(Builder d, Run a, Run b) {
        if (a.launch() == null && b.launch() == null) {
            return;
        }
        if (a.launch() == null || b.launch() == null) {
            d.notes.add(LAUNCH + ": only " + (a.launch() == null ? "B" : "A") + " ran host processes (--transport tcp)");
            return;
        }
        Map<String, Double> pa = phases(a.launch());
        Map<String, Double> pb = phases(b.launch());
        Set<String> names = new LinkedHashSet<>(pa.keySet());
        names.addAll(pb.keySet());
        for (String phase : names) {
            d.compare(LAUNCH, phase, "s", null, true, pa.get(phase), pb.get(phase));
        }
    }

    private static Map<String, Double> phases(JsonNode launch) {
        Map<String, Double> phases = new LinkedHashMap<>();
        for (JsonNode p : launch.path("phases")) {
            if (p.path("phase").isTextual() && p.path("s").isNumber()) {
                phases.put(p.path("phase").asText(), p.path("s").asDouble());
            }
        }
        return phases;
    }

    /** Stage by stage from the statistics monitor's wrappers, or a note that says precisely why not. */
    private static void stages(Builder d, Run a, Run b) {
        RunModel ma = a.model();
        RunModel mb = b.model();
        if (ma.mpi() || mb.mpi()) {
            d.notes.add("stage by stage: " + (ma.mpi() && mb.mpi() ? "" : (ma.mpi() ? "A" : "B") + " is an MPI run; ")
                    + NO_MPI_STAGES);
            return;
        }
        JsonNode wa = a.wrappers();
        JsonNode wb = b.wrappers();
        if (wa.isEmpty() || wb.isEmpty()) {
            d.notes.add("stage by stage: " + (wa.isEmpty() && wb.isEmpty() ? statsWords(a, "A") + " and "
                    + statsWords(b, "B") : wa.isEmpty() ? statsWords(a, "A") : statsWords(b, "B"))
                    + " (the stages come from the statistics monitor, --monitor stats)");
            return;
        }
        for (String gred : union(names(wa), names(wb))) {
            JsonNode ga = wa.get(gred);
            JsonNode gb = wb.get(gred);
            if (ga == null || gb == null) {
                d.onlyIn(ga == null ? "B" : "A", "stages", gred, "wrapper");
                continue;
            }
            String kind = ga.path("kind").asText(gb.path("kind").asText("gred"));
            if (kind.equals("core")) {
                d.compareStat("stores and hops", gred + " store", ga.path("store_latency"), gb.path("store_latency"));
                continue;
            }
            if (kind.equals("proxy")) {
                d.compareStat("stores and hops", gred + " two-way", ga.path("two_way_latency"), gb.path("two_way_latency"));
                continue;
            }
            String section = "stages of " + gred;
            for (String stage : List.of("arrival", "reduce", "broadcast")) {
                d.compareStat(section, stage, ga.path("stages").path(stage), gb.path("stages").path(stage));
            }
            d.compareStat(section, "down", ga.path("down"), gb.path("down"));
            d.compareStat(section, "up", ga.path("up"), gb.path("up"));
            int ports = Math.max(ga.path("ports").size(), gb.path("ports").size());
            for (int p = 0; p < ports; p++) {
                JsonNode pa = ga.path("ports").path(p);
                JsonNode pb = gb.path("ports").path(p);
                String who = pa.path("contributor").asText(pb.path("contributor").asText("port " + p));
                d.compareStat(section, who + ": total", pa.path("total"), pb.path("total"));
                d.compareStat(section, who + ": arrival wait", pa.path("arrival_wait"), pb.path("arrival_wait"));
            }
        }
    }

    /** Why run {@code which} has no stages: it did not run the statistics monitor, or it joined no call. */
    private static String statsWords(Run run, String which) {
        return run.stats() == null ? which + " did not run the statistics monitor"
                : which + "'s statistics monitor joined no call";
    }

    private static List<String> names(JsonNode o) {
        List<String> out = new ArrayList<>();
        Iterator<String> it = o.fieldNames();
        it.forEachRemaining(out::add);
        return out;
    }

    private static List<String> union(Iterable<String> x, Iterable<String> y) {
        List<String> out = new ArrayList<>();
        for (Iterable<String> names : List.of(x, y)) {
            for (String n : names) {
                if (!out.contains(n)) {
                    out.add(n);
                }
            }
        }
        return out;
    }

    /** Rows and notes as they are found; figures only one run has, counted per kind. */
    private static final class Builder {
        final List<Row> rows = new ArrayList<>();
        final List<String> notes = new ArrayList<>();
        final Map<Only, Integer> only = new LinkedHashMap<>();

        void compare(String section, String what, String unit, Integer rank, boolean time, Double x, Double y) {
            boolean hasX = x != null && Double.isFinite(x);
            boolean hasY = y != null && Double.isFinite(y);
            if (hasX && hasY) {
                rows.add(new Row(section, what, unit, rank, x, y, time));
            } else if (hasX || hasY) {
                onlyIn(hasX ? "A" : "B", section, what, "figure");
            }
        }

        /** A statistic's mean ({@code {"mean": …}}) of each run. */
        void compareStat(String section, String what, JsonNode x, JsonNode y) {
            compare(section, what, "µs", null, true, x.path("mean").isNumber() ? x.path("mean").asDouble() : null,
                    y.path("mean").isNumber() ? y.path("mean").asDouble() : null);
        }

        void onlyIn(String side, String section, String what, String unit) {
            only.merge(new Only(side, section, what, unit), 1, Integer::sum);
        }
    }

    /** A figure only one run has: in which run, where, and what ({@code unit}: what a count of it counts). */
    private record Only(String side, String section, String what, String unit) {
        String text(int count) {
            String of = unit.equals("rank") ? " (" + count + (count == 1 ? " rank)" : " ranks)")
                    : count > 1 ? " (" + count + " figures)" : "";
            return section + ": " + what + of + " only in " + side;
        }
    }

    public List<Row> rows() {
        return rows;
    }

    /** What could not be compared and why: figures only one run has, sections neither has. */
    public List<String> notes() {
        return notes;
    }

    /** The rank whose wait at collectives changed most, or null when no rank has it in both runs. */
    public WaitChange waitChangedMost() {
        return waitChangedMost;
    }

    public Run a() {
        return a;
    }

    public Run b() {
        return b;
    }

    /** The first lines: the two runs, the rank whose wait changed most, each run's verdict and coverage. */
    public List<String> head() {
        List<String> out = new ArrayList<>();
        out.add("A: " + describe(a));
        out.add("B: " + describe(b));
        out.add(waitChangedMost == null ? noWaitChange : waitChangedMost.changeUs() == 0
                ? "no rank's wait at collectives changed: every rank's is the same in A and B" : String.format(Locale.ROOT,
                "the rank whose wait changed most: rank %d, its wait at collectives %s µs in A, %s µs in B (%s%s µs)",
                waitChangedMost.rank(), format(waitChangedMost.aUs()), format(waitChangedMost.bUs()),
                waitChangedMost.changeUs() >= 0 ? "+" : "", format(waitChangedMost.changeUs())));
        out.add(VERDICT + ": culprit A " + culprit(a.model()) + ", B " + culprit(b.model()));
        out.add("  A: " + a.model().verdict().headline());
        out.add("  B: " + b.model().verdict().headline());
        out.add("  A's " + RunText.coverage(a.model().coverage()));
        out.add("  B's " + RunText.coverage(b.model().coverage()));
        return out;
    }

    private static String describe(Run run) {
        RunModel m = run.model();
        return String.format(Locale.ROOT, "%s (%s, %s: %d ranks on %d host(s)%s)", run.name(), m.benchmark(),
                m.mpi() ? "MPI" : m.transport(), m.ranks(), m.hosts(),
                m.wallS() == null ? "" : String.format(Locale.ROOT, ", %.3f s", m.wallS()));
    }

    private static String culprit(RunModel m) {
        Integer c = m.verdict().slowestRank().culprit();
        return c == null ? "none" : "rank " + c;
    }

    /** The comparison as text: the head, then per section A and B drawn on the section's scale, B/A and the verdict. */
    public String text() {
        StringBuilder out = new StringBuilder();
        head().forEach(l -> out.append(l).append('\n'));
        Map<String, List<Row>> sections = new LinkedHashMap<>();
        for (Row r : rows) {
            sections.computeIfAbsent(r.section(), s -> new ArrayList<>()).add(r);
        }
        List<Integer> shown = ranksShown();
        for (Map.Entry<String, List<Row>> s : sections.entrySet()) {
            List<Row> list = s.getValue();
            String title = s.getKey();
            if (s.getKey().equals(RANKS)) {
                int ranks = (int) list.stream().map(Row::rank).distinct().count();
                list = list.stream().filter(r -> shown.contains(r.rank())).toList();
                if (shown.size() < ranks) {
                    title += " (the " + shown.size() + " of " + ranks + " ranks whose wait changed most; --json has all)";
                }
            }
            Map<String, Double> scales = new LinkedHashMap<>();
            for (Row r : list) {
                scales.merge(r.unit(), Math.max(Math.abs(r.a()), Math.abs(r.b())), Math::max);
            }
            List<String> scale = new ArrayList<>();
            scales.forEach((unit, max) -> scale.add(max > 0 ? format(max) + (unit.isEmpty() ? "" : " " + unit)
                    : (unit.isEmpty() ? "count" : unit) + ": all 0, no bars"));
            out.append('\n').append(title).append(" (one scale per unit: a full bar is ").append(String.join(", ", scale))
                    .append(")\n");
            for (Row r : list) {
                double max = scales.get(r.unit());
                out.append("  ").append(r.what()).append(r.unit().isEmpty() ? "" : " (" + r.unit() + ")").append('\n');
                out.append(String.format(Locale.ROOT, "    A %-" + BAR + "s %12s%n", bar(r.a(), max), format(r.a())));
                out.append(String.format(Locale.ROOT, "    B %-" + BAR + "s %12s   %s%s%n", bar(r.b(), max), format(r.b()),
                        Double.isNaN(r.ratio()) ? "" : String.format(Locale.ROOT, "B/A %.2f  ", r.ratio()), r.verdict()));
            }
        }
        if (!notes.isEmpty()) {
            out.append("\nnot compared:\n");
            notes.forEach(n -> out.append("  ").append(n).append('\n'));
        }
        return out.toString();
    }

    /** The ranks the text shows: every rank up to {@value #RANKS_SHOWN}, else those whose wait changed most. */
    private List<Integer> ranksShown() {
        Map<Integer, Double> change = new LinkedHashMap<>();
        for (Row r : rows) {
            if (r.rank() != null) {
                change.merge(r.rank(), r.what().endsWith(" wait at collectives") ? Math.abs(r.b() - r.a()) : 0.0,
                        Math::max);
            }
        }
        return change.entrySet().stream()
                .sorted(Map.Entry.<Integer, Double>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .limit(RANKS_SHOWN).map(Map.Entry::getKey).sorted(Comparator.naturalOrder()).toList();
    }

    public ObjectNode toJson(ObjectMapper json) {
        List<RowJson> list = new ArrayList<>(rows.size());
        for (Row r : rows) {
            double ratio = r.ratio();
            list.add(new RowJson(r.section(), r.what(), r.unit(), r.rank(), r.a(), r.b(),
                    Double.isFinite(ratio) ? ratio : null, r.verdict()));
        }
        WaitJson most = waitChangedMost == null ? null : new WaitJson(waitChangedMost.rank(), waitChangedMost.aUs(),
                waitChangedMost.bUs(), waitChangedMost.changeUs());
        return json.valueToTree(new Document(SCHEMA, RunJson.of(a), RunJson.of(b),
                new Verdicts(VerdictJson.of(a.model()), VerdictJson.of(b.model())), most, list, notes));
    }

    /** The {@value #SCHEMA} document. */
    @JsonPropertyOrder({"schema", "a", "b", "verdict", "wait_changed_most", "rows", "notes"})
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.ALWAYS)
    record Document(String schema, RunJson a, RunJson b, Verdicts verdict, WaitJson waitChangedMost, List<RowJson> rows,
                    List<String> notes) {
    }

    /** What a run is: its name (file), kind, benchmark, size and wall time (null if not measured). */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.ALWAYS)
    record RunJson(String name, String kind, String benchmark, int ranks, int hosts, Double wallS) {
        static RunJson of(Run r) {
            RunModel m = r.model();
            return new RunJson(r.name(), m.kind(), m.benchmark(), m.ranks(), m.hosts(), m.wallS());
        }
    }

    record Verdicts(VerdictJson a, VerdictJson b) {
    }

    /** A run's verdict: its headline, the rank named (null when none is) and its coverage in words. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    record VerdictJson(String headline, Integer culprit, String coverage) {
        static VerdictJson of(RunModel m) {
            return new VerdictJson(m.verdict().headline(), m.verdict().slowestRank().culprit(),
                    RunText.coverage(m.coverage()));
        }
    }

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    record WaitJson(int rank, double aUs, double bUs, double changeUs) {
    }

    /** A row as written: {@code rank} only for a rank's figure; {@code ratio} null where B/A is undefined. */
    @JsonPropertyOrder({"section", "what", "unit", "rank", "a", "b", "ratio", "verdict"})
    record RowJson(String section, String what, String unit, @JsonInclude(JsonInclude.Include.NON_NULL) Integer rank,
                   double a, double b, Double ratio, String verdict) {
    }

    private static String bar(double v, double scale) {
        if (scale <= 0) {
            return "";
        }
        int n = (int) Math.round(Math.max(0, v) / scale * BAR);
        return "#".repeat(Math.min(BAR, n));
    }

    private static String format(double v) {
        return String.format(Locale.ROOT, Math.abs(v) >= 1000 || v == Math.rint(v) ? "%.0f" : "%.2f", v);
    }
}
