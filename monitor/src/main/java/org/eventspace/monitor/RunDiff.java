package org.eventspace.monitor;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Two runs' reports ({@code eventspace.run/1}) compared stage by stage (the analysis's last step, dissertation §7.1:
 * compare the old and the new configuration): the allreduce latency, and, where both runs had the statistics monitor,
 * every gred's arrival, reduce and broadcast stages, down and up latency and every port's total and arrival wait, every
 * store's and hop's latency, and the per-rank profile's operations.
 * Each row gives A, B, B/A and a verdict: faster below {@value #SAME_LOW}, slower above {@value #SAME_HIGH}, the same
 * between (runs on these shared machines differ by a few percent on their own). Each section is drawn on one scale,
 * so bars of different rows compare too. Rows only one run has are listed as such. Immutable.
 */
public final class RunDiff {
    public static final String SCHEMA = "eventspace.diff/1";
    public static final double SAME_LOW = 0.95;
    public static final double SAME_HIGH = 1.05;
    private static final int BAR = 30;

    /** One compared figure; {@code a} or {@code b} is NaN where that run lacks it. */
    public record Row(String section, String what, String unit, double a, double b) {
        public double ratio() {
            return a == 0 ? Double.NaN : b / a;
        }

        public String verdict() {
            if (Double.isNaN(a) || Double.isNaN(b)) {
                return Double.isNaN(a) ? "only in B" : "only in A";
            }
            double r = ratio();
            return Double.isNaN(r) ? "" : r < SAME_LOW ? "faster" : r > SAME_HIGH ? "slower" : "same";
        }
    }

    private final String nameA;
    private final String nameB;
    private final List<Row> rows;
    private final List<String> notes;

    private RunDiff(String nameA, String nameB, List<Row> rows, List<String> notes) {
        this.nameA = nameA;
        this.nameB = nameB;
        this.rows = List.copyOf(rows);
        this.notes = List.copyOf(notes);
    }

    /**
     * Compares run reports {@code a} and {@code b}.
     *
     * @throws IllegalArgumentException naming the run whose document is not an {@code eventspace.run/1} report.
     */
    public static RunDiff of(String nameA, JsonNode a, String nameB, JsonNode b) {
        check(nameA, a);
        check(nameB, b);
        List<Row> rows = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        String latency = a.has("pingpong_us") ? "pingpong_us" : "allreduce_us";
        for (String f : List.of("mean", "p50", "p99", "max")) {
            rows.add(new Row("latency", latency.replace("_us", "") + " " + f, "µs", number(a.path(latency).path(f)),
                    number(b.path(latency).path(f))));
        }
        rows.add(new Row("latency", "wall time", "s", number(a.path("wall_s")), number(b.path("wall_s"))));
        if (a.has("iteration_us") || b.has("iteration_us")) {
            rows.add(new Row("latency", "iteration (sort + allreduce)", "µs", number(a.path("iteration_us")),
                    number(b.path("iteration_us"))));
        }
        JsonNode wa = a.path("monitors").path("stats").path("wrappers");
        JsonNode wb = b.path("monitors").path("stats").path("wrappers");
        for (String gred : names(wa, wb)) {
            JsonNode ga = wa.path(gred);
            JsonNode gb = wb.path(gred);
            String kind = ga.path("kind").asText(gb.path("kind").asText("gred"));
            if (kind.equals("core")) {
                rows.add(new Row("stores and hops", gred + " store", "µs", number(ga.path("store_latency").path("mean")),
                        number(gb.path("store_latency").path("mean"))));
                continue;
            }
            if (kind.equals("proxy")) {
                rows.add(new Row("stores and hops", gred + " two-way", "µs", number(ga.path("two_way_latency").path("mean")),
                        number(gb.path("two_way_latency").path("mean"))));
                continue;
            }
            String section = "stages of " + gred;
            for (String stage : List.of("arrival", "reduce", "broadcast")) {
                rows.add(new Row(section, stage, "µs", number(ga.path("stages").path(stage).path("mean")),
                        number(gb.path("stages").path(stage).path("mean"))));
            }
            rows.add(new Row(section, "down", "µs", number(ga.path("down").path("mean")), number(gb.path("down").path("mean"))));
            rows.add(new Row(section, "up", "µs", number(ga.path("up").path("mean")), number(gb.path("up").path("mean"))));
            int ports = Math.max(ga.path("ports").size(), gb.path("ports").size());
            for (int p = 0; p < ports; p++) {
                JsonNode pa = ga.path("ports").path(p);
                JsonNode pb = gb.path("ports").path(p);
                String who = pa.path("contributor").asText(pb.path("contributor").asText("port " + p));
                rows.add(new Row(section, who + ": total", "µs", number(pa.path("total").path("mean")),
                        number(pb.path("total").path("mean"))));
                rows.add(new Row(section, who + ": arrival wait", "µs", number(pa.path("arrival_wait").path("mean")),
                        number(pb.path("arrival_wait").path("mean"))));
            }
        }
        if (wa.size() == 0 || wb.size() == 0) {
            notes.add("stage by stage needs --monitor stats in both runs" + (wa.size() == 0 && wb.size() == 0 ? ""
                    : " (only " + (wa.size() == 0 ? "B" : "A") + " has it)"));
        }
        JsonNode oa = a.path("monitors").path("profile").path("operations");
        JsonNode ob = b.path("monitors").path("profile").path("operations");
        for (String op : names(oa, ob)) {
            rows.add(new Row("profile", op + " mean time per rank", "µs", number(oa.path(op).path("mean_us")),
                    number(ob.path(op).path("mean_us"))));
            rows.add(new Row("profile", op + " imbalance", "%", number(oa.path(op).path("imbalance_pct")),
                    number(ob.path(op).path("imbalance_pct"))));
        }
        JsonNode la = a.path("monitors").path("loadbalance");
        JsonNode lb = b.path("monitors").path("loadbalance");
        if (la.has("slowest_rank") && lb.has("slowest_rank")) {
            notes.add("slowest rank: A " + la.path("slowest_rank").asInt() + ", B " + lb.path("slowest_rank").asInt());
        }
        return new RunDiff(nameA, nameB, rows, notes);
    }

    private static void check(String name, JsonNode doc) {
        if (doc == null || !doc.isObject() || !doc.path("schema").asText().startsWith("eventspace.run/")) {
            throw new IllegalArgumentException(name + ": expected a run report (\"schema\": \"eventspace.run/1\", what "
                    + "run --json writes), got " + (doc == null || !doc.isObject() ? "no JSON object"
                    : "schema " + clip(doc.path("schema").toString())));
        }
    }

    private static String clip(String s) {
        return s.length() <= 80 ? s : s.substring(0, 80) + "… (" + s.length() + " characters)";
    }

    private static double number(JsonNode n) {
        return n.isNumber() ? n.asDouble() : Double.NaN;
    }

    private static List<String> names(JsonNode a, JsonNode b) {
        List<String> names = new ArrayList<>();
        for (JsonNode n : List.of(a, b)) {
            Iterator<String> it = n.fieldNames();
            while (it.hasNext()) {
                String name = it.next();
                if (!names.contains(name)) {
                    names.add(name);
                }
            }
        }
        return names;
    }

    public List<Row> rows() {
        return rows;
    }

    public List<String> notes() {
        return notes;
    }

    /** The rows as text: per section, A and B drawn on the section's scale, then B/A and the verdict. */
    public String text() {
        StringBuilder out = new StringBuilder();
        out.append("A: ").append(nameA).append('\n').append("B: ").append(nameB).append('\n');
        Map<String, List<Row>> sections = new java.util.LinkedHashMap<>();
        for (Row r : rows) {
            sections.computeIfAbsent(r.section(), s -> new ArrayList<>()).add(r);
        }
        for (Map.Entry<String, List<Row>> s : sections.entrySet()) {
            Map<String, Double> scales = new java.util.LinkedHashMap<>();
            for (Row r : s.getValue()) {
                scales.merge(r.unit(), Math.max(finite(r.a()), finite(r.b())), Math::max);
            }
            StringBuilder scale = new StringBuilder();
            scales.forEach((unit, max) -> scale.append(scale.length() == 0 ? "" : ", ").append(format(max)).append(' ').append(unit));
            out.append('\n').append(s.getKey()).append(" (one scale per unit: a full bar is ").append(scale).append(")\n");
            for (Row r : s.getValue()) {
                double scaleOf = scales.get(r.unit());
                out.append("  ").append(r.what()).append(" (").append(r.unit()).append(")\n");
                out.append(String.format(Locale.ROOT, "    A %-" + BAR + "s %12s%n", bar(r.a(), scaleOf), format(r.a())));
                out.append(String.format(Locale.ROOT, "    B %-" + BAR + "s %12s   %s%s%n", bar(r.b(), scaleOf), format(r.b()),
                        Double.isNaN(r.ratio()) ? "" : String.format(Locale.ROOT, "B/A %.2f  ", r.ratio()), r.verdict()));
            }
        }
        for (String n : notes) {
            out.append('\n').append(n);
        }
        return out.append('\n').toString();
    }

    public ObjectNode toJson(ObjectMapper json) {
        List<RowJson> list = new ArrayList<>(rows.size());
        for (Row r : rows) {
            list.add(new RowJson(r.section(), r.what(), r.unit(), orNull(r.a()), orNull(r.b()), orNull(r.ratio()),
                    r.verdict()));
        }
        return json.valueToTree(new Document(SCHEMA, nameA, nameB, list, notes));
    }

    /** The {@value #SCHEMA} document. */
    @JsonPropertyOrder({"schema", "a", "b", "rows", "notes"})
    record Document(String schema, String a, String b, List<RowJson> rows, List<String> notes) {
    }

    /** A row as written: a figure a run lacks (NaN) or a ratio without a base (NaN, ±∞) is null. */
    @JsonPropertyOrder({"section", "what", "unit", "a", "b", "ratio", "verdict"})
    record RowJson(String section, String what, String unit, Double a, Double b, Double ratio, String verdict) {
    }

    private static Double orNull(double v) {
        return Double.isNaN(v) || Double.isInfinite(v) ? null : v;
    }

    private static double finite(double v) {
        return Double.isNaN(v) || Double.isInfinite(v) ? 0 : v;
    }

    private static String bar(double v, double scale) {
        if (Double.isNaN(v) || scale <= 0) {
            return "";
        }
        int n = (int) Math.round(Math.max(0, v) / scale * BAR);
        return "#".repeat(Math.min(BAR, n));
    }

    private static String format(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2f", v);
    }
}
