package org.eventspace.comm.pathmap;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Clusters → hosts → CPUs: the machine a pathmap is laid over (dissertation §7.1, the pathmap's topology and mapping).
 * Host ids are their index in {@link #hosts()}; hosts of one cluster are contiguous. Host and cluster names are
 * unique together, since per-branch overrides name either.
 */
public record Topology(List<String> clusters, List<Host> hosts) {
    public Topology {
        clusters = List.copyOf(clusters);
        hosts = List.copyOf(hosts);
        if (hosts.isEmpty()) {
            throw new IllegalArgumentException("a topology needs at least one host");
        }
        Set<String> names = new HashSet<>();
        for (String c : clusters) {
            if (!names.add(c)) {
                throw new IllegalArgumentException("cluster name " + c + " is used twice");
            }
        }
        // A set, not clusters.contains: a scan of the cluster list per host is quadratic with a cluster per host.
        Set<String> clusterNames = new HashSet<>(clusters);
        Set<String> finished = new HashSet<>();
        for (int i = 0; i < hosts.size(); i++) {
            Host h = hosts.get(i);
            if (h.id() != i) {
                throw new IllegalArgumentException("host " + h.name() + " has id " + h.id() + " but is at index " + i);
            }
            if (!clusterNames.contains(h.cluster())) {
                throw new IllegalArgumentException("host " + h.name() + " names unknown cluster " + h.cluster());
            }
            if (!names.add(h.name())) {
                throw new IllegalArgumentException("host name " + h.name() + " is already the name of a host or cluster");
            }
            if (i > 0 && !hosts.get(i - 1).cluster().equals(h.cluster())) {
                finished.add(hosts.get(i - 1).cluster());
                if (finished.contains(h.cluster())) {
                    throw new IllegalArgumentException("hosts of cluster " + h.cluster() + " are not contiguous: host "
                            + h.name() + " at index " + i + " follows another cluster's hosts");
                }
            }
        }
    }

    /** {@code clusterCount} clusters of {@code hostsPerCluster} hosts named c0/h0, c0/h1, … with {@code cpus} each. */
    public static Topology simulated(int clusterCount, int hostsPerCluster, int cpus) {
        if (clusterCount < 1 || hostsPerCluster < 1) {
            throw new IllegalArgumentException("need at least one cluster and one host, clusters=" + clusterCount
                    + ", hostsPerCluster=" + hostsPerCluster);
        }
        List<String> clusters = new ArrayList<>();
        List<Host> hosts = new ArrayList<>();
        for (int c = 0; c < clusterCount; c++) {
            String cluster = "c" + c;
            clusters.add(cluster);
            for (int h = 0; h < hostsPerCluster; h++) {
                hosts.add(new Host(hosts.size(), "h" + hosts.size(), cluster, cpus));
            }
        }
        return new Topology(clusters, hosts);
    }

    public Host host(int id) {
        return hosts.get(id);
    }

    public int size() {
        return hosts.size();
    }

    public int hostId(String name) {
        for (Host h : hosts) {
            if (h.name().equals(name)) {
                return h.id();
            }
        }
        return -1;
    }
}
