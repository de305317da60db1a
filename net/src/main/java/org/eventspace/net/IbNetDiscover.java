package org.eventspace.net;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.eventspace.base.io.BoundedFiles;
import org.eventspace.base.io.InputLimitException;

/**
 * A real InfiniBand fabric from the text {@code ibnetdiscover} prints, and optionally its switches' linear forwarding
 * tables as {@code dump_lfts.sh} (or {@code ibroute} per switch) prints them: what the ibprof paper's post-processing reads
 * (§3.3, there from {@code ibdiagnet}'s files). Understood:
 *
 * <pre>
 * Switch  36 "S-0002c90300a1b2c0"   # "switch-1" enhanced port 0 lid 3 lmc 0
 * [1]     "H-0002c903000e1230"[1](2c903000e1231)   # "node01 HCA-1" lid 5 4xFDR
 * Ca      2 "H-0002c903000e1230"    # "node01 HCA-1"
 * [1](2c903000e1231)  "S-0002c90300a1b2c0"[1]      # lid 5 lmc 0 "switch-1" lid 3 4xFDR
 *
 * Unicast lids [0x0-0x8] of switch Lid 3 guid 0x0002c90300a1b2c0 (switch-1):
 * 0x0005 001 : (Channel Adapter portguid 0x0002c903000e1231: 'node01 HCA-1')
 * </pre>
 *
 * Every other line ({@code vendid=}, {@code devid=}, comments) is skipped. A channel adapter's port is an endpoint; its
 * node is the first word of the adapter's description (two adapters or ports of one node are its rails). A subnet is a
 * set of switches joined by links; a switch without a forwarding table gets min-hop routes. Errors name the file and line.
 */
final class IbNetDiscover {
    private static final Pattern DEVICE = Pattern.compile("^(Switch|Ca)\\s+(\\d+)\\s+\"([SH]-[0-9a-fA-F]+)\"\\s*(?:#\\s*\"([^\"]*)\")?(.*)$");
    private static final Pattern PORT = Pattern.compile(
            "^\\[(\\d+)\\](?:\\([0-9a-fA-F]+\\))?\\s*\"([SH]-[0-9a-fA-F]+)\"\\[(\\d+)\\](?:\\([0-9a-fA-F]+\\))?\\s*(?:#(.*))?$");
    private static final Pattern LID = Pattern.compile("\\blid\\s+(\\d+)");
    private static final Pattern LFT_HEADER = Pattern.compile("^Unicast lids .* of switch Lid (\\d+) guid 0x([0-9a-fA-F]+).*$");
    private static final Pattern LFT_ENTRY = Pattern.compile("^0x([0-9a-fA-F]+)\\s+(\\d+)\\s*:.*$");

    private IbNetDiscover() {
    }

    private static final class Dev {
        final String guid;
        final boolean isSwitch;
        final int ports;
        final String description;
        final Map<Integer, String[]> peers = new HashMap<>();
        final Map<Integer, Integer> lids = new HashMap<>();

        Dev(String guid, boolean isSwitch, int ports, String description) {
            this.guid = guid;
            this.isSwitch = isSwitch;
            this.ports = ports;
            this.description = description;
        }
    }

    static Fabric read(Path topology, Path lfts) {
        List<String> lines;
        try {
            lines = BoundedFiles.readAllLines(topology);
        } catch (InputLimitException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        } catch (IOException e) {
            throw new IllegalArgumentException(TopologyFile.cannotRead(topology, e), e);
        }
        Map<String, Dev> devs = new LinkedHashMap<>();
        Dev current = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            String where = topology + ":" + (i + 1) + ": ";
            Matcher d = DEVICE.matcher(line);
            if (d.matches()) {
                int ports = Integer.parseInt(d.group(2));
                if (ports < 1 || ports > 255) {
                    throw new IllegalArgumentException(where + "expected 1..255 ports, got " + ports);
                }
                String guid = d.group(3).substring(2).toLowerCase(java.util.Locale.ROOT);
                if (devs.containsKey(guid)) {
                    throw new IllegalArgumentException(where + "device " + d.group(3) + " is described twice");
                }
                current = new Dev(guid, d.group(1).equals("Switch"), ports, d.group(4) == null ? d.group(3) : d.group(4));
                devs.put(guid, current);
                continue;
            }
            if (line.startsWith("[")) {
                Matcher p = PORT.matcher(line);
                if (!p.matches()) {
                    throw new IllegalArgumentException(where + "expected a port line '[P] \"S-guid\"[Q] # …', got '"
                            + TopologyFile.bounded(line) + "'");
                }
                if (current == null) {
                    throw new IllegalArgumentException(where + "a port line before any 'Switch' or 'Ca' line");
                }
                int port = Integer.parseInt(p.group(1));
                if (port < 1 || port > current.ports) {
                    throw new IllegalArgumentException(where + "port " + port + " of a device with ports 1.." + current.ports);
                }
                current.peers.put(port, new String[] {p.group(2).substring(2).toLowerCase(java.util.Locale.ROOT), p.group(3),
                    Integer.toString(i + 1)});
                if (!current.isSwitch && p.group(4) != null) {
                    Matcher lid = LID.matcher(p.group(4));
                    if (lid.find()) {
                        current.lids.put(port, Integer.parseInt(lid.group(1)));
                    }
                }
            }
        }
        if (devs.isEmpty()) {
            throw new IllegalArgumentException(topology + ": expected 'Switch' and 'Ca' lines as ibnetdiscover prints them, found none");
        }
        // Subnets: switches joined by switch-to-switch links, in order of first appearance.
        Map<String, Integer> subnetOf = new HashMap<>();
        int subnets = 0;
        for (Dev s : devs.values()) {
            if (!s.isSwitch || subnetOf.containsKey(s.guid)) {
                continue;
            }
            List<Dev> stack = new ArrayList<>(List.of(s));
            subnetOf.put(s.guid, subnets);
            while (!stack.isEmpty()) {
                Dev at = stack.remove(stack.size() - 1);
                for (String[] peer : at.peers.values()) {
                    Dev other = devs.get(peer[0]);
                    if (other != null && other.isSwitch && !subnetOf.containsKey(other.guid)) {
                        subnetOf.put(other.guid, subnets);
                        stack.add(other);
                    }
                }
            }
            subnets++;
        }
        Fabric.Builder b = new Fabric.Builder("InfiniBand fabric from " + topology.getFileName()
                + (lfts != null ? " with forwarding tables from " + lfts.getFileName() : ", min-hop routes"));
        b.subnets(Math.max(1, subnets));
        Map<String, Integer> switchId = new HashMap<>();
        for (Dev s : devs.values()) {
            if (s.isSwitch) {
                switchId.put(s.guid, b.device(unique(b, s.description.isBlank() ? "S-" + s.guid : s.description), Fabric.Kind.SWITCH,
                        s.ports, -1, subnetOf.get(s.guid), -1, -1));
            }
        }
        Map<String, Integer> endpointId = new HashMap<>();
        Map<Integer, Integer> byLid = new HashMap<>();
        Map<String, List<Integer>> nodeEndpoints = new LinkedHashMap<>();
        for (Dev ca : devs.values()) {
            if (ca.isSwitch) {
                continue;
            }
            String node = ca.description.trim().split("\\s+")[0];
            for (Map.Entry<Integer, String[]> e : ca.peers.entrySet()) {
                Integer sw = switchId.get(e.getValue()[0]);
                if (sw == null) {
                    continue;
                }
                int subnet = b.get(sw).subnet();
                int id = b.device(unique(b, node + "/" + subnet), Fabric.Kind.ENDPOINT, 1, 0, subnet, -1, -1);
                endpointId.put(ca.guid + ":" + e.getKey(), id);
                nodeEndpoints.computeIfAbsent(node, k -> new ArrayList<>()).add(id);
                Integer lid = ca.lids.get(e.getKey());
                if (lid != null) {
                    byLid.put(lid, id);
                }
            }
        }
        Set<String> linked = new HashSet<>();
        for (Dev dev : devs.values()) {
            for (Map.Entry<Integer, String[]> e : dev.peers.entrySet()) {
                String[] peer = e.getValue();
                String here = dev.guid + ":" + e.getKey();
                String there = peer[0] + ":" + peer[1];
                if (linked.contains(here) || linked.contains(there)) {
                    continue;
                }
                int a = dev.isSwitch ? switchId.get(dev.guid) : endpointId.getOrDefault(here, -1);
                int aPort = dev.isSwitch ? e.getKey() : 1;
                Dev other = devs.get(peer[0]);
                if (other == null) {
                    throw new IllegalArgumentException(topology + ":" + peer[2] + ": port " + e.getKey() + " leads to "
                            + (peer[0]) + ", which the file does not describe");
                }
                int bDev = other.isSwitch ? switchId.get(other.guid) : endpointId.getOrDefault(there, -1);
                int bPort = other.isSwitch ? Integer.parseInt(peer[1]) : 1;
                if (a < 0 || bDev < 0) {
                    continue;
                }
                try {
                    b.link(a, aPort, bDev, bPort);
                } catch (IllegalArgumentException ex) {
                    throw new IllegalArgumentException(topology + ":" + peer[2] + ": " + ex.getMessage(), ex);
                }
                linked.add(here);
                linked.add(there);
            }
        }
        for (Map.Entry<String, List<Integer>> n : nodeEndpoints.entrySet()) {
            int[] slots = new int[Math.max(1, subnets)];
            java.util.Arrays.fill(slots, -1);
            for (int id : n.getValue()) {
                slots[b.get(id).subnet()] = id;
            }
            b.node(n.getKey(), slots);
        }
        if (lfts != null) {
            readTables(lfts, b, switchId, byLid);
        }
        b.markTablesGiven();
        b.minHopTables();
        TopologyFile.layers(b);
        return b.build();
    }

    private static String unique(Fabric.Builder b, String name) {
        String n = name.replaceAll("\\s+", "_");
        if (b.find(n) < 0) {
            return n;
        }
        for (int i = 2; ; i++) {
            if (b.find(n + "#" + i) < 0) {
                return n + "#" + i;
            }
        }
    }

    private static void readTables(Path file, Fabric.Builder b, Map<String, Integer> switchId, Map<Integer, Integer> byLid) {
        List<String> lines;
        try {
            lines = BoundedFiles.readAllLines(file);
        } catch (InputLimitException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        } catch (IOException e) {
            throw new IllegalArgumentException(TopologyFile.cannotRead(file, e), e);
        }
        Integer sw = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            String where = file + ":" + (i + 1) + ": ";
            Matcher h = LFT_HEADER.matcher(line);
            if (h.matches()) {
                String guid = h.group(2).toLowerCase(java.util.Locale.ROOT).replaceFirst("^0+(?=.)", "");
                sw = null;
                for (Map.Entry<String, Integer> e : switchId.entrySet()) {
                    if (e.getKey().replaceFirst("^0+(?=.)", "").equals(guid)) {
                        sw = e.getValue();
                    }
                }
                if (sw == null) {
                    throw new IllegalArgumentException(where + "switch guid 0x" + h.group(2) + " is not in the topology");
                }
                continue;
            }
            Matcher e = LFT_ENTRY.matcher(line);
            if (e.matches()) {
                if (sw == null) {
                    throw new IllegalArgumentException(where + "a forwarding entry before any 'Unicast lids … of switch' line");
                }
                int lid = Integer.parseInt(e.group(1), 16);
                int port = Integer.parseInt(e.group(2));
                Integer endpoint = byLid.get(lid);
                if (endpoint == null || port == 0) {
                    continue;
                }
                try {
                    b.forward(sw, endpoint, port);
                } catch (IllegalArgumentException ex) {
                    throw new IllegalArgumentException(where + ex.getMessage(), ex);
                }
            }
        }
    }
}
