package org.eventspace.ui;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

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
 *
 * <p>The page is written for a reader who did not make the file: every string from a report is drawn as text (the
 * script builds elements, never markup from data), the page's Content-Security-Policy runs only the page's own two
 * scripts (by their SHA-256, computed here as the page is written), and what the page embeds is bounded.
 */
public final class RunReportPage {
    /** Ranks drawn one row each in the ranks' pane; the others are counted on the page and are in the JSON. */
    public static final int MAX_RANK_ROWS = 1024;
    /** Ranks a report may claim whatever its size: beyond, at least {@link #MIN_BYTES_PER_RANK} bytes a rank. */
    public static final int RANKS_WITHOUT_SIZE_CHECK = 4096;
    /** Bytes of report a rank takes at the least (its per-rank record alone is longer); fewer is a claim, not a run. */
    public static final int MIN_BYTES_PER_RANK = 16;

    private RunReportPage() {
    }

    /**
     * Refuses a report whose claimed size is absurd against its bytes (a 39 KB file claiming 100 000 ranks would make a
     * page of tens of MB): more than {@link #RANKS_WITHOUT_SIZE_CHECK} ranks with fewer than {@link #MIN_BYTES_PER_RANK}
     * bytes for each.
     *
     * @throws IllegalArgumentException naming the file, its claim, its size and the bound.
     */
    public static void checkSize(String name, JsonNode run, long bytes) {
        long ranks = run.path("ranks").asLong(0);
        if (ranks > RANKS_WITHOUT_SIZE_CHECK && ranks > bytes / MIN_BYTES_PER_RANK) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "%s: /ranks: claims %,d ranks in %,d bytes; a report "
                    + "of more than %,d ranks has at least %d bytes a rank (its per-rank records), so at most %,d here: "
                    + "not a run's report, not drawn", name, ranks, bytes, RANKS_WITHOUT_SIZE_CHECK, MIN_BYTES_PER_RANK,
                    Math.max(RANKS_WITHOUT_SIZE_CHECK, bytes / MIN_BYTES_PER_RANK)));
        }
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
        ObjectNode frame = frames.next(0);
        // The ranks' pane draws a row per rank: the first MAX_RANK_ROWS, the rest counted ("… N more ranks").
        JsonNode ranks = frame.path("ranks");
        if (ranks.isArray() && ranks.size() > MAX_RANK_ROWS) {
            ArrayNode kept = json.createArrayNode();
            for (int i = 0; i < MAX_RANK_ROWS; i++) {
                kept.add(ranks.get(i));
            }
            frame.put("ranks_not_drawn", ranks.size() - MAX_RANK_ROWS);
            frame.set("ranks", kept);
        }
        data.set("frame", frame);
        data.set("verdict", verdict(source.model().orElseThrow(), a.path("launch").path("summary").asText(""), json));
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
        List<String> scripts = new ArrayList<>();
        String data0 = "window.ES_STATIC = " + script + ";";
        String code = "\n" + DashboardAssets.text("dashboard.js").replace("</script", "<\\/script").replace("<!--", "<\\!--");
        scripts.add(data0);
        scripts.add(code);
        page = page.replace("<!--ES_STATIC-->", "<script>" + data0 + "</script>");
        page = page.replace("<script src=\"/assets/dashboard.js\"></script>", "<script>" + code + "</script>");
        page = page.replace("<meta charset=\"utf-8\">", "<meta charset=\"utf-8\">\n" + policy(scripts)
                + "\n<meta name=\"referrer\" content=\"no-referrer\">");
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
        page = page.replace("<p id=\"verdict-launch\" class=\"muted\"></p>", "<p id=\"verdict-launch\" class=\"muted\">"
                + escape(v.path("launch").asText("")) + "</p>");
        if (linkLoads != null) {
            if (!LinkLoads.SCHEMA.equals(linkLoads.path("schema").asText())) {
                throw new IllegalArgumentException("the network's file: /schema: expected \"" + LinkLoads.SCHEMA + "\", got "
                        + linkLoads.path("schema"));
            }
            // Into the page's network pane, whose click handling is the page script's: the drawing's own script would
            // be a third inline script for the policy to allow, and it does the same.
            page = page.replace("<section class=\"panel full\" id=\"network-panel\" hidden>",
                    "<section class=\"panel full\" id=\"network-panel\">");
            page = page.replace("<div id=\"network\"></div>", "<div id=\"network\">" + withoutScript(NetworkSvg.render(linkLoads))
                    + "</div>");
        }
        page = page.replace("<title>EventSpace dashboard</title>", "<title>EventSpace report: " + escape(nameA)
                + (b != null ? " vs " + escape(nameB) : "") + "</title>");
        return page;
    }

    /**
     * What the page's verdict pane says, from the model: the headline, the rank named (null when none is), what was not
     * seen, the machine's load when it makes lateness by itself, the run's errors, and {@code launch}, the host
     * processes' start and end as the report's {@code launch.summary} says them (empty: not a run of host processes).
     */
    private static ObjectNode verdict(RunModel model, String launch, ObjectMapper json) {
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
        if (!launch.isEmpty()) {
            v.put("launch", launch);
        }
        ArrayNode errors = v.putArray("errors");
        model.errors().forEach(errors::add);
        return v;
    }

    /**
     * The page's Content-Security-Policy, as a {@code meta} element (a file has no headers): scripts only those given
     * (by SHA-256 of their exact text), no network, no plugins, no base or form targets. Styles may be inline (the page
     * inlines its style sheet and the drawing sets widths); {@code frame-ancestors} is ignored in a meta element, so a
     * served page says it in a header instead ({@link DashboardServer}).
     */
    static String policy(List<String> scripts) {
        StringBuilder hashes = new StringBuilder();
        for (String s : scripts) {
            hashes.append(" 'sha256-").append(sha256(s)).append('\'');
        }
        return "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src" + hashes
                + "; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'\">";
    }

    private static String sha256(String text) {
        try {
            return Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-256", e);
        }
    }

    /** The network's drawing without its {@code <script>} element. */
    private static String withoutScript(String svg) {
        int from = svg.indexOf("<script");
        int to = svg.indexOf("</script>", Math.max(0, from));
        return from < 0 || to < 0 ? svg : svg.substring(0, from) + svg.substring(to + "</script>".length());
    }

    /** Text from a file as HTML text or an attribute's value. */
    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;")
                .replace("'", "&#39;");
    }
}
