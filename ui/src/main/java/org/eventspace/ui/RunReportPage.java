package org.eventspace.ui;

import org.eventspace.base.json.Json;
import org.eventspace.monitor.RunDiff;
import org.eventspace.monitor.model.RunModel;
import org.eventspace.monitor.model.RunText;
import org.eventspace.monitor.model.Verdict;
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
 * a ticket. Any {@code eventspace.run/2} report, ours or an MPI program's ({@link RunFileSource}), with the verdict pane
 * read from its run model. With a second run, the page's comparison shows both on a common scale, row by row as {@link RunDiff} (and
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
        data.set("verdict", verdict(source.model().orElseThrow(), json));
        if (b != null) {
            RunDiff diff = RunDiff.of(RunDiff.Run.of(nameA, a), RunDiff.Run.of(nameB, b));
            ObjectNode d = data.putObject("diff");
            d.put("a", nameA);
            d.put("b", nameB);
            ArrayNode head = d.putArray("head");
            diff.head().forEach(head::add);
            ArrayNode rows = d.putArray("rows");
            for (RunDiff.Row r : diff.rows()) {
                ObjectNode row = rows.addObject();
                row.put("section", r.section());
                row.put("what", r.what());
                row.put("unit", r.unit());
                row.put("a", r.a());
                row.put("b", r.b());
                row.put("verdict", r.verdict());
            }
            ArrayNode notes = d.putArray("notes");
            diff.notes().forEach(notes::add);
        }
        String script;
        try {
            // "</" or "<!--" from the file inside a script element would end or bend it: every "<" of JSON is inside a
            // string, where JSON allows its escape.
            script = json.writeValueAsString(data).replace("<", "\\u003c");
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the run's frame could not be written", e);
        }
        String page = DashboardAssets.text("index.html");
        page = page.replace("<link rel=\"stylesheet\" href=\"/assets/dashboard.css\">",
                "<style>\n" + DashboardAssets.text("dashboard.css") + "</style>");
        page = page.replace("<!--ES_STATIC-->", "<script>window.ES_STATIC = " + script + ";</script>");
        page = page.replace("<script src=\"/assets/dashboard.js\"></script>",
                "<script>\n" + DashboardAssets.text("dashboard.js").replace("</script", "<\\/script") + "</script>");
        // The verdict is in the page itself, escaped, so it reads without the script too (the script sets the same text).
        JsonNode v = data.path("verdict");
        page = page.replace("<section class=\"panel full\" id=\"verdict-panel\" hidden>",
                "<section class=\"panel full\" id=\"verdict-panel\">");
        page = page.replace("<p id=\"verdict-headline\"></p>", "<p id=\"verdict-headline\">" + escape(v.path("headline").asText())
                + "</p>");
        page = page.replace("<p id=\"verdict-load\" class=\"muted\"></p>", "<p id=\"verdict-load\" class=\"muted\">"
                + escape(v.path("load").asText("")) + "</p>");
        page = page.replace("<p id=\"verdict-coverage\" class=\"muted\"></p>", "<p id=\"verdict-coverage\" class=\"muted\">"
                + escape(v.path("coverage").asText()) + "</p>");
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

    /**
     * What the page's verdict pane says, from the model: the headline, the rank named (null when none is), what was not
     * seen, the machine's load when it makes lateness by itself, and the run's errors.
     */
    private static ObjectNode verdict(RunModel model, ObjectMapper json) {
        ObjectNode v = json.createObjectNode();
        v.put("headline", model.verdict().headline());
        Integer culprit = model.verdict().slowestRank().culprit();
        if (culprit == null) {
            v.putNull("culprit");
        } else {
            v.put("culprit", culprit);
        }
        v.put("coverage", RunText.coverage(model.coverage()));
        Verdict.Load load = model.verdict().load();
        if (load != null && load.warning() != null) {
            v.put("load", load.warning());
        }
        ArrayNode errors = v.putArray("errors");
        model.errors().forEach(errors::add);
        return v;
    }

    /** Text from a file as HTML text or an attribute's value. */
    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;")
                .replace("'", "&#39;");
    }
}
