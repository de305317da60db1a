package org.eventspace.net;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.ObjectMapper;
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
        List<DeviceJson> devices = new ArrayList<>();
        for (Fabric.Device d : fabric.devices()) {
            devices.add(new DeviceJson(d.name(), d.kind() == Fabric.Kind.SWITCH ? "switch" : "endpoint", d.layer(),
                    d.subnet(), d.x() >= 0 ? d.x() : null, d.y() >= 0 ? d.y() : null));
        }
        List<LinkJson> links = new ArrayList<>();
        for (Fabric.Link l : fabric.links()) {
            links.add(new LinkJson(l.id(), fabric.device(l.a()).name(), l.aPort(), fabric.device(l.b()).name(), l.bPort(),
                    bytes(l.id(), 0), bytes(l.id(), 1)));
        }
        List<HalfJson> hottest = new ArrayList<>();
        for (long[] x : hottest(10)) {
            hottest.add(half(x));
        }
        return json.valueToTree(new Document(SCHEMA, fabric.description(), topologyFile, trafficFile, phase,
                fabric.subnets(), routedBytes, localBytes, byteHops, devices, links,
                hottest.isEmpty() ? null : hottest.get(0), hottest));
    }

    private HalfJson half(long[] x) {
        Fabric.Link l = fabric.links().get((int) x[0]);
        return new HalfJson(l.id(), fabric.device(x[1] == 0 ? l.a() : l.b()).name(),
                fabric.device(x[1] == 0 ? l.b() : l.a()).name(), x[2]);
    }

    /** The {@value #SCHEMA} document; {@code max_link} is null when no link carried a byte. */
    @JsonPropertyOrder({"schema", "topology", "topology_file", "traffic_file", "phase", "subnets", "routed_bytes",
            "same_node_bytes", "byte_hops", "devices", "links", "max_link", "hottest"})
    record Document(String schema, String topology, @JsonProperty("topology_file") String topologyFile,
                    @JsonProperty("traffic_file") String trafficFile, String phase, int subnets,
                    @JsonProperty("routed_bytes") long routedBytes, @JsonProperty("same_node_bytes") long sameNodeBytes,
                    @JsonProperty("byte_hops") long byteHops, List<DeviceJson> devices, List<LinkJson> links,
                    @JsonProperty("max_link") HalfJson maxLink, List<HalfJson> hottest) {
    }

    /** A device; {@code x} and {@code y} only where the topology places it. */
    @JsonPropertyOrder({"name", "kind", "layer", "subnet", "x", "y"})
    record DeviceJson(String name, String kind, int layer, int subnet,
                      @JsonInclude(JsonInclude.Include.NON_NULL) Integer x,
                      @JsonInclude(JsonInclude.Include.NON_NULL) Integer y) {
    }

    @JsonPropertyOrder({"id", "a", "a_port", "b", "b_port", "bytes_a_to_b", "bytes_b_to_a"})
    record LinkJson(int id, String a, @JsonProperty("a_port") int aPort, String b, @JsonProperty("b_port") int bPort,
                    @JsonProperty("bytes_a_to_b") long bytesAToB, @JsonProperty("bytes_b_to_a") long bytesBToA) {
    }

    /** One direction of a link and the bytes it carried. */
    @JsonPropertyOrder({"link", "from", "to", "bytes"})
    record HalfJson(int link, String from, String to, long bytes) {
    }
}
