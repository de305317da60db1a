package org.eventspace.ui;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;
import org.eventspace.monitor.MonitorSummary;

/**
 * The dashboard's frame as text for a terminal ({@code demo --tui}): the slowest rank and the heaviest path, each rank's
 * wait as a bar (the 12 that arrive last most often when there are more), the newest round of ToM's histogram as a
 * sparkline, and what monitoring costs. Units on every number. Stateless; {@link #render} from any thread.
 */
public final class TextView {
    /** Ranks listed at most; with more, those that arrive last most often. */
    static final int MOST_RANKS = 12;
    private static final String BLOCKS = " ▁▂▃▄▅▆▇█";

    private TextView() {
    }

    /** The frame as lines of at most about 100 characters. */
    public static List<String> render(JsonNode frame) {
        List<String> out = new ArrayList<>();
        JsonNode run = frame.path("run");
        out.add(String.format(Locale.ROOT, "EventSpace %s · %s · frame %d · %.0f s", run.path("name").asText(),
                frame.path("running").asBoolean() ? "live" : "finished", frame.path("frame").asLong(),
                frame.path("uptime_s").asDouble()));
        if (frame.path("verdict").has("headline")) {
            // the run model's sentence: the same words as the summary and the report
            out.add(frame.path("verdict").path("headline").asText());
        }
        JsonNode lb = frame.path("loadbalance");
        if (lb.has("slowest_rank")) {
            out.add(String.format(Locale.ROOT, "slowest rank %d (z %.1f%s); heaviest path ends at rank %d (weight %s):",
                    lb.path("slowest_rank").asInt(), lb.path("slowest_rank_z").asDouble(),
                    lb.path("slowest_rank_beyond_chance").asBoolean() ? ", beyond chance" : ", within chance",
                    lb.path("heaviest_path_rank").asInt(), MonitorSummary.weight(lb.path("heaviest_path_weight").asDouble())));
            StringBuilder path = new StringBuilder("  ");
            for (JsonNode n : lb.path("heaviest_path")) {
                String name = n.asText();
                if (!name.contains(".ec.")) {
                    path.append(name.replaceFirst("^t\\d+\\.", "")).append(" → ");
                }
            }
            out.add(path.append("rank ").append(lb.path("heaviest_path_rank").asInt()).toString());
        } else {
            out.add("no load-balance figures yet");
        }
        List<JsonNode> ranks = new ArrayList<>();
        frame.path("ranks").forEach(ranks::add);
        boolean cut = ranks.size() > MOST_RANKS;
        if (cut) {
            ranks.sort((a, b) -> Double.compare(b.path("last_share").asDouble(), a.path("last_share").asDouble()));
            ranks = ranks.subList(0, MOST_RANKS);
        }
        double most = 1e-9;
        for (JsonNode r : ranks) {
            most = Math.max(most, r.path("arrival_wait_us").asDouble());
        }
        out.add(cut ? "the " + MOST_RANKS + " ranks that arrive last most often:" : "");
        out.add(String.format(Locale.ROOT, "%-6s %-5s %-24s %12s %8s", "rank", "host", "arrival wait", "", "last"));
        for (JsonNode r : ranks) {
            double wait = r.path("arrival_wait_us").asDouble();
            out.add(String.format(Locale.ROOT, "%-6d h%-4d %-24s %9.1f µs %6.0f %%", r.path("rank").asInt(),
                    r.path("host").asInt(), bar(wait / most, 24), wait, 100 * r.path("last_share").asDouble()));
        }
        String event = wholeCall(frame.path("histograms"));
        if (event != null) {
            JsonNode rounds = frame.path("histograms").path(event);
            JsonNode last = rounds.get(rounds.size() - 1);
            StringBuilder spark = new StringBuilder();
            long top = 1;
            for (JsonNode b : last.path("bins")) {
                top = Math.max(top, b.asLong());
            }
            for (JsonNode b : last.path("bins")) {
                spark.append(BLOCKS.charAt((int) Math.ceil(b.asDouble() / top * (BLOCKS.length() - 1))));
            }
            out.add(String.format(Locale.ROOT, "ToM histogram, round %d, %s:", last.path("round").asLong(), event));
            out.add(String.format(Locale.ROOT, "  %s µs [%s] %s µs, %d calls", micros(last.path("min").asDouble()), spark,
                    micros(last.path("max").asDouble()), last.path("count").asLong()));
        }
        JsonNode c = frame.path("cost");
        out.add(String.format(Locale.ROOT, "monitors: gather rate %.2f %%, %d tuples missed; analysis %.1f %% of a core; "
                        + "this dashboard %.1f %% of a core", 100 * c.path("gather_rate").asDouble(1), c.path("tuples_missed").asLong(),
                c.path("analysis_cpu_pct").asDouble(), c.path("server_cpu_pct").asDouble()));
        return out;
    }

    /** The event of the whole call on the longest path (rank>…>core), or any; null without histograms. */
    static String wholeCall(JsonNode histograms) {
        String best = null;
        var names = histograms.fieldNames();
        while (names.hasNext()) {
            String n = names.next();
            if (histograms.path(n).size() == 0) {
                continue;
            }
            boolean whole = n.contains(" rank>");
            boolean bestWhole = best != null && best.contains(" rank>");
            if (best == null || whole && !bestWhole || whole == bestWhole && n.length() > best.length()) {
                best = n;
            }
        }
        return best;
    }

    private static String bar(double fraction, int width) {
        int full = (int) Math.round(Math.max(0, Math.min(1, fraction)) * width);
        return "█".repeat(full) + "·".repeat(width - full);
    }

    private static String micros(double v) {
        return v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.1f", v);
    }
}
