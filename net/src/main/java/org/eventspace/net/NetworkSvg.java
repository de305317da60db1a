package org.eventspace.net;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A network drawn as BoxFish's fat-tree module draws it (ibprof paper §4.2, Fig. 3): the nodes in the bottom row, the
 * switches in rows above by level (a second subnet's levels above the first's), or a torus as a grid of routers; each
 * half of a link coloured by the traffic sent from the device at that end, on a utilisation ramp from the idle grey to
 * the hottest half's red, and the hottest link halves listed. Clicking a link half highlights its link, its two ends and
 * their other links and fades the rest, with a table of the selection (the paper's selection, §4.2). Drawn from an
 * {@code eventspace.link-loads/1} document; stateless.
 */
public final class NetworkSvg {
    private static final int ROW = 90;
    private static final int MARGIN = 40;

    private NetworkSvg() {
    }

    /** One {@code <svg>} element (with its own style and script), to stand alone or inline in a page. */
    public static String render(JsonNode loads) {
        JsonNode devices = loads.path("devices");
        int n = devices.size();
        double[] x = new double[n];
        double[] y = new double[n];
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < n; i++) {
            index.put(devices.get(i).path("name").asText(), i);
        }
        boolean grid = false;
        for (JsonNode d : devices) {
            grid |= d.has("y");
        }
        double width;
        double height;
        if (grid) {
            int cols = 1;
            int rows = 1;
            for (JsonNode d : devices) {
                cols = Math.max(cols, d.path("x").asInt() + 1);
                rows = Math.max(rows, d.path("y").asInt() + 1);
            }
            double cell = Math.max(40, Math.min(90, 900.0 / Math.max(cols, rows)));
            for (int i = 0; i < n; i++) {
                JsonNode d = devices.get(i);
                boolean endpoint = "endpoint".equals(d.path("kind").asText());
                x[i] = MARGIN + cell * d.path("x").asInt() + (endpoint ? cell * 0.3 : 0);
                y[i] = MARGIN + 40 + cell * d.path("y").asInt() + (endpoint ? cell * 0.3 : 0);
            }
            width = Math.max(900, 2 * MARGIN + cell * cols);
            height = 2 * MARGIN + 40 + cell * rows + 160;
        } else {
            // Rows: endpoints at the bottom; then, per subnet, its switch levels upward.
            int maxLayer = 1;
            int subnets = 1;
            for (JsonNode d : devices) {
                maxLayer = Math.max(maxLayer, d.path("layer").asInt());
                subnets = Math.max(subnets, d.path("subnet").asInt() + 1);
            }
            TreeMap<Integer, List<Integer>> rows = new TreeMap<>();
            Map<String, Integer> nodeOrder = new HashMap<>();
            for (int i = 0; i < n; i++) {
                JsonNode d = devices.get(i);
                int layer = d.path("layer").asInt();
                int row = layer == 0 ? 0 : d.path("subnet").asInt() * maxLayer + layer;
                if (layer == 0) {
                    String node = d.path("name").asText().replaceFirst("/\\d+$", "");
                    nodeOrder.putIfAbsent(node, nodeOrder.size());
                }
                rows.computeIfAbsent(row, k -> new ArrayList<>()).add(i);
            }
            int widest = Math.max(nodeOrder.size(), rows.values().stream().mapToInt(List::size).max().orElse(1));
            double step = Math.max(14, Math.min(60, 1200.0 / widest));
            width = Math.max(900, 2 * MARGIN + step * widest);
            int topRow = rows.lastKey();
            height = 2 * MARGIN + 40 + ROW * topRow + 180;
            for (Map.Entry<Integer, List<Integer>> r : rows.entrySet()) {
                List<Integer> members = r.getValue();
                double spread = width - 2 * MARGIN;
                double gap = spread / Math.max(1, members.size());
                for (int k = 0; k < members.size(); k++) {
                    int i = members.get(k);
                    JsonNode d = devices.get(i);
                    if (r.getKey() == 0) {
                        String node = d.path("name").asText().replaceFirst("/\\d+$", "");
                        x[i] = MARGIN + spread / nodeOrder.size() * (nodeOrder.get(node) + 0.5) + 4 * d.path("subnet").asInt();
                    } else {
                        x[i] = MARGIN + (width - 2 * MARGIN - spread) / 2 + gap * (k + 0.5);
                    }
                    y[i] = MARGIN + 40 + ROW * (topRow - r.getKey());
                }
            }
        }
        long max = 1;
        for (JsonNode l : loads.path("links")) {
            max = Math.max(max, Math.max(l.path("bytes_a_to_b").asLong(), l.path("bytes_b_to_a").asLong()));
        }
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"es-network\" width=\"%.0f\" "
                + "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"11\">%n", width, height, width, height));
        svg.append("<style>.es-network .half{stroke-width:3;cursor:pointer}.es-network .faded{opacity:.12}"
                + ".es-network .selected{stroke-width:6}.es-network .dev{stroke:#333;stroke-width:1}"
                + ".es-network .dev.selected{stroke:#000;stroke-width:3}</style>\n");
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"14\">%s — %s, phase %s; each half of a link "
                + "coloured by the bytes sent from its end (hottest: %,d B)</text>%n", MARGIN, 22,
                escape(loads.path("topology").asText()), escape(loads.path("traffic_file").asText()),
                escape(loads.path("phase").asText("total")), max));
        boolean torus = grid;
        for (JsonNode l : loads.path("links")) {
            int a = index.getOrDefault(l.path("a").asText(), -1);
            int b = index.getOrDefault(l.path("b").asText(), -1);
            if (a < 0 || b < 0) {
                continue;
            }
            double ax = x[a];
            double ay = y[a];
            double bx = x[b];
            double by = y[b];
            double mx = (ax + bx) / 2;
            double my = (ay + by) / 2;
            if (torus && (Math.abs(ax - bx) > 100 || Math.abs(ay - by) > 100)) {
                // A wrap-around link: two stubs pointing out of the grid, each the half of its end.
                mx = ax + Math.signum(ax - bx) * 25;
                my = ay + Math.signum(ay - by) * 25;
                half(svg, l, 0, ax, ay, mx, my, max);
                half(svg, l, 1, bx, by, bx + Math.signum(bx - ax) * 25, by + Math.signum(by - ay) * 25, max);
                continue;
            }
            half(svg, l, 0, ax, ay, mx, my, max);
            half(svg, l, 1, bx, by, mx, my, max);
        }
        for (int i = 0; i < n; i++) {
            JsonNode d = devices.get(i);
            boolean sw = "switch".equals(d.path("kind").asText());
            String name = escape(d.path("name").asText());
            if (sw) {
                svg.append(String.format(Locale.ROOT, "<rect class=\"dev\" data-dev=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" "
                        + "fill=\"#ddd\"><title>%s (switch, layer %d, subnet %d)</title></rect>%n", name, x[i] - 6, y[i] - 6, name,
                        d.path("layer").asInt(), d.path("subnet").asInt()));
            } else {
                svg.append(String.format(Locale.ROOT, "<circle class=\"dev\" data-dev=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\" "
                        + "fill=\"#fff\"><title>%s (node)</title></circle>%n", name, x[i], y[i], name));
            }
        }
        double listY = height - 150;
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.0f\" font-weight=\"bold\">Hottest link halves</text>%n",
                MARGIN, listY));
        int k = 0;
        for (JsonNode h : loads.path("hottest")) {
            if (k >= 5) {
                break;
            }
            svg.append(String.format(Locale.ROOT, "<text class=\"hot\" data-link=\"%d\" x=\"%d\" y=\"%.0f\">%s → %s: %,d B</text>%n",
                    h.path("link").asInt(), MARGIN, listY + 16 * (++k), escape(h.path("from").asText()),
                    escape(h.path("to").asText()), h.path("bytes").asLong()));
        }
        svg.append(String.format(Locale.ROOT, "<text id=\"es-net-selection\" x=\"%.0f\" y=\"%.0f\"></text>%n", width / 2, listY));
        svg.append("<script><![CDATA[\n").append(SCRIPT).append("\n]]></script>\n");
        svg.append("</svg>\n");
        return svg.toString();
    }

    /**
     * Selecting a link half (click): the link and its two ends highlighted, their other links too, the rest faded; the
     * selection's bytes written beside the list. Works standalone and inline.
     */
    private static final String SCRIPT = """
            (function () {
              var svg = document.currentScript ? document.currentScript.closest('svg') : document.querySelector('svg.es-network');
              if (!svg) { return; }
              function select(link) {
                var halves = svg.querySelectorAll('.half'), devs = svg.querySelectorAll('.dev'), ends = {};
                halves.forEach(function (h) { if (h.dataset.link === link) { ends[h.dataset.a] = 1; ends[h.dataset.b] = 1; } });
                var text = [];
                halves.forEach(function (h) {
                  var mine = h.dataset.link === link, touches = ends[h.dataset.a] || ends[h.dataset.b];
                  h.classList.toggle('selected', mine);
                  h.classList.toggle('faded', !mine && !touches);
                  if (mine) { text.push(h.dataset.from + ' → ' + h.dataset.to + ': ' + Number(h.dataset.bytes).toLocaleString() + ' B'); }
                });
                devs.forEach(function (d) { d.classList.toggle('selected', !!ends[d.dataset.dev]); d.classList.toggle('faded', !ends[d.dataset.dev]); });
                var sel = svg.querySelector('#es-net-selection');
                if (sel) { sel.textContent = 'selected link ' + link + ': ' + text.join('; '); }
                svg.dataset.selected = link;
              }
              svg.addEventListener('click', function (e) {
                var t = e.target.closest('[data-link]');
                if (t) { select(t.dataset.link); }
              });
              svg.esSelect = select;
            })();""";

    private static void half(StringBuilder svg, JsonNode l, int direction, double fromX, double fromY, double toX, double toY,
                             long max) {
        long bytes = direction == 0 ? l.path("bytes_a_to_b").asLong() : l.path("bytes_b_to_a").asLong();
        String from = escape(direction == 0 ? l.path("a").asText() : l.path("b").asText());
        String to = escape(direction == 0 ? l.path("b").asText() : l.path("a").asText());
        svg.append(String.format(Locale.ROOT, "<line class=\"half\" data-link=\"%d\" data-a=\"%s\" data-b=\"%s\" data-from=\"%s\" "
                        + "data-to=\"%s\" data-bytes=\"%d\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"><title>%s → %s: "
                        + "%,d B</title></line>%n", l.path("id").asInt(), escape(l.path("a").asText()), escape(l.path("b").asText()),
                from, to, bytes, fromX, fromY, toX, toY, colour(bytes, max), from, to, bytes));
    }

    /**
     * The utilisation ramp: idle grey; then light yellow (little) through orange to dark red (the hottest half), a
     * sequential ramp with no grey in it, so a lightly used half never looks idle.
     */
    static String colour(long bytes, long max) {
        if (bytes <= 0) {
            return "#d0d0d0";
        }
        double f = Math.min(1, (double) bytes / max);
        int[][] stops = {{255, 217, 118}, {253, 141, 60}, {189, 0, 38}};
        double at = f * (stops.length - 1);
        int k = Math.min(stops.length - 2, (int) at);
        double t = at - k;
        int r = (int) Math.round(stops[k][0] + t * (stops[k + 1][0] - stops[k][0]));
        int g = (int) Math.round(stops[k][1] + t * (stops[k + 1][1] - stops[k][1]));
        int b = (int) Math.round(stops[k][2] + t * (stops[k + 1][2] - stops[k][2]));
        return String.format(Locale.ROOT, "#%02x%02x%02x", r, g, b);
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
