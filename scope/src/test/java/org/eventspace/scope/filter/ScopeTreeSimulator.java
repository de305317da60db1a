package org.eventspace.scope.filter;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * A scope tree in one thread, calling a filter exactly as the scope mechanism will: one instance per node (made
 * from one {@link FilterSpec}, or one supplier), plus one for the front-end; per round the front-end's {@code command(round,
 * previousRoot)}, {@code down} at every inner node, {@code leaf} with the host's records of the round,
 * {@code up} over the children's packets in child order, and the front-end's {@code result}. Every packet crosses
 * every edge through {@link PacketCodec}, as it will in messages of long words, so the filters are tested on what
 * the codec carries.
 */
final class ScopeTreeSimulator {
    /** A node: a leaf (host ≥ 0, no children) or an inner node. */
    static final class Node {
        final int host;
        final List<Node> children;
        final ScopeFilter filter;

        Node(int host, List<Node> children, ScopeFilter filter) {
            this.host = host;
            this.children = children;
            this.filter = filter;
        }

        boolean isLeaf() {
            return children.isEmpty();
        }
    }

    final Node root;
    final ScopeFilter frontEnd;
    private Packet previousRoot;
    private long edgesCrossed;

    private ScopeTreeSimulator(Node root, ScopeFilter frontEnd) {
        this.root = root;
        this.frontEnd = frontEnd;
    }

    /** A k-ary tree over hosts 0..hosts−1 (hosts in order), every inner node with at most {@code fanout} children. */
    static ScopeTreeSimulator kary(int hosts, int fanout, FilterSpec spec) {
        return kary(hosts, fanout, spec::newInstance);
    }

    /** As {@link #kary(int, int, FilterSpec)}, with filters the spec syntax cannot make (e.g. a bin count). */
    static ScopeTreeSimulator kary(int hosts, int fanout, Supplier<ScopeFilter> filters) {
        List<Node> level = new ArrayList<>();
        for (int h = 0; h < hosts; h++) {
            level.add(new Node(h, List.of(), filters.get()));
        }
        while (level.size() > 1) {
            List<Node> next = new ArrayList<>();
            for (int i = 0; i < level.size(); i += fanout) {
                next.add(new Node(-1, List.copyOf(level.subList(i, Math.min(level.size(), i + fanout))),
                        filters.get()));
            }
            level = next;
        }
        return new ScopeTreeSimulator(level.get(0), filters.get());
    }

    /**
     * A random tree over hosts 0..hosts−1: random fan-outs (1–6, a fan-out of 1 being a chain node) and depths
     * (up to about 6 inner levels); a single host may be the root itself. Hosts appear left to right in host order.
     */
    static ScopeTreeSimulator random(int hosts, FilterSpec spec, Random random) {
        return random(hosts, spec::newInstance, random);
    }

    /** As {@link #random(int, FilterSpec, Random)}, with filters the spec syntax cannot make. */
    static ScopeTreeSimulator random(int hosts, Supplier<ScopeFilter> filters, Random random) {
        return new ScopeTreeSimulator(build(0, hosts, filters, random, 0), filters.get());
    }

    private static Node build(int from, int to, Supplier<ScopeFilter> filters, Random random, int depth) {
        int n = to - from;
        if (n == 1 && (depth >= 6 || random.nextInt(3) != 0)) {
            return new Node(from, List.of(), filters.get());
        }
        int fanout = n == 1 || depth >= 6 ? n : 1 + random.nextInt(Math.min(n, 6));
        if (fanout == 1 && n > 1 && random.nextBoolean()) {
            fanout = 2;
        }
        // Split [from, to) into `fanout` non-empty contiguous parts at random cut points.
        List<Integer> cuts = new ArrayList<>();
        cuts.add(from);
        while (cuts.size() < fanout) {
            int cut = from + 1 + random.nextInt(n - 1);
            if (!cuts.contains(cut)) {
                cuts.add(cut);
            }
        }
        cuts.sort(null);
        cuts.add(to);
        List<Node> children = new ArrayList<>();
        for (int i = 0; i < fanout; i++) {
            children.add(build(cuts.get(i), cuts.get(i + 1), filters, random, depth + 1));
        }
        return new Node(-1, children, filters.get());
    }

    /** One round: the result the front-end reads. {@code recordsOfHost} gives a host's records of this round. */
    FilterResult round(long round, IntFunction<List<ScopeRecord>> recordsOfHost) {
        Packet command = cross(frontEnd.command(round, previousRoot));
        Packet rootPacket = cross(visit(root, command, recordsOfHost));
        previousRoot = rootPacket;
        return frontEnd.result(rootPacket);
    }

    /** The root packet of the last round. */
    Packet lastRoot() {
        return previousRoot;
    }

    long edgesCrossed() {
        return edgesCrossed;
    }

    private Packet visit(Node node, Packet command, IntFunction<List<ScopeRecord>> recordsOfHost) {
        if (node.isLeaf()) {
            return node.filter.leaf(command, recordsOfHost.apply(node.host));
        }
        Packet down = node.filter.down(command);
        List<Packet> fromChildren = new ArrayList<>(node.children.size());
        for (Node child : node.children) {
            fromChildren.add(cross(visit(child, cross(down), recordsOfHost)));
        }
        return node.filter.up(command, fromChildren);
    }

    private Packet cross(Packet packet) {
        edgesCrossed++;
        long[] words = PacketCodec.encode(packet);
        return PacketCodec.decode(words, words.length);
    }
}
