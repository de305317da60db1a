package org.eventspace.job;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A run report's {@code scope} block ({@link ScopeSnapshot#toJson}) as text for people: the whole run's counters
 * first, then the filter's result, labelled with the round it describes. Units on every number. Reads the JSON
 * block, so it prints the block a TCP host process sent just as the one taken in this process.
 */
public final class ScopeSummary {
    private ScopeSummary() {
    }

    /** The counters of the whole run, then the filter's last result with data. */
    public static String of(JsonNode scope) {
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT,
                "  scope %s, gather %s, filter %s: %d rounds of %.1f µs; %d records produced, %d gathered, %d dropped "
                        + "(gather rate %.2f %%); bytes per level %s, reduction over the run %s%n",
                scope.path("shape").asText(), scope.path("gather").asText(), scope.path("filter").asText(),
                scope.path("rounds").asLong(), scope.path("round_us_mean").asDouble(), scope.path("records_produced").asLong(),
                scope.path("records_gathered").asLong(), scope.path("records_dropped").asLong(),
                100 * scope.path("gather_rate").asDouble(), scope.path("bytes_per_level"),
                scope.path("reduction_factor").isNumber()
                        ? String.format(Locale.ROOT, "%.2fx (raw bytes / bytes the root sent)", scope.path("reduction_factor").asDouble())
                        : "n/a"));
        JsonNode result = scope.path("result");
        String filter = scope.path("filter").asText();
        long round = scope.path("result_round").asLong();
        if (result.has("classes")) {
            out.append(String.format(Locale.ROOT, "  last round with data (round %d): %d classes, reduction factor of that round %.2fx%n",
                    round, result.path("classes").asInt(), result.path("reduction_factor").asDouble()));
            for (JsonNode c : result.path("class_list")) {
                out.append(String.format(Locale.ROOT, "    class %s: %d ranks %s, events %s%n", c.path("id").asText(),
                        c.path("rank_count").asInt(), c.path("members"), fieldNames(c.path("events"))));
            }
        }
        if (filter.equals("stats")) {
            out.append(statsTable(scope));
        } else if (filter.startsWith("hist:") && result.has("events")) {
            out.append(String.format(Locale.ROOT, "  last round with data (round %d), histograms of t_up - t_down, equal-width bins:%n",
                    round));
            result.path("events").fields().forEachRemaining(e -> out.append(String.format(Locale.ROOT,
                    "    %-52s %9.2f … %9.2f µs: %s%n", e.getKey(), e.getValue().path("min").asDouble(),
                    e.getValue().path("max").asDouble(), e.getValue().path("bins"))));
        } else if ((filter.startsWith("max:") || filter.startsWith("min:")) && result.has("events")) {
            out.append(String.format(Locale.ROOT, "  last round with data (round %d), per event the record with the %s %s:%n",
                    round, filter.startsWith("max:") ? "largest" : "smallest", filter.substring(4)));
            result.path("events").fields().forEachRemaining(e -> out.append(String.format(Locale.ROOT,
                    "    %-52s rank %d, round %d, %.2f µs%n", e.getKey(), e.getValue().path("rank").asInt(),
                    e.getValue().path("round").asLong(), e.getValue().path("value").asDouble())));
        } else if (filter.equals("concat") && result.has("records")) {
            out.append(String.format(Locale.ROOT, "  last round with data (round %d): %d records concatenated%s%n", round,
                    result.path("records").asLong(), result.path("listing_truncated").asBoolean() ? " (listing truncated)" : ""));
        }
        if (scope.has("error")) {
            out.append("  scope error: ").append(scope.path("error").asText()).append('\n');
        }
        return out.toString();
    }

    /**
     * A {@code stats} scope as a table: per event (op and path shape) the tuples and the mean, sd, min and max of
     * t_up − t_down in µs across ranks — over the whole run when the block has {@code run_statistics}, else of the last
     * round with data, labelled so; a rank's whole allreduce first. Empty for other filters.
     */
    public static String statsTable(JsonNode scope) {
        if (scope == null || !scope.path("filter").asText().equals("stats")) {
            return "";
        }
        JsonNode events;
        String title;
        if (scope.path("run_statistics").size() > 0) {
            events = scope.path("run_statistics");
            title = String.format(Locale.ROOT, "What the event scope saw over the whole run (%d rounds, %d tuples gathered)",
                    scope.path("rounds").asLong(), scope.path("records_gathered").asLong());
        } else if (scope.path("result").has("events")) {
            events = scope.path("result").path("events");
            title = String.format(Locale.ROOT, "What the event scope saw in its last round with data (round %d)",
                    scope.path("result_round").asLong());
        } else {
            return "";
        }
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT,
                "%s: t_up - t_down per collector role, statistics across ranks%n  %-52s %9s %9s %9s %9s %9s%n", title,
                "event (op, path from the collector down)", "tuples", "mean µs", "sd µs", "min µs", "max µs"));
        List<Map.Entry<String, JsonNode>> rows = new ArrayList<>();
        events.fields().forEachRemaining(rows::add);
        rows.sort(Comparator.comparing((Map.Entry<String, JsonNode> e) -> !e.getKey().contains(" rank>"))
                .thenComparing(Map.Entry::getKey));
        for (Map.Entry<String, JsonNode> e : rows) {
            JsonNode v = e.getValue();
            out.append(String.format(Locale.ROOT, "  %-52s %9d %9.2f %9.2f %9.2f %9.2f%n", e.getKey(),
                    v.path("count").asLong(), v.path("mean").asDouble(), v.path("sd").asDouble(), v.path("min").asDouble(),
                    v.path("max").asDouble()));
        }
        out.append("  (rank>… is a rank's whole allreduce; gred>… and proxy>… are the parts below a gred or a hop)\n");
        return out.toString();
    }

    private static String fieldNames(JsonNode object) {
        List<String> names = new ArrayList<>();
        object.fieldNames().forEachRemaining(names::add);
        return names.toString();
    }
}
