package org.eventspace.monitor;

import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;

import org.eventspace.comm.pathmap.Entry;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.events.CollectorKind;

/**
 * The front-end's analysis tree (EventSpace paper §4.3): one tree of the pathmap (every root of it, in a multi-cluster
 * layout one per cluster), root first, each gred with its newest
 * statistics from the monitors block, each proxy marking a hop to another host, each rank at its leaf. Collectors are
 * left out (they are the edges the statistics come from). Text, at most {@code maxLines} lines.
 */
public final class AnalysisTree {
    private AnalysisTree() {
    }

    public static String text(Pathmap pathmap, int tree, JsonNode monitors, int maxLines) {
        StringBuilder out = new StringBuilder();
        int[] lines = {0};
        // Every root: a multi-cluster layout's tree has one per cluster, each with its own greds.
        for (Node root : pathmap.roots(tree)) {
            walk(pathmap, root, tree, monitors, "", 0, out, lines, maxLines);
        }
        if (lines[0] <= maxLines) {
            return out.toString();
        }
        java.util.Set<String> path = heaviestPath(monitors, tree);
        if (!path.isEmpty()) {
            // Too large to print whole: the heaviest path only, from the root to the rank the calls waited for, each
            // gred's other children counted on one line. What the summary leaves out is in the JSON.
            StringBuilder along = new StringBuilder();
            int[] shown = {0};
            for (Node root : pathmap.roots(tree)) {
                if (contains(pathmap, root, tree, path)) {
                    walkPath(pathmap, root, tree, monitors, path, "", along, shown, maxLines);
                }
            }
            if (shown[0] <= maxLines) {
                return "    (the heaviest path only; the whole tree, " + lines[0] + " lines, is in monitors.stats)\n" + along;
            }
        }
        out.append("    … ").append(lines[0] - maxLines).append(" more lines (the whole tree is in monitors.stats)\n");
        return out.toString();
    }

    /** The names on {@code tree}'s heaviest path (the load-balance monitor's), or none without that monitor. */
    private static java.util.Set<String> heaviestPath(JsonNode monitors, int tree) {
        JsonNode lb = monitors.path("loadbalance");
        JsonNode path = lb.path("heaviest_path");
        JsonNode rank = lb.path("heaviest_path_rank");
        for (JsonNode t : lb.path("trees")) {
            if (t.path("tree").asInt(-1) == tree) {
                path = t.path("heaviest_path");
                rank = t.path("slowest_rank");
            }
        }
        java.util.Set<String> names = new java.util.HashSet<>();
        path.forEach(n -> names.add(n.asText()));
        if (!names.isEmpty() && rank.isNumber()) {
            names.add("rank " + rank.asInt());
        }
        return names;
    }

    /** Whether {@code n}'s subtree holds a node of {@code path} (or, as {@code "rank N"}, the rank it ends at). */
    private static boolean contains(Pathmap pathmap, Node n, int tree, java.util.Set<String> path) {
        if (path.contains(n.name())) {
            return true;
        }
        for (Entry e : pathmap.entriesAt(n.id())) {
            if (e.tree() == tree && path.contains("rank " + e.rank())) {
                return true;
            }
        }
        for (Node c : pathmap.children(n.id())) {
            if (contains(pathmap, c, tree, path)) {
                return true;
            }
        }
        return false;
    }

    /** As {@link #walk}, following only the children on {@code path}; the others, and the ranks, counted on one line. */
    private static void walkPath(Pathmap pathmap, Node n, int tree, JsonNode monitors, java.util.Set<String> path, String indent,
                                 StringBuilder out, int[] lines, int maxLines) {
        boolean shown = !n.kind().equals(CollectorKind.NAME);
        String next = indent;
        if (shown) {
            line(out, lines, maxLines, indent + describe(n, monitors));
            next = indent + "  ";
        }
        int others = 0;
        for (Node c : pathmap.children(n.id())) {
            if (contains(pathmap, c, tree, path)) {
                walkPath(pathmap, c, tree, monitors, path, next, out, lines, maxLines);
            } else {
                others++;
            }
        }
        int ranks = 0;
        for (Entry e : pathmap.entriesAt(n.id())) {
            if (e.tree() != tree) {
                continue;
            }
            if (path.contains("rank " + e.rank())) {
                line(out, lines, maxLines, next + "rank " + e.rank() + " (the end of the heaviest path)");
            } else {
                ranks++;
            }
        }
        if (others > 0 || ranks > 0) {
            List<String> parts = new java.util.ArrayList<>();
            if (others > 0) {
                parts.add(others + (others == 1 ? " branch" : " branches"));
            }
            if (ranks > 0) {
                parts.add(ranks + (ranks == 1 ? " rank" : " ranks"));
            }
            line(out, lines, maxLines, next + "… " + String.join(" and ", parts) + " off the heaviest path");
        }
    }

    /**
     * The tree whose greds made the most monitored calls (the lowest such tree on a tie; tree 0 if none did): the one
     * worth printing. A run may not use tree 0 at all — a multi-cluster run's conditional allreduce decides on the
     * clusters' own trees — and tree 0's greds then print without calls while another tree holds the figures.
     */
    public static int busiestTree(Pathmap pathmap, JsonNode monitors) {
        java.util.TreeMap<Integer, Long> calls = new java.util.TreeMap<>();
        for (Node n : pathmap.nodes()) {
            if (n.kind().equals(PathmapBuilder.GRED) && n.tree() >= 0) {
                calls.merge(n.tree(), calls(n, monitors), Long::sum);
            }
        }
        int best = 0;
        long most = 0;
        for (java.util.Map.Entry<Integer, Long> e : calls.entrySet()) {
            if (e.getValue() > most) {
                best = e.getKey();
                most = e.getValue();
            }
        }
        return best;
    }

    private static long calls(Node gred, JsonNode monitors) {
        JsonNode stats = monitors.path("stats").path("wrappers").path(gred.name());
        JsonNode lb = monitors.path("loadbalance").path("greds").path(gred.name());
        return stats.path("calls").asLong(lb.path("calls").asLong());
    }

    private static void walk(Pathmap pathmap, Node n, int tree, JsonNode monitors, String indent, int port, StringBuilder out,
                             int[] lines, int maxLines) {
        boolean shown = !n.kind().equals(CollectorKind.NAME);
        String next = indent;
        if (shown) {
            line(out, lines, maxLines, indent + describe(n, monitors));
            next = indent + "  ";
        }
        List<Node> children = pathmap.children(n.id());
        for (Node c : children) {
            walk(pathmap, c, tree, monitors, next, c.parentPort(), out, lines, maxLines);
        }
        for (Entry e : pathmap.entriesAt(n.id())) {
            if (e.tree() == tree) {
                line(out, lines, maxLines, next + "rank " + e.rank());
            }
        }
    }

    private static void line(StringBuilder out, int[] lines, int maxLines, String text) {
        if (++lines[0] <= maxLines) {
            out.append("    ").append(text).append('\n');
        }
    }

    private static String describe(Node n, JsonNode monitors) {
        String where = n.name();
        if (n.kind().equals(PathmapBuilder.PROXY)) {
            return where + " (a hop between hosts)";
        }
        if (!n.kind().equals(PathmapBuilder.GRED)) {
            return where;
        }
        JsonNode stats = monitors.path("stats").path("wrappers").path(n.name());
        JsonNode lb = monitors.path("loadbalance").path("greds").path(n.name());
        StringBuilder s = new StringBuilder(where);
        long calls = calls(n, monitors);
        if (calls == 0) {
            // No figures: the gred made no call the monitors saw (unused on this run, or without collectors).
            return s.append(" (no monitored calls)").toString();
        }
        s.append(String.format(Locale.ROOT, ": %d calls", calls));
        if (stats.has("down")) {
            s.append(String.format(Locale.ROOT, ", down %.1f µs, up %.1f µs", stats.path("down").path("mean").asDouble(),
                    stats.path("up").path("mean").asDouble()));
        }
        JsonNode last = lb.path("last_arrivals");
        if (last.size() > 0) {
            int best = 0;
            for (int p = 1; p < last.size(); p++) {
                if (last.get(p).asLong() > last.get(best).asLong()) {
                    best = p;
                }
            }
            s.append(String.format(Locale.ROOT, ", last most often: %s (%.0f %%)", lb.path("contributors").get(best).asText(),
                    100.0 * last.get(best).asLong() / calls));
        }
        return s.toString();
    }
}
