package org.eventspace.wan;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.eventspace.comm.pathmap.Host;
import org.eventspace.comm.pathmap.Node;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.Topology;

/**
 * Puts a job's hosts on emulated sites and routes every tree hop between two sites through the sites' gateways
 * (dissertation §8.1 §III: "All communication to the sub-cluster is routed through its gateway"; "To re-route messages
 * the cluster topology is changed. To add emulation wrappers, scripts are run that reconfigure the pathmap").
 *
 * <p>A pure pathmap → pathmap function, like the event collectors' placement. Each topology cluster is one site (the
 * file's sites in order, or the clusters they name); a site's gateway is the host the file names, or its cluster's
 * first host. A hop from host {@code a} on site S to a wrapper on host {@code b} on site T becomes
 *
 * <pre>
 *   a ─proxy─► gS: longcut(down S&gt;T) ─proxy─► gT: longcut(up T&gt;S) ─proxy─► b
 * </pre>
 *
 * (a proxy only where consecutive hosts differ): each gateway delays what leaves its site, the request at S's gateway
 * on the way down, the reply at T's gateway on the way up, so the state of each link direction lives on one host and
 * its serialisation covers every connection that crosses it. Hops within a site are left alone. Point-to-point paths
 * are built on demand outside the pathmap; {@link WanPointToPoint} routes them the same way.
 */
public final class WanPlacement {
    /** The wrapper kind's name in pathmaps. */
    public static final String LONGCUT = "longcut";
    /** Node property: the site whose gateway runs the node. */
    public static final String SITE = "site";
    /** Node property: the outgoing link ({@code from>to}) a message crosses going down. */
    public static final String DOWN = "down";
    /** Node property: the outgoing link a reply crosses coming up. */
    public static final String UP = "up";

    private WanPlacement() {
    }

    /** Which site each host is on, and each site's gateway host, for {@code topology}. */
    public record Sites(String[] siteOfHost, Map<String, Integer> gateways) {
        public String siteOf(int host) {
            return siteOfHost[host];
        }

        public int gateway(String site) {
            return gateways.get(site);
        }
    }

    /**
     * Maps the topology's clusters to the layout's sites.
     *
     * @throws IllegalArgumentException naming the link file and what does not fit (site and cluster counts, unknown
     *                                  clusters or gateway hosts).
     */
    public static Sites sites(WanLayout layout, Topology topology) {
        Map<String, String> siteOfCluster = new HashMap<>();
        List<Site> sites = layout.sites();
        boolean named = sites.get(0).cluster() != null;
        if (!named) {
            if (sites.size() != topology.clusters().size()) {
                throw new IllegalArgumentException(layout.source() + ": " + sites.size() + " sites but the job has "
                        + topology.clusters().size() + " clusters (--clusters " + sites.size()
                        + ", or name each site's cluster= in the file)");
            }
            for (int i = 0; i < sites.size(); i++) {
                siteOfCluster.put(topology.clusters().get(i), sites.get(i).name());
            }
        } else {
            for (Site s : sites) {
                if (!topology.clusters().contains(s.cluster())) {
                    throw new IllegalArgumentException(layout.source() + ":" + s.line() + ": site " + s.name()
                            + " names cluster " + s.cluster() + ", which the job does not have (clusters: "
                            + topology.clusters() + ")");
                }
                String other = siteOfCluster.put(s.cluster(), s.name());
                if (other != null) {
                    throw new IllegalArgumentException(layout.source() + ":" + s.line() + ": cluster " + s.cluster()
                            + " is on site " + other + " already");
                }
            }
            for (String c : topology.clusters()) {
                if (!siteOfCluster.containsKey(c)) {
                    throw new IllegalArgumentException(layout.source() + ": cluster " + c + " is on no site; every "
                            + "cluster of the job needs one (clusters: " + topology.clusters() + ")");
                }
            }
        }
        String[] siteOfHost = new String[topology.size()];
        Map<String, Integer> gateways = new HashMap<>();
        for (Host h : topology.hosts()) {
            siteOfHost[h.id()] = siteOfCluster.get(h.cluster());
            gateways.putIfAbsent(siteOfHost[h.id()], h.id());
        }
        for (Site s : sites) {
            if (s.gateway() == null) {
                continue;
            }
            int host = topology.hostId(s.gateway());
            if (host < 0 || !siteOfHost[host].equals(s.name())) {
                throw new IllegalArgumentException(layout.source() + ":" + s.line() + ": gateway " + s.gateway()
                        + " of site " + s.name() + " is not a host of its cluster");
            }
            gateways.put(s.name(), host);
        }
        return new Sites(siteOfHost, Map.copyOf(gateways));
    }

    /**
     * {@code pathmap} with every inter-site hop of its trees routed through the gateways' Longcut wrappers.
     *
     * @throws IllegalArgumentException if a hop crosses between sites the layout has no link for (naming both).
     */
    public static Pathmap place(Pathmap pathmap, WanLayout layout) {
        Topology topology = pathmap.spec().topology();
        Sites sites = sites(layout, topology);
        List<Node> nodes = new ArrayList<>(pathmap.nodes());
        Map<String, Integer> made = new HashMap<>();
        int original = nodes.size();
        for (int id = 0; id < original; id++) {
            Node p = nodes.get(id);
            if (!p.kind().equals(PathmapBuilder.PROXY) || p.tree() < 0) {
                continue;
            }
            Node x = nodes.get(p.parent());
            String s = sites.siteOf(p.host());
            String t = sites.siteOf(x.host());
            if (s.equals(t)) {
                continue;
            }
            String down = link(layout, s, t);
            String up = link(layout, t, s);
            int gs = sites.gateway(s);
            int gt = sites.gateway(t);
            // The second gateway's Longcut, then the first's, each called through a proxy where hosts differ.
            int l2 = add(nodes, made, p.tree(), LONGCUT, gt, topology, Map.of(SITE, t, UP, up));
            int below;
            if (gt == x.host()) {
                below = l2;
                setParent(nodes, l2, x.id(), p.parentPort());
            } else {
                int q2 = add(nodes, made, p.tree(), PathmapBuilder.PROXY, gt, topology, Map.of());
                setParent(nodes, q2, x.id(), p.parentPort());
                setParent(nodes, l2, q2, 0);
            }
            int q1 = add(nodes, made, p.tree(), PathmapBuilder.PROXY, gs, topology, Map.of());
            setParent(nodes, q1, l2, 0);
            Map<String, String> first = Map.of(SITE, s, DOWN, down);
            if (p.host() == gs) {
                // The caller is on the gateway: the proxy becomes the gateway's Longcut, its callers stay as they are.
                nodes.set(id, new Node(id, name(made, p.tree(), LONGCUT, gs, topology), LONGCUT, p.tree(), gs, q1, 0,
                        p.arity(), first));
            } else {
                int l1 = add(nodes, made, p.tree(), LONGCUT, gs, topology, first);
                setParent(nodes, l1, q1, 0);
                setParent(nodes, id, l1, 0);
            }
        }
        return new Pathmap(pathmap.spec(), nodes, pathmap.entries());
    }

    private static String link(WanLayout layout, String from, String to) {
        LinkDirection link = layout.link(from, to);
        if (link == null) {
            throw new IllegalArgumentException(layout.source() + ": no 'link " + from + " " + to + "' line, but the trees "
                    + "send between sites " + from + " and " + to + " (each direction needs a line)");
        }
        return link.name();
    }

    private static int add(List<Node> nodes, Map<String, Integer> made, int tree, String kind, int host, Topology topology,
                           Map<String, String> properties) {
        int id = nodes.size();
        nodes.add(new Node(id, name(made, tree, kind, host, topology), kind, tree, host, -1, 0, 1, properties));
        return id;
    }

    /** {@code t<tree>.longcut.<host>.<n>}, or {@code t<tree>.proxy.<host>.wan<n>} beside the builder's own proxies. */
    private static String name(Map<String, Integer> made, int tree, String kind, int host, Topology topology) {
        int n = made.merge(tree + "." + kind + "." + host, 1, Integer::sum) - 1;
        return "t" + tree + "." + kind + "." + topology.host(host).name() + "." + (kind.equals(LONGCUT) ? "" : "wan") + n;
    }

    private static void setParent(List<Node> nodes, int id, int parent, int port) {
        Node n = nodes.get(id);
        nodes.set(id, new Node(n.id(), n.name(), n.kind(), n.tree(), n.host(), parent, port, n.arity(), n.properties()));
    }
}
