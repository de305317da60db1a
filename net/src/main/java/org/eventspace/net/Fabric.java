package org.eventspace.net;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A network as a graph with destination-based forwarding, the model every topology is loaded into (ibprof paper §3.3:
 * the post-processing builds a connected graph of the nodes and links and traces the application's traffic through the
 * ports' forwarding tables). Devices are channel adapters ({@link Kind#ENDPOINT}: one port, where a node's traffic enters
 * and leaves a subnet) and switches; ports are numbered from 1 as on InfiniBand; a link joins two (device, port) ends.
 * Each switch has a linear forwarding table: for every endpoint, the port its traffic leaves by. A compute node owns one
 * endpoint per subnet (rail): TSUBAME's nodes have two.
 *
 * <p>Built by {@link Builder} (the topology file, the fat-tree and torus generators, the {@code ibnetdiscover} reader);
 * immutable once built. {@link #route} follows the tables and refuses a loop or a missing entry with the hop it reached.
 */
public final class Fabric {
    /**
     * The most forwarding entries (switches × nodes) a generated topology may have: 2^24, a 64 × 64 torus, about 1 GB of
     * tables and 6 s to build; a 2-ary 16-tree (65 536 nodes, 524 288 switches) would need 2^35 and never finished.
     */
    public static final long MAX_FORWARDING_ENTRIES = 1L << 24;

    /** What a device is. */
    public enum Kind { ENDPOINT, SWITCH }

    /**
     * One device. {@code layer} is where a drawing puts it (0: endpoints; switches above, by level); {@code subnet} which
     * rail it belongs to; {@code x}, {@code y} a grid position for a torus (-1 elsewhere).
     */
    public record Device(int id, String name, Kind kind, int ports, int layer, int subnet, int x, int y) {
    }

    /** A link between port {@code aPort} of device {@code a} and port {@code bPort} of device {@code b}. */
    public record Link(int id, int a, int aPort, int b, int bPort) {
    }

    /** A compute node: its name and its endpoint device on each subnet (-1 on a subnet it is not attached to). */
    public record Node(String name, int[] endpoints) {
    }

    private final String description;
    private final List<Device> devices;
    private final List<Link> links;
    private final List<Node> nodes;
    private final int subnets;
    /** [device][port] → link id, or -1. */
    private final int[][] linkAt;
    /** [device] → (endpoint device → out port), switches only. */
    private final Map<Integer, Map<Integer, Integer>> tables;

    private Fabric(String description, List<Device> devices, List<Link> links, List<Node> nodes, int subnets,
                   Map<Integer, Map<Integer, Integer>> tables) {
        this.description = description;
        this.devices = List.copyOf(devices);
        this.links = List.copyOf(links);
        this.nodes = List.copyOf(nodes);
        this.subnets = subnets;
        this.tables = tables;
        this.linkAt = new int[devices.size()][];
        for (Device d : devices) {
            linkAt[d.id()] = new int[d.ports() + 1];
            java.util.Arrays.fill(linkAt[d.id()], -1);
        }
        for (Link l : links) {
            linkAt[l.a()][l.aPort()] = l.id();
            linkAt[l.b()][l.bPort()] = l.id();
        }
    }

    public String description() {
        return description;
    }

    public List<Device> devices() {
        return devices;
    }

    public List<Link> links() {
        return links;
    }

    public List<Node> nodes() {
        return nodes;
    }

    public int subnets() {
        return subnets;
    }

    /**
     * The subnet traffic from node {@code src} to node {@code dst} takes: the destination's index modulo the subnets (a
     * deterministic spread over the rails, as D-mod-k spreads over up-ports), or the first subnet both are on.
     */
    public int subnetFor(int src, int dst) {
        int preferred = dst % subnets;
        for (int i = 0; i < subnets; i++) {
            int s = (preferred + i) % subnets;
            if (nodes.get(src).endpoints()[s] >= 0 && nodes.get(dst).endpoints()[s] >= 0) {
                return s;
            }
        }
        throw new IllegalArgumentException("nodes " + nodes.get(src).name() + " and " + nodes.get(dst).name()
                + " share no subnet");
    }

    public Device device(int id) {
        return devices.get(id);
    }

    /** The node named {@code name}, or -1. */
    public int nodeIndex(String name) {
        for (int i = 0; i < nodes.size(); i++) {
            if (nodes.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** The link at a device's port, or -1. */
    public int linkAt(int device, int port) {
        return port >= 0 && port < linkAt[device].length ? linkAt[device][port] : -1;
    }

    /**
     * The directed hops from node {@code src} to node {@code dst} on subnet {@code subnet}: each entry is
     * {@code 2 × link + (0 if it goes from the link's a end to its b end, else 1)}. Empty when the two are the same node.
     *
     * @throws IllegalArgumentException naming the device where the route broke off (no table entry, no link) or looped.
     */
    public int[] route(int src, int dst, int subnet) {
        if (src == dst) {
            return new int[0];
        }
        int from = nodes.get(src).endpoints()[subnet];
        int to = nodes.get(dst).endpoints()[subnet];
        if (from < 0 || to < 0) {
            throw new IllegalArgumentException("route " + nodes.get(src).name() + " -> " + nodes.get(dst).name()
                    + ": not both attached to subnet " + subnet);
        }
        List<Integer> hops = new ArrayList<>();
        int at = from;
        int port = 1;
        for (int step = 0; step <= devices.size(); step++) {
            int link = linkAt(at, port);
            if (link < 0) {
                throw new IllegalArgumentException("route " + nodes.get(src).name() + " -> " + nodes.get(dst).name()
                        + ": port " + port + " of " + devices.get(at).name() + " has no link");
            }
            Link l = links.get(link);
            boolean forward = l.a() == at && l.aPort() == port;
            hops.add(2 * link + (forward ? 0 : 1));
            at = forward ? l.b() : l.a();
            if (at == to) {
                return hops.stream().mapToInt(Integer::intValue).toArray();
            }
            if (devices.get(at).kind() != Kind.SWITCH) {
                throw new IllegalArgumentException("route " + nodes.get(src).name() + " -> " + nodes.get(dst).name()
                        + " reached endpoint " + devices.get(at).name() + ", not its destination");
            }
            Integer out = tables.getOrDefault(at, Map.of()).get(to);
            if (out == null) {
                throw new IllegalArgumentException("route " + nodes.get(src).name() + " -> " + nodes.get(dst).name()
                        + ": switch " + devices.get(at).name() + " has no forwarding entry for " + devices.get(to).name());
            }
            port = out;
        }
        throw new IllegalArgumentException("route " + nodes.get(src).name() + " -> " + nodes.get(dst).name()
                + " loops (more hops than devices)");
    }

    /** Assembles a fabric; not thread-safe. */
    public static final class Builder {
        private final String description;
        private final List<Device> devices = new ArrayList<>();
        private final Map<String, Integer> byName = new HashMap<>();
        private final List<Link> links = new ArrayList<>();
        private final List<Node> nodes = new ArrayList<>();
        private final Map<Integer, Map<Integer, Integer>> tables = new HashMap<>();
        private int subnets = 1;

        public Builder(String description) {
            this.description = description;
        }

        public int device(String name, Kind kind, int ports, int layer, int subnet, int x, int y) {
            if (byName.containsKey(name)) {
                throw new IllegalArgumentException("device '" + TopologyFile.bounded(name) + "' is declared twice");
            }
            if (ports < 1) {
                throw new IllegalArgumentException("device '" + TopologyFile.bounded(name) + "' needs at least 1 port, got " + ports);
            }
            int id = devices.size();
            devices.add(new Device(id, name, kind, ports, layer, subnet, x, y));
            byName.put(name, id);
            return id;
        }

        /** The device named {@code name}, or -1. */
        public int find(String name) {
            return byName.getOrDefault(name, -1);
        }

        public Device get(int id) {
            return devices.get(id);
        }

        public int size() {
            return devices.size();
        }

        public void link(int a, int aPort, int b, int bPort) {
            check(a, aPort);
            check(b, bPort);
            for (Link l : links) {
                if ((l.a() == a && l.aPort() == aPort) || (l.b() == a && l.bPort() == aPort)
                        || (l.a() == b && l.aPort() == bPort) || (l.b() == b && l.bPort() == bPort)) {
                    throw new IllegalArgumentException("port " + aPort + " of " + TopologyFile.bounded(devices.get(a).name())
                            + " or port " + bPort + " of " + TopologyFile.bounded(devices.get(b).name()) + " already has a link");
                }
            }
            links.add(new Link(links.size(), a, aPort, b, bPort));
        }

        private void check(int device, int port) {
            Device d = devices.get(device);
            if (port < 1 || port > d.ports()) {
                throw new IllegalArgumentException("device '" + TopologyFile.bounded(d.name()) + "' has ports 1.." + d.ports() + ", not "
                        + port);
            }
        }

        /** At switch {@code sw}, traffic for endpoint {@code endpoint} leaves by {@code port}. */
        public void forward(int sw, int endpoint, int port) {
            if (devices.get(sw).kind() != Kind.SWITCH) {
                throw new IllegalArgumentException("'" + TopologyFile.bounded(devices.get(sw).name()) + "' is not a switch: only switches "
                        + "forward");
            }
            check(sw, port);
            tables.computeIfAbsent(sw, k -> new HashMap<>()).put(endpoint, port);
        }

        /** Replaces every device's drawing layer by {@code layerOf(id)}. */
        public void relayer(java.util.function.IntUnaryOperator layerOf) {
            for (int i = 0; i < devices.size(); i++) {
                Device d = devices.get(i);
                devices.set(i, new Device(d.id(), d.name(), d.kind(), d.ports(), layerOf.applyAsInt(i), d.subnet(), d.x(), d.y()));
            }
        }

        public boolean hasTable(int sw) {
            return tables.containsKey(sw);
        }

        public void node(String name, int[] endpoints) {
            nodes.add(new Node(name, endpoints.clone()));
        }

        public void subnets(int n) {
            this.subnets = n;
        }

        public List<Link> links() {
            return links;
        }

        public Fabric build() {
            for (Node n : nodes) {
                if (n.endpoints().length != subnets) {
                    throw new IllegalArgumentException("node '" + n.name() + "' has " + n.endpoints().length
                            + " endpoint slots, expected one per subnet (" + subnets + "; -1 where it has none)");
                }
            }
            return new Fabric(description, devices, links, nodes, subnets, tables);
        }

        /**
         * Fills the tables of switches that have none with min-hop routes (breadth-first from every endpoint; ties to the
         * lowest port), as OpenSM's min-hop engine would without its balancing: for graphs given without tables.
         */
        public void minHopTables() {
            int[][] adjacency = new int[devices.size()][];
            for (Device d : devices) {
                adjacency[d.id()] = new int[d.ports() + 1];
                java.util.Arrays.fill(adjacency[d.id()], -1);
            }
            for (Link l : links) {
                adjacency[l.a()][l.aPort()] = l.b();
                adjacency[l.b()][l.bPort()] = l.a();
            }
            for (Device target : devices) {
                if (target.kind() != Kind.ENDPOINT) {
                    continue;
                }
                int[] dist = new int[devices.size()];
                java.util.Arrays.fill(dist, Integer.MAX_VALUE);
                java.util.ArrayDeque<Integer> queue = new java.util.ArrayDeque<>();
                dist[target.id()] = 0;
                queue.add(target.id());
                while (!queue.isEmpty()) {
                    int at = queue.poll();
                    if (at != target.id() && devices.get(at).kind() != Kind.SWITCH) {
                        continue;
                    }
                    for (int p = 1; p < adjacency[at].length; p++) {
                        int next = adjacency[at][p];
                        if (next >= 0 && dist[next] == Integer.MAX_VALUE) {
                            dist[next] = dist[at] + 1;
                            queue.add(next);
                        }
                    }
                }
                for (Device sw : devices) {
                    if (sw.kind() != Kind.SWITCH || hasTable(sw.id()) && tables.get(sw.id()).containsKey(target.id())
                            && tablesGiven.contains(sw.id())) {
                        continue;
                    }
                    for (int p = 1; p < adjacency[sw.id()].length; p++) {
                        int next = adjacency[sw.id()][p];
                        if (next >= 0 && dist[next] != Integer.MAX_VALUE && dist[next] == dist[sw.id()] - 1) {
                            tables.computeIfAbsent(sw.id(), k -> new HashMap<>()).put(target.id(), p);
                            break;
                        }
                    }
                }
            }
        }

        private final java.util.Set<Integer> tablesGiven = new java.util.HashSet<>();

        /** Marks the switches whose tables were given (by a file), which {@link #minHopTables} leaves alone. */
        public void markTablesGiven() {
            tablesGiven.addAll(tables.keySet());
        }
    }
}
