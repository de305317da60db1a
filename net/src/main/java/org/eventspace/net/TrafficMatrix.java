package org.eventspace.net;

import static org.eventspace.comm.traffic.TrafficCounterLayout.BYTES_RECEIVED_OFFSET;
import static org.eventspace.comm.traffic.TrafficCounterLayout.BYTES_SENT_OFFSET;
import static org.eventspace.comm.traffic.TrafficCounterLayout.MESSAGES_RECEIVED_OFFSET;
import static org.eventspace.comm.traffic.TrafficCounterLayout.MESSAGES_SENT_OFFSET;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.traffic.TrafficCounters;
import org.eventspace.comm.traffic.TrafficScope;
import org.eventspace.comm.traffic.TrafficTag;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A job's communication matrix, from the counters its transports kept where messages left (ibprof paper §3.2), per
 * phase: rank × rank (point-to-point messages, counted under the two ranks' ports) and host × host (everything that
 * crossed a hop, tree hops included, counted under the two hosts). Every matrix is indexed {@code [source][dest]}:
 * {@code bytes_sent[s][d]} is what s's end counted as sent to d, {@code bytes_received[s][d]} what d's end counted as
 * received from s, kept apart as ibprof keeps them. Messages between ranks of one host never reach a transport and are
 * not in it. Immutable.
 *
 * <p>It is made from the processes' parts ({@link #part}: one per process, its hosts' non-zero cells and the phases it
 * numbered), merged by {@link #merge}; written and read as {@code eventspace.traffic/1} (docs/TRAFFIC-FORMAT.md).
 */
public final class TrafficMatrix {
    public static final String SCHEMA = "eventspace.traffic/1";
    /** The four counts of a cell, in {@link org.eventspace.comm.traffic.TrafficCounterLayout} order, as the file names them. */
    public static final List<String> FIELDS = List.of("bytes_sent", "messages_sent", "bytes_received", "messages_received");
    private static final int[] OFFSETS = {BYTES_SENT_OFFSET, MESSAGES_SENT_OFFSET, BYTES_RECEIVED_OFFSET, MESSAGES_RECEIVED_OFFSET};

    private final String scope;
    private final List<String> phases;
    private final int[] rankHosts;
    private final List<String> hostNames;
    /** [phase][field][source][dest]. */
    private final long[][][][] rank;
    private final long[][][][] host;

    private TrafficMatrix(String scope, List<String> phases, int[] rankHosts, List<String> hostNames, long[][][][] rank,
                          long[][][][] host) {
        this.scope = scope;
        this.phases = List.copyOf(phases);
        this.rankHosts = rankHosts.clone();
        this.hostNames = List.copyOf(hostNames);
        this.rank = rank;
        this.host = host;
    }

    /**
     * What this process's hosts counted: the phases its scope numbered and every non-zero cell of every port, as
     * {@code {"scope", "phases": [names], "ports": [{"kind", "id", "cells": [[peer, phase, bytes_sent, messages_sent,
     * bytes_received, messages_received]]}]}}.
     */
    public static ObjectNode part(List<TrafficCounters> counters, ObjectMapper json) {
        ObjectNode part = json.createObjectNode();
        TrafficScope scope = counters.stream().map(TrafficCounters::scope).filter(s -> s != null).findFirst().orElse(null);
        part.put("scope", scope == null ? null : scope.text());
        ArrayNode names = part.putArray("phases");
        (scope == null ? List.of(TrafficScope.UNMARKED) : scope.phaseNames()).forEach(names::add);
        ArrayNode ports = part.putArray("ports");
        for (TrafficCounters c : counters) {
            for (TrafficCounters.Port p : c.ports()) {
                ObjectNode port = ports.addObject();
                port.put("kind", p.kind() == TrafficCounters.PortKind.RANK ? "rank" : "host");
                port.put("id", p.id());
                port.put("host", c.host());
                ArrayNode cells = port.putArray("cells");
                for (int peer = 0; peer < p.peers(); peer++) {
                    for (int phase = 0; phase < TrafficTag.MAX_PHASES; phase++) {
                        long[] v = new long[4];
                        boolean any = false;
                        for (int f = 0; f < 4; f++) {
                            v[f] = p.read(peer, phase, OFFSETS[f]);
                            any |= v[f] != 0;
                        }
                        if (any) {
                            ArrayNode cell = cells.addArray();
                            cell.add(peer).add(phase);
                            for (long x : v) {
                                cell.add(x);
                            }
                        }
                    }
                }
            }
        }
        return part;
    }

    /**
     * Merges the parts of every process of a job laid out by {@code spec}.
     *
     * @throws IllegalArgumentException naming the part and what was expected: malformed cells, or processes that
     *                                  numbered the phases differently (ranks marked them in different orders).
     */
    public static TrafficMatrix merge(List<JsonNode> parts, PathmapSpec spec) {
        int ranks = spec.ranks();
        int hosts = spec.topology().size();
        List<String> phases = new ArrayList<>();
        String scope = null;
        for (int i = 0; i < parts.size(); i++) {
            JsonNode part = parts.get(i);
            if (scope == null && part.hasNonNull("scope")) {
                scope = part.get("scope").asText();
            }
            JsonNode names = part.path("phases");
            for (int k = 0; k < names.size(); k++) {
                String name = names.get(k).asText();
                if (k < phases.size() && !phases.get(k).equals(name)) {
                    throw new IllegalArgumentException("traffic part " + i + ": phase " + k + " is '" + name + "' there but '"
                            + phases.get(k) + "' in an earlier part; every rank must mark the same phases in the same order");
                }
                if (k >= phases.size()) {
                    phases.add(name);
                }
            }
        }
        if (phases.isEmpty()) {
            phases.add(TrafficScope.UNMARKED);
        }
        long[][][][] rank = new long[phases.size()][4][ranks][ranks];
        long[][][][] host = new long[phases.size()][4][hosts][hosts];
        int[] rankHosts = spec.rankHosts();
        for (int i = 0; i < parts.size(); i++) {
            for (JsonNode port : parts.get(i).path("ports")) {
                boolean isRank = "rank".equals(port.path("kind").asText());
                int id = port.path("id").asInt(-1);
                int limit = isRank ? ranks : hosts;
                if (id < 0 || id >= limit) {
                    throw new IllegalArgumentException("traffic part " + i + ": port id " + id + ", expected 0.." + (limit - 1));
                }
                for (JsonNode cell : port.path("cells")) {
                    int peer = cell.path(0).asInt(-1);
                    int phase = cell.path(1).asInt(-1);
                    if (peer < 0 || peer >= limit || phase < 0 || phase >= phases.size() || cell.size() != 6) {
                        throw new IllegalArgumentException("traffic part " + i + ": cell " + cell + ", expected [peer 0.."
                                + (limit - 1) + ", phase 0.." + (phases.size() - 1) + ", 4 counts]");
                    }
                    for (int f = 0; f < 4; f++) {
                        long v = cell.get(2 + f).asLong();
                        boolean sent = f < 2;
                        int src = sent ? id : peer;
                        int dst = sent ? peer : id;
                        if (isRank) {
                            rank[phase][f][src][dst] += v;
                            host[phase][f][rankHosts[src]][rankHosts[dst]] += v;
                        } else {
                            host[phase][f][src][dst] += v;
                        }
                    }
                }
            }
        }
        List<String> hostNames = new ArrayList<>();
        for (int h = 0; h < hosts; h++) {
            hostNames.add(spec.topology().host(h).name());
        }
        return new TrafficMatrix(scope == null ? "all" : scope, phases, rankHosts, hostNames, rank, host);
    }

    /** The matrix of this process's own counters (a job simulated in one JVM has them all). */
    public static TrafficMatrix of(List<TrafficCounters> counters, PathmapSpec spec) {
        return merge(List.of(part(counters, new ObjectMapper())), spec);
    }

    public List<String> phases() {
        return phases;
    }

    public int ranks() {
        return rankHosts.length;
    }

    public int hosts() {
        return hostNames.size();
    }

    public List<String> hostNames() {
        return hostNames;
    }

    public int hostOf(int r) {
        return rankHosts[r];
    }

    public String scope() {
        return scope;
    }

    /** Field {@code field} ({@link #FIELDS} index) of the rank × rank matrix of {@code phase}, or of all phases if -1. */
    public long[][] rankMatrix(int phase, int field) {
        return select(rank, phase, field, ranks());
    }

    /** As {@link #rankMatrix} for host × host. */
    public long[][] hostMatrix(int phase, int field) {
        return select(host, phase, field, hosts());
    }

    private long[][] select(long[][][][] m, int phase, int field, int n) {
        long[][] out = new long[n][n];
        for (int p = 0; p < phases.size(); p++) {
            if (phase >= 0 && p != phase) {
                continue;
            }
            for (int s = 0; s < n; s++) {
                for (int d = 0; d < n; d++) {
                    out[s][d] += m[p][field][s][d];
                }
            }
        }
        return out;
    }

    /** Sum of a matrix. */
    public static long total(long[][] m) {
        long t = 0;
        for (long[] row : m) {
            for (long v : row) {
                t += v;
            }
        }
        return t;
    }

    /** The {@code eventspace.traffic/1} document; {@code run} is what ran (benchmark, transport), copied in. */
    public ObjectNode toJson(ObjectMapper json, ObjectNode run) {
        ObjectNode root = json.createObjectNode();
        root.put("schema", SCHEMA);
        if (run != null) {
            root.set("run", run);
        }
        root.put("scope", scope);
        root.put("bytes", "payload bytes (8 per word), frame headers not included");
        root.put("ranks", ranks());
        root.put("hosts", hosts());
        ArrayNode rh = root.putArray("rank_hosts");
        for (int h : rankHosts) {
            rh.add(h);
        }
        ArrayNode hn = root.putArray("host_names");
        hostNames.forEach(hn::add);
        ArrayNode ph = root.putArray("phases");
        for (int p = 0; p < phases.size(); p++) {
            ObjectNode phase = ph.addObject();
            phase.put("name", phases.get(p));
            putMatrices(phase, p);
        }
        putMatrices(root.putObject("total"), -1);
        return root;
    }

    private void putMatrices(ObjectNode into, int phase) {
        ObjectNode r = into.putObject("rank");
        ObjectNode h = into.putObject("host");
        for (int f = 0; f < 4; f++) {
            putMatrix(r.putArray(FIELDS.get(f)), rankMatrix(phase, f));
            putMatrix(h.putArray(FIELDS.get(f)), hostMatrix(phase, f));
        }
    }

    private static void putMatrix(ArrayNode into, long[][] m) {
        for (long[] row : m) {
            ArrayNode a = into.addArray();
            for (long v : row) {
                a.add(v);
            }
        }
    }

    public void write(Path file, ObjectNode run) throws IOException {
        ObjectMapper json = new ObjectMapper();
        json.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), toJson(json, run));
    }

    /**
     * Reads an {@code eventspace.traffic/1} file.
     *
     * @throws IllegalArgumentException naming the file, the field (a JSON pointer) and what was expected.
     */
    public static TrafficMatrix read(Path file) {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(Files.readAllBytes(file));
        } catch (IOException e) {
            throw new IllegalArgumentException(file + ": not readable as JSON: " + e.getMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException(file + ": expected a JSON object");
        }
        if (!SCHEMA.equals(root.path("schema").asText())) {
            throw new IllegalArgumentException(file + ": /schema: expected \"" + SCHEMA + "\", got " + root.path("schema"));
        }
        int ranks = positive(file, root, "/ranks");
        int hosts = positive(file, root, "/hosts");
        JsonNode rh = root.path("rank_hosts");
        if (!rh.isArray() || rh.size() != ranks) {
            throw new IllegalArgumentException(file + ": /rank_hosts: expected an array of " + ranks + " host ids");
        }
        int[] rankHosts = new int[ranks];
        for (int r = 0; r < ranks; r++) {
            rankHosts[r] = rh.get(r).asInt(-1);
            if (!rh.get(r).isInt() || rankHosts[r] < 0 || rankHosts[r] >= hosts) {
                throw new IllegalArgumentException(file + ": /rank_hosts/" + r + ": expected a host id 0.." + (hosts - 1));
            }
        }
        JsonNode hn = root.path("host_names");
        if (!hn.isArray() || hn.size() != hosts) {
            throw new IllegalArgumentException(file + ": /host_names: expected an array of " + hosts + " names");
        }
        List<String> hostNames = new ArrayList<>();
        hn.forEach(n -> hostNames.add(n.asText()));
        JsonNode ph = root.path("phases");
        if (!ph.isArray() || ph.isEmpty()) {
            throw new IllegalArgumentException(file + ": /phases: expected a non-empty array");
        }
        List<String> names = new ArrayList<>();
        long[][][][] rank = new long[ph.size()][4][][];
        long[][][][] host = new long[ph.size()][4][][];
        for (int p = 0; p < ph.size(); p++) {
            String at = "/phases/" + p;
            JsonNode phase = ph.get(p);
            if (!phase.path("name").isTextual()) {
                throw new IllegalArgumentException(file + ": " + at + "/name: expected a phase name");
            }
            names.add(phase.get("name").asText());
            for (int f = 0; f < 4; f++) {
                rank[p][f] = matrix(file, phase.path("rank").path(FIELDS.get(f)), at + "/rank/" + FIELDS.get(f), ranks);
                host[p][f] = matrix(file, phase.path("host").path(FIELDS.get(f)), at + "/host/" + FIELDS.get(f), hosts);
            }
        }
        return new TrafficMatrix(root.path("scope").asText("all"), names, rankHosts, hostNames, rank, host);
    }

    private static int positive(Path file, JsonNode root, String pointer) {
        JsonNode n = root.at(pointer);
        if (!n.isInt() || n.asInt() < 1) {
            throw new IllegalArgumentException(file + ": " + pointer + ": expected an integer >= 1, got " + n);
        }
        return n.asInt();
    }

    private static long[][] matrix(Path file, JsonNode node, String pointer, int n) {
        if (!node.isArray() || node.size() != n) {
            throw new IllegalArgumentException(file + ": " + pointer + ": expected " + n + " rows of " + n + " counts");
        }
        long[][] m = new long[n][n];
        for (int s = 0; s < n; s++) {
            JsonNode row = node.get(s);
            if (!row.isArray() || row.size() != n) {
                throw new IllegalArgumentException(file + ": " + pointer + "/" + s + ": expected a row of " + n + " counts");
            }
            for (int d = 0; d < n; d++) {
                JsonNode v = row.get(d);
                if (!v.canConvertToLong() || !v.isIntegralNumber() || v.asLong() < 0) {
                    throw new IllegalArgumentException(file + ": " + pointer + "/" + s + "/" + d
                            + ": expected a count >= 0, got " + v);
                }
                m[s][d] = v.asLong();
            }
        }
        return m;
    }
}
