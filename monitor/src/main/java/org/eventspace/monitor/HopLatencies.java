package org.eventspace.monitor;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.events.CollectorKind;

/**
 * The statistics monitor's rows for the wrappers that are not greds, derived at the front-end from the greds' metrics
 * (dissertation §7.1): the core's store latency and every remote hop's two-way latency.
 *
 * <p>A core's store latency is t3 − t2 of the collector above it, which is the {@code below} of the root gred.
 *
 * <p>A hop's two-way latency {@code (t4 − t1) − (t3 − t2)} takes t1, t4 from the collector before the stub (on the lower
 * host: the {@code below} of the gred under the hop) and t2, t3 from the first collector the serving thread runs (on
 * the upper host: the collector above port p of the gred over the hop, whose t4 − t1 is that port's {@code total} plus
 * the upper gred's {@code below}). The two collectors are on different hosts, and each host's analysis thread reads only
 * its own buffers (the EventSpace paper §6.3.1 found that reading another host's buffers was what made the statistics
 * monitor expensive), so no call is joined across hosts: the mean is the difference of the two means, exact over the
 * calls both sides joined, and on each side one host's clock only. Spread (sd, min, max, median) needs a per-call join
 * and is given by the post-mortem analysis ({@code trace dump --latencies}).
 */
final class HopLatencies {
    private HopLatencies() {
    }

    /** Adds a row to {@code wrappers} for every core whose root gred and every hop whose two greds are monitored. */
    static void add(ObjectNode wrappers, JsonNode greds, Pathmap pathmap, ObjectMapper json) {
        for (Node n : pathmap.nodes()) {
            if (n.kind().equals(PathmapBuilder.CORE)) {
                Node gred = gredUnder(pathmap, n);
                if (gred != null && greds.path(gred.name()).has("below")) {
                    wrappers.set(n.name(), json.valueToTree(new CoreRow("core", n.host(), n.tree(),
                            greds.path(gred.name()).path("below"))));
                }
            } else if (n.kind().equals(PathmapBuilder.PROXY)) {
                hop(wrappers, greds, pathmap, n, json);
            }
        }
    }

    private static void hop(ObjectNode wrappers, JsonNode greds, Pathmap pathmap, Node proxy, ObjectMapper json) {
        if (proxy.parent() < 0) {
            return;
        }
        Node serving = pathmap.node(proxy.parent());
        if (!serving.kind().equals(CollectorKind.NAME) || serving.parent() < 0) {
            return;
        }
        Node upper = pathmap.node(serving.parent());
        Node lower = gredUnder(pathmap, proxy);
        if (lower == null || !upper.kind().equals(PathmapBuilder.GRED)) {
            return;
        }
        JsonNode below = greds.path(lower.name()).path("below");
        JsonNode upperBelow = greds.path(upper.name()).path("below");
        JsonNode port = greds.path(upper.name()).path("ports").path(serving.parentPort());
        JsonNode total = port.path("total");
        if (!below.has("mean") || !upperBelow.has("mean") || !total.has("mean") || below.path("mean").isNull()
                || total.path("mean").isNull() || upperBelow.path("mean").isNull()) {
            return;
        }
        wrappers.set(proxy.name(), json.valueToTree(new ProxyRow("proxy", proxy.host(), proxy.tree(), upper.host(),
                new TwoWay(Math.min(below.path("count").asLong(), total.path("count").asLong()),
                        below.path("mean").asDouble() - total.path("mean").asDouble() - upperBelow.path("mean").asDouble()),
                "mean of " + pathmap.node(proxy.id()).name() + "'s outer collector t4 - t1 (below " + lower.name()
                        + ") minus mean of its serving collector " + serving.name() + " t3 - t2 (port "
                        + serving.parentPort() + " of " + upper.name() + ")")));
    }

    /** A core's row: its store latency is its root gred's {@code below} (µs), as the gred's part carries it. */
    @JsonPropertyOrder({"kind", "host", "tree", "store_latency"})
    record CoreRow(String kind, int host, int tree, @JsonProperty("store_latency") JsonNode storeLatency) {
    }

    /** A hop's row: the two-way latency (µs) of the hop from {@code host} to {@code to_host}, and how it was derived. */
    @JsonPropertyOrder({"kind", "host", "tree", "to_host", "two_way_latency", "method"})
    record ProxyRow(String kind, int host, int tree, @JsonProperty("to_host") int toHost,
                    @JsonProperty("two_way_latency") TwoWay twoWayLatency, String method) {
    }

    @JsonPropertyOrder({"count", "mean"})
    record TwoWay(long count, double mean) {
    }

    /** The gred that a collector hands to {@code n} (a core or a proxy) calls through: n ← collector ← gred, or null. */
    private static Node gredUnder(Pathmap pathmap, Node n) {
        List<Node> children = pathmap.children(n.id());
        if (children.size() != 1 || !children.get(0).kind().equals(CollectorKind.NAME)) {
            return null;
        }
        List<Node> below = pathmap.children(children.get(0).id());
        return below.size() == 1 && below.get(0).kind().equals(PathmapBuilder.GRED) ? below.get(0) : null;
    }
}
