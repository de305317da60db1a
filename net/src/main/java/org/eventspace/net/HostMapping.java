package org.eventspace.net;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import org.eventspace.base.io.BoundedFiles;
import org.eventspace.base.io.InputLimitException;

/**
 * Where a job's hosts sit in a topology: host i → node. From an {@code eventspace-mapping 1} file (lines
 * {@code HOST NODE}: a host by name or index, a node by name; docs/TOPOLOGY-FORMAT.md), or, without one, the hosts onto
 * the topology's nodes in order. Ranks reach nodes through their hosts (the traffic file's {@code rank_hosts}).
 */
public final class HostMapping {
    public static final String HEADER = "eventspace-mapping 1";
    private final int[] nodeOf;

    private HostMapping(int[] nodeOf) {
        this.nodeOf = nodeOf;
    }

    public int nodeOf(int host) {
        return nodeOf[host];
    }

    /** Host i on node i. */
    public static HostMapping inOrder(List<String> hostNames, Fabric fabric) {
        if (hostNames.size() > fabric.nodes().size()) {
            throw new IllegalArgumentException("the traffic has " + hostNames.size() + " hosts but the topology only "
                    + fabric.nodes().size() + " nodes; give a --mapping or a larger topology");
        }
        int[] nodes = new int[hostNames.size()];
        for (int h = 0; h < nodes.length; h++) {
            nodes[h] = h;
        }
        return new HostMapping(nodes);
    }

    public static HostMapping read(Path file, List<String> hostNames, Fabric fabric) {
        List<String> lines;
        try {
            lines = BoundedFiles.readAllLines(file);
        } catch (InputLimitException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        } catch (IOException e) {
            throw new IllegalArgumentException(file + ": cannot read: " + e.getMessage(), e);
        }
        int[] nodes = new int[hostNames.size()];
        java.util.Arrays.fill(nodes, -1);
        boolean header = false;
        for (int i = 0; i < lines.size(); i++) {
            String t = lines.get(i).trim();
            if (t.isEmpty() || t.startsWith("#")) {
                continue;
            }
            String where = file + ":" + (i + 1) + ": ";
            if (!header) {
                if (!t.equals(HEADER)) {
                    throw new IllegalArgumentException(where + "expected the header '" + HEADER + "', got '"
                            + TopologyFile.bounded(t) + "'");
                }
                header = true;
                continue;
            }
            String[] w = t.split("\\s+");
            if (w.length != 2) {
                throw new IllegalArgumentException(where + "expected 'HOST NODE' (a host name or index, a node name)");
            }
            int host = hostNames.indexOf(w[0]);
            if (host < 0 && w[0].matches("\\d{1,9}") && Integer.parseInt(w[0]) < hostNames.size()) {
                host = Integer.parseInt(w[0]);
            }
            if (host < 0) {
                throw new IllegalArgumentException(where + "'" + TopologyFile.bounded(w[0]) + "' is no host of the traffic; "
                        + "expected a name of " + hostNames + " or an index 0.." + (hostNames.size() - 1));
            }
            int node = fabric.nodeIndex(w[1]);
            if (node < 0) {
                throw new IllegalArgumentException(where + "'" + TopologyFile.bounded(w[1]) + "' is no node of the topology");
            }
            if (nodes[host] >= 0) {
                throw new IllegalArgumentException(where + "host " + hostNames.get(host) + " is mapped twice");
            }
            nodes[host] = node;
        }
        if (!header) {
            throw new IllegalArgumentException(file + ":1: expected the header '" + HEADER + "', the file is empty");
        }
        for (int h = 0; h < nodes.length; h++) {
            if (nodes[h] < 0) {
                throw new IllegalArgumentException(file + ": host " + hostNames.get(h) + " is not mapped to a node");
            }
        }
        return new HostMapping(nodes);
    }
}
