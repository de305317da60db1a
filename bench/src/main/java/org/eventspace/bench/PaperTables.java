package org.eventspace.bench;

import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.job.ScopeSettings;
import org.eventspace.monitor.Analysis;
import org.eventspace.monitor.Coschedule;
import org.eventspace.monitor.MonitorKind;
import org.eventspace.scope.GatherMode;
import org.eventspace.scope.filter.FilterSpec;
import org.eventspace.run.RunConfig;
import org.eventspace.run.RunReport;
import org.eventspace.run.Faults;
import org.eventspace.run.Monitoring;

/**
 * The EventSpace paper's Tables 1–3 (§6.2–6.3) measured here, one command per table ({@code bench overhead --table N}):
 * each row is a configuration of the monitors, run by both methods — the paper's own (separate off and on runs,
 * alternated, {@link CollectorOverhead}) and the interleaved one ({@link InterleavedOverhead}, whose confidence interval
 * resolves a tenth of a percent but which sees only the work done inside the monitored calls) — beside the paper's
 * figures. The paper ran 32–49 hosts of one or more clusters; a row here runs the job the base flags give (two
 * processes over TCP on this machine, say), so only the rows of one cluster have a counterpart.
 */
public final class PaperTables {
    public static final String SCHEMA = "eventspace.bench-paper-table/1";

    /** One row: what it is, the paper's overhead and gather rate for its counterpart, and how it sets up a run. */
    record Row(String label, String paperOverhead, String paperGatherRate, UnaryOperator<RunConfig> setup) {
    }

    private PaperTables() {
    }

    /** The rows of table {@code table} (1, 2 or 3). */
    static List<Row> rows(int table) {
        Set<MonitorKind> lb = EnumSet.of(MonitorKind.LOADBALANCE);
        Set<MonitorKind> stats = EnumSet.of(MonitorKind.STATS);
        return switch (table) {
            case 1 -> List.of(
                    new Row("event collectors", "none–1 %", "", c -> c),
                    new Row("load balance, central, sequential gather", "tuples discarded", "",
                            c -> monitored(c, lb, Coschedule.NONE, Analysis.CENTRAL, "seq")),
                    new Row("load balance, central, parallel gather", "0.4 %", "",
                            c -> monitored(c, lb, Coschedule.NONE, Analysis.CENTRAL, "par:2")));
            case 2 -> List.of(
                    new Row("load balance, distributed, sequential gather", "2 %", "51 %",
                            c -> monitored(c, lb, Coschedule.NONE, Analysis.DISTRIBUTED, "seq")),
                    new Row("load balance, distributed, parallel gather", "2 %", "99 %",
                            c -> monitored(c, lb, Coschedule.NONE, Analysis.DISTRIBUTED, "par:2")));
            case 3 -> List.of(
                    new Row("event collectors", "none–1 %", "", c -> c),
                    new Row("statistics, analysis threads (no gathering)", "5–9 %", "",
                            c -> monitored(c, stats, Coschedule.NONE, Analysis.DISTRIBUTED, null)),
                    new Row("  with coscheduling (i)", "3 %", "", c -> monitored(c, stats, Coschedule.I, Analysis.DISTRIBUTED, null)),
                    new Row("  with coscheduling (ii)", "1 %", "", c -> monitored(c, stats, Coschedule.II, Analysis.DISTRIBUTED, null)),
                    new Row("  (ii), sequential gather", "2 %", "50 % wrapper, 69 % thread",
                            c -> monitored(c, stats, Coschedule.II, Analysis.DISTRIBUTED, "seq")),
                    new Row("  (ii), parallel gather", "2 %", "77 % wrapper, 99 % thread",
                            c -> monitored(c, stats, Coschedule.II, Analysis.DISTRIBUTED, "par:2")));
            default -> throw new IllegalArgumentException("the EventSpace paper's tables are 1, 2 and 3, got " + table);
        };
    }

    /** {@code base} with the monitors {@code kinds} and their scope ({@code gather} null: none). */
    static RunConfig monitored(RunConfig base, Set<MonitorKind> kinds, Coschedule coschedule, Analysis analysis, String gather) {
        ScopeSettings scope = gather == null ? null : new ScopeSettings(TreeShape.FLAT, GatherMode.parse(gather),
                FilterSpec.parse(analysis.scopeFilter()), analysis.scopeIntervalMs());
        return base.withScope(scope).withMonitoring(new Monitoring(kinds, coschedule, analysis), Faults.NONE);
    }

    /**
     * Runs every row of table {@code table} on {@code base} (gsum, collectors on, no monitors): {@code repeats} off/on
     * pairs of separate runs, and an interleaved crossover in blocks of {@code block} pairs.
     */
    public static ObjectNode run(int table, RunConfig base, int repeats, int block, ObjectMapper json, Consumer<String> progress) {
        ObjectNode root = json.createObjectNode();
        root.put("schema", SCHEMA);
        root.put("table", table);
        RunReport.putConfig(root, base);
        root.put("repeats", repeats);
        root.put("interleave", block);
        ArrayNode rows = root.putArray("rows");
        boolean ok = true;
        for (Row row : rows(table)) {
            progress.accept("table " + table + ": " + row.label().trim());
            RunConfig config = row.setup().apply(base);
            ObjectNode separate = new CollectorOverhead(config, repeats).run(json, progress);
            ObjectNode interleaved = InterleavedOverhead.run(InterleavedOverhead.config(config, block), json);
            ok &= separate.path("result_ok").asBoolean() && interleaved.path("result_ok").asBoolean();
            ObjectNode r = rows.addObject();
            r.put("row", row.label().trim());
            r.put("paper_overhead", row.paperOverhead());
            r.put("paper_gather_rate", row.paperGatherRate());
            r.put("separate_overhead_pct", separate.path("overhead_pct").asDouble());
            r.put("separate_overhead_pct_iqr", separate.path("overhead_pct_iqr").asDouble());
            r.put("interleaved_overhead_pct", interleaved.path("overhead_pct").asDouble());
            r.set("interleaved_overhead_pct_ci95", interleaved.path("overhead_pct_ci95"));
            JsonNode m = separate.path("monitors");
            if (m.has("gather_rate")) {
                r.put("gather_rate", m.path("gather_rate").asDouble());
                r.put("scope_gather_rate", m.path("scope_gather_rate").asDouble());
                r.put("analysis_cpu_ms", m.path("analysis_cpu_ms_mean").asDouble());
            }
            r.set("separate", separate);
            r.set("interleaved", interleaved);
        }
        root.put("result_ok", ok);
        RunReport.putMachine(root);
        root.put("date", Instant.now().toString());
        return root;
    }

    /** The table as Markdown, ours beside the paper's. */
    public static String markdown(JsonNode doc) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "EventSpace paper, Table %d, here: %s, %d ranks on %d host(s), %s, %d iterations; "
                        + "separate runs: median of %d off/on pairs (IQR); interleaved: crossover, blocks of %d pairs (95 %% CI)%n%n",
                doc.path("table").asInt(), doc.path("benchmark").asText(), doc.path("ranks").asInt(), doc.path("hosts").asInt(),
                doc.path("transport").asText(), doc.path("iterations").asInt(), doc.path("repeats").asInt(),
                doc.path("interleave").asInt()));
        out.append("| row | paper: overhead | paper: gather rate | here: separate runs | here: interleaved | here: gather rate "
                + "(tuples analysed / scope) |\n|---|---|---|---|---|---|\n");
        for (JsonNode r : doc.path("rows")) {
            JsonNode ci = r.path("interleaved_overhead_pct_ci95");
            out.append(String.format(Locale.ROOT, "| %s | %s | %s | %+.2f %% (IQR %.2f) | %+.2f %% [%+.2f, %+.2f] | %s |%n",
                    r.path("row").asText(), r.path("paper_overhead").asText(), r.path("paper_gather_rate").asText(),
                    r.path("separate_overhead_pct").asDouble(), r.path("separate_overhead_pct_iqr").asDouble(),
                    r.path("interleaved_overhead_pct").asDouble(), ci.path(0).asDouble(), ci.path(1).asDouble(),
                    r.has("gather_rate") ? String.format(Locale.ROOT, "%.2f %% / %.2f %%", 100 * r.path("gather_rate").asDouble(),
                            100 * r.path("scope_gather_rate").asDouble()) : ""));
        }
        return out.toString();
    }
}
