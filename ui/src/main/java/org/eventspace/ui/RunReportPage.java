package org.eventspace.ui;

import org.eventspace.base.json.Json;
import org.eventspace.monitor.RunDiff;
import org.eventspace.net.LinkLoads;
import org.eventspace.net.NetworkSvg;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A finished run as one self-contained HTML page ({@code eventspace report RUN.json [B.json] -o report.html}): the
 * dashboard's page with its style, its script and the run's frame inlined, so it opens from a file, offline, attached to
 * a ticket. With a second run, the page's comparison shows both on a common scale, row by row as {@link RunDiff} (and
 * {@code eventspace diff}) compares them. Stateless.
 */
public final class RunReportPage {
    private RunReportPage() {
    }

    /**
     * The page of run {@code a} (named {@code nameA}), and of its comparison with {@code b} when {@code b} is not null.
     *
     * @throws IllegalArgumentException naming the run and field, if a report cannot be drawn.
     */
    public static String html(String nameA, JsonNode a, String nameB, JsonNode b) {
        return html(nameA, a, nameB, b, null);
    }

    /**
     * As {@link #html(String, JsonNode, String, JsonNode)}, with the network drawn from {@code linkLoads} (an
     * {@code eventspace.link-loads/1} document of {@code traffic map}, null for none): the BoxFish view (ibprof paper §4.2)
     * as a panel of its own, SVG inline.
     */
    public static String html(String nameA, JsonNode a, String nameB, JsonNode b, JsonNode linkLoads) {
        ObjectMapper json = Json.mapper();
        RunFileSource source = new RunFileSource(nameA, a);
        DashboardFrames frames = new DashboardFrames(source, json);
        ObjectNode data = json.createObjectNode();
        ArrayNode trees = data.putArray("trees");
        for (int t = 0; t < frames.trees(); t++) {
            trees.add(frames.tree(t).toJson(json));
        }
        data.set("frame", frames.next(0));
        if (b != null) {
            RunDiff diff = RunDiff.of(nameA, a, nameB, b);
            ObjectNode d = data.putObject("diff");
            d.put("a", nameA);
            d.put("b", nameB);
            ArrayNode rows = d.putArray("rows");
            for (RunDiff.Row r : diff.rows()) {
                ObjectNode row = rows.addObject();
                row.put("section", r.section());
                row.put("what", r.what());
                row.put("unit", r.unit());
                putNumber(row, "a", r.a());
                putNumber(row, "b", r.b());
            }
            ArrayNode notes = d.putArray("notes");
            diff.notes().forEach(notes::add);
        }
        String script;
        try {
            // "</" inside a script element would end it early: JSON allows the escaped solidus.
            script = json.writeValueAsString(data).replace("</", "<\\/");
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the run's frame could not be written", e);
        }
        String page = DashboardAssets.text("index.html");
        page = page.replace("<link rel=\"stylesheet\" href=\"/assets/dashboard.css\">",
                "<style>\n" + DashboardAssets.text("dashboard.css") + "</style>");
        page = page.replace("<!--ES_STATIC-->", "<script>window.ES_STATIC = " + script + ";</script>");
        page = page.replace("<script src=\"/assets/dashboard.js\"></script>",
                "<script>\n" + DashboardAssets.text("dashboard.js").replace("</script", "<\\/script") + "</script>");
        if (linkLoads != null) {
            if (!LinkLoads.SCHEMA.equals(linkLoads.path("schema").asText())) {
                throw new IllegalArgumentException("the network's file: /schema: expected \"" + LinkLoads.SCHEMA + "\", got "
                        + linkLoads.path("schema"));
            }
            page = page.replace("<section class=\"panel full\" id=\"compare-panel\">", "<section class=\"panel full\" "
                    + "id=\"network-panel\">\n<h2>Network traffic <span class=\"muted\">(traffic map: each half of a link "
                    + "coloured by the bytes sent from its end; click a link to select it)</span></h2>\n"
                    + NetworkSvg.render(linkLoads) + "</section>\n\n  <section class=\"panel full\" id=\"compare-panel\">");
        }
        page = page.replace("<title>EventSpace dashboard</title>", "<title>EventSpace report: " + escape(nameA)
                + (b != null ? " vs " + escape(nameB) : "") + "</title>");
        return page;
    }

    private static void putNumber(ObjectNode o, String field, double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            o.putNull(field);
        } else {
            o.put(field, v);
        }
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
