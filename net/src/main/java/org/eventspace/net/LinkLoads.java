package org.eventspace.net;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The traffic on every link of a fabric, in each direction: every (source, destination) byte count of a host × host
 * matrix routed through the fabric's forwarding tables and added to each directed link of its route (ibprof paper §3.3:
 * the post-processing "adds weights to the links by tracing application traffic across the network using the port
 * forwarding tables"). Immutable.
 */
public final class LinkLoads {
    public static final String SCHEMA = "eventspace.link-loads/1";

    private final Fabric fabric;
    /** [2 × link + direction] bytes; direction 0 is a → b. */
    private final long[] bytes;
    private final long routedBytes;
    private final long byteHops;
    private final long localBytes;

    private LinkLoads(Fabric fabric, long[] bytes, long routedBytes, long byteHops, long localBytes) {
        this.fabric = fabric;
        this.bytes = bytes;
        this.routedBytes = routedBytes;
        this.byteHops = byteHops;
        this.localBytes = localBytes;
    }

    /**
     * Routes {@code matrix[src][dst]} bytes from host src's node to host dst's node ({@code mapping}), on the subnet
     * {@link Fabric#subnetFor} picks. Hosts on one node add to no link.
     */
    public static LinkLoads route(Fabric fabric, long[][] matrix, HostMapping mapping) {
        long[] bytes = new long[2 * fabric.links().size()];
        long routed = 0;
        long hops = 0;
        long local = 0;
        for (int s = 0; s < matrix.length; s++) {
            for (int d = 0; d < matrix[s].length; d++) {
                long v = matrix[s][d];
                if (v == 0) {
                    continue;
                }
                int a = mapping.nodeOf(s);
                int b = mapping.nodeOf(d);
                if (a == b) {
                    local += v;
                    continue;
                }
                int[] route = fabric.route(a, b, fabric.subnetFor(a, b));
                for (int hop : route) {
                    bytes[hop] += v;
                }
                routed += v;
                hops += v * route.length;
            }
        }
        return new LinkLoads(fabric, bytes, routed, hops, local);
    }

    /** Bytes over link {@code link} from its a end to its b end ({@code direction} 0) or back (1). */
    public long bytes(int link, int direction) {
        return bytes[2 * link + direction];
    }

    public Fabric fabric() {
        return fabric;
    }

    /** Σ over routes of bytes × route length: what the links carry in total (the conservation the tests check). */
    public long byteHops() {
        return byteHops;
    }

    /** Bytes routed over the fabric (between hosts on different nodes). */
    public long routedBytes() {
        return routedBytes;
    }

    /** Bytes between hosts mapped onto one node, which cross no link. */
    public long sameNodeBytes() {
        return localBytes;
    }

    public long totalOnLinks() {
        long t = 0;
        for (long b : bytes) {
            t += b;
        }
        return t;
    }

    /** The directed link halves, hottest first (ties: lower link id, then a → b first). */
    public List<long[]> hottest(int limit) {
        List<long[]> all = new ArrayList<>();
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] > 0) {
                all.add(new long[] {i / 2, i % 2, bytes[i]});
            }
        }
        all.sort(Comparator.<long[]>comparingLong(x -> -x[2]).thenComparingLong(x -> x[0]).thenComparingLong(x -> x[1]));
        return all.subList(0, Math.min(limit, all.size()));
    }

    public ObjectNode toJson(ObjectMapper json, String topologyFile, String trafficFile, String phase) {
        ObjectNode root = json.createObjectNode();
        root.put("schema", SCHEMA);
        root.put("topology", fabric.description());
        root.put("topology_file", topologyFile);
        root.put("traffic_file", trafficFile);
        root.put("phase", phase);
        root.put("subnets", fabric.subnets());
        root.put("routed_bytes", routedBytes);
        root.put("same_node_bytes", localBytes);
        root.put("byte_hops", byteHops);
        ArrayNode devices = root.putArray("devices");
        for (Fabric.Device d : fabric.devices()) {
            ObjectNode o = devices.addObject();
            o.put("name", d.name());
            o.put("kind", d.kind() == Fabric.Kind.SWITCH ? "switch" : "endpoint");
            o.put("layer", d.layer());
            o.put("subnet", d.subnet());
            if (d.x() >= 0) {
                o.put("x", d.x());
            }
            if (d.y() >= 0) {
                o.put("y", d.y());
            }
        }
        ArrayNode links = root.putArray("links");
        for (Fabric.Link l : fabric.links()) {
            ObjectNode o = links.addObject();
            o.put("id", l.id());
            o.put("a", fabric.device(l.a()).name());
            o.put("a_port", l.aPort());
            o.put("b", fabric.device(l.b()).name());
            o.put("b_port", l.bPort());
            o.put("bytes_a_to_b", bytes(l.id(), 0));
            o.put("bytes_b_to_a", bytes(l.id(), 1));
        }
        List<long[]> hot = hottest(10);
        if (hot.isEmpty()) {
            root.putNull("max_link");
        } else {
            root.set("max_link", half(json, hot.get(0)));
        }
        ArrayNode h = root.putArray("hottest");
        hot.forEach(x -> h.add(half(json, x)));
        return root;
    }

    private ObjectNode half(ObjectMapper json, long[] x) {
        Fabric.Link l = fabric.links().get((int) x[0]);
        ObjectNode o = json.createObjectNode();
        o.put("link", l.id());
        o.put("from", fabric.device(x[1] == 0 ? l.a() : l.b()).name());
        o.put("to", fabric.device(x[1] == 0 ? l.b() : l.a()).name());
        o.put("bytes", x[2]);
        return o;
    }
}
