package org.eventspace.ui;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.eventspace.base.json.Json;
import org.eventspace.monitor.model.Coverage;
import org.eventspace.monitor.model.RankRecord;
import org.eventspace.monitor.model.RunModel;
import org.eventspace.monitor.model.SlowestRankRule;
import org.eventspace.monitor.model.Verdict;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

/**
 * Run reports and topologies written by a hostile user: markup that runs script if a page ever parses it, in every
 * string a reader accepts (values, the MPI functions' names of each rank's profile, a network's device names), for the
 * tests that check the dashboard and the report draw them as text.
 */
final class CraftedRuns {
    /** Markup that runs script when parsed as HTML (an element with a handler). */
    static final String IMG = "<img src=x onerror=alert(1)>";
    /** Markup that closes an attribute and opens a script element. */
    static final String SCRIPT = "\"><script>alert(1)</script>";
    /** A file name that is markup (no '/' can be in a file name). */
    static final String FILE_NAME = "<img src=x onerror=alert(2)>.json";

    private static final ObjectMapper JSON = Json.mapper();

    private CraftedRuns() {
    }

    /**
     * An MPI run of 4 ranks, rank 2 slow, whose every string field holds one of the payloads where the reader takes it:
     * the MPI functions of the ranks' profiles are named by payloads, then each string value of the document is
     * replaced by a payload unless the reader (the run model, the dashboard's source and the report page) refuses the
     * document with it, in which case that field is one the reader checks and keeps as it was.
     */
    static ObjectNode mpiRun() {
        List<RankRecord> ranks = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            ranks.add(new RankRecord(r, 0, true, null, r == 3 ? IMG : null, 301L, 0L, r == 2 ? 300.0 : 30_000.0,
                    r == 2 ? 900.0 : -300.0, r == 2 ? 250L : 17L, 300L, 0.0, 0.0,
                    Map.of(IMG, new RankRecord.Calls(300, 1000), SCRIPT, new RankRecord.Calls(20, 50))));
        }
        Verdict.SlowestRank none = SlowestRankRule.judge(List.of());
        Verdict.SlowestRank v = new Verdict.SlowestRank(2, 250, 300, 0.83, 0.25, 20.0, 2.8, none.alpha(), 4, 900.0, 12.0,
                SCRIPT, none.minEffectPct(), true, true, 2, IMG);
        RunModel model = new RunModel(RunModel.SCHEMA, RunModel.MPI, IMG, 4, 1, SCRIPT, 0.5, true, List.of(IMG, SCRIPT),
                ranks, RunModel.operationsOf(ranks),
                new Verdict(v, new Verdict.HeaviestPath(List.of(IMG, "rank 2"), 2, 0.83, true), Verdict.Load.of(2, 4, 1),
                        v.words()),
                new Coverage(1204, 1204, 0, 1.0, 0, 0, 0, 0, 0, List.of()));
        ObjectNode doc = JSON.valueToTree(model);
        poison(doc, doc, new int[] {0});
        return doc;
    }

    /** Every string value under {@code node} replaced by a payload, field by field, where the reader still takes it. */
    private static void poison(ObjectNode doc, JsonNode node, int[] k) {
        if (node.isObject()) {
            ObjectNode o = (ObjectNode) node;
            List<String> names = new ArrayList<>();
            o.fieldNames().forEachRemaining(names::add);
            for (String name : names) {
                JsonNode v = o.get(name);
                if (v.isTextual() && !v.asText().equals(IMG) && !v.asText().equals(SCRIPT)) {
                    o.set(name, new TextNode(k[0]++ % 2 == 0 ? IMG : SCRIPT));
                    if (!accepted(doc)) {
                        o.set(name, v);
                    }
                } else {
                    poison(doc, v, k);
                }
            }
        } else if (node.isArray()) {
            ArrayNode a = (ArrayNode) node;
            for (int i = 0; i < a.size(); i++) {
                JsonNode v = a.get(i);
                if (v.isTextual() && !v.asText().equals(IMG) && !v.asText().equals(SCRIPT)) {
                    a.set(i, new TextNode(k[0]++ % 2 == 0 ? IMG : SCRIPT));
                    if (!accepted(doc)) {
                        a.set(i, v);
                    }
                } else {
                    poison(doc, v, k);
                }
            }
        }
    }

    private static boolean accepted(ObjectNode doc) {
        try {
            RunReportPage.html(FILE_NAME, doc, SCRIPT + ".json", doc);
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * {@code run} with a {@code monitors.stats.wrappers} block a page's "two finished runs" reads from a chosen file: a
     * gred named by a payload whose port's contributor is the other payload.
     */
    static ObjectNode withWrappers(ObjectNode run) {
        ObjectNode doc = run.deepCopy();
        ObjectNode gred = doc.putObject("monitors").putObject("stats").putObject("wrappers").putObject(IMG);
        gred.putObject("down").put("mean", 3.0);
        gred.putObject("up").put("mean", 4.0);
        ObjectNode port = gred.putArray("ports").addObject();
        port.put("contributor", SCRIPT);
        port.putObject("arrival_wait").put("mean", 5.0);
        return doc;
    }

    /** An {@code eventspace.link-loads/1} network whose device names (and topology and file names) are payloads. */
    static ObjectNode network() {
        ObjectNode n = JSON.createObjectNode();
        n.put("schema", "eventspace.link-loads/1");
        n.put("topology", IMG);
        n.put("traffic_file", SCRIPT);
        n.put("phase", "total");
        ArrayNode devices = n.putArray("devices");
        devices.addObject().put("name", IMG).put("kind", "switch").put("layer", 1).put("subnet", 0);
        devices.addObject().put("name", SCRIPT).put("kind", "node").put("layer", 0).put("subnet", 0);
        devices.addObject().put("name", "node2").put("kind", "node").put("layer", 0).put("subnet", 0);
        ArrayNode links = n.putArray("links");
        links.addObject().put("id", 0).put("a", IMG).put("b", SCRIPT).put("bytes_a_to_b", 1000).put("bytes_b_to_a", 500);
        links.addObject().put("id", 1).put("a", IMG).put("b", "node2").put("bytes_a_to_b", 10).put("bytes_b_to_a", 5);
        n.put("max_link", 0);
        n.putArray("hottest").addObject().put("link", 0).put("from", IMG).put("to", SCRIPT).put("bytes", 1000);
        return n;
    }

    /** A finished run's source with a network whose device names are payloads: the live dashboard of a crafted run. */
    static DashboardSource liveSource(String name, JsonNode run) {
        JsonNode loads = network();
        return new RunningFileSource(name, run) {
            @Override
            public Optional<JsonNode> network() {
                return Optional.of(loads);
            }
        };
    }
}
