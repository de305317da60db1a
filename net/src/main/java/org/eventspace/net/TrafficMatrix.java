package org.eventspace.net;

import static org.eventspace.comm.traffic.TrafficCounterLayout.BYTES_RECEIVED_OFFSET;
import static org.eventspace.comm.traffic.TrafficCounterLayout.BYTES_SENT_OFFSET;
import static org.eventspace.comm.traffic.TrafficCounterLayout.MESSAGES_RECEIVED_OFFSET;
import static org.eventspace.comm.traffic.TrafficCounterLayout.MESSAGES_SENT_OFFSET;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.eventspace.base.io.BoundedFiles;
import org.eventspace.base.io.InputLimitException;
import org.eventspace.base.json.Json;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.traffic.TrafficCounters;
import org.eventspace.comm.traffic.TrafficScope;
import org.eventspace.comm.traffic.TrafficTag;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A job's communication matrix, from the counters its transports kept where messages left (ibprof paper §3.2), per
 * phase: rank × rank (point-to-point messages, counted under the two ranks' ports) and host × host (everything that
 * crossed a hop, tree hops included, counted under the two hosts). Every matrix is indexed {@code [source][dest]}:
 * {@code bytes_sent[s][d]} is what s's end counted as sent to d, {@code bytes_received[s][d]} what d's end counted as
 * received from s, kept apart as ibprof keeps them. Messages between ranks of one host never reach a transport and are
 * not in it. The same counts are kept per operation too ({@code send}, {@code allreduce}, …: which kind of call the
 * message belonged to), so a user sees what each collective's algorithm moved. Immutable.
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
    /** The operations that moved anything, and their matrices: [operation][field][source][dest]. */
    private final List<String> operations;
    private final long[][][][] rankByOperation;
    private final long[][][][] hostByOperation;
    /** Where the counts were taken, for the file (null: at both ends, by our transports). */
    private final String countedBy;

    private TrafficMatrix(String scope, List<String> phases, int[] rankHosts, List<String> hostNames, long[][][][] rank,
                          long[][][][] host, List<String> operations, long[][][][] rankByOperation,
                          long[][][][] hostByOperation, String countedBy) {
        this.scope = scope;
        this.phases = List.copyOf(phases);
        this.rankHosts = rankHosts.clone();
        this.hostNames = List.copyOf(hostNames);
        this.rank = rank;
        this.host = host;
        this.operations = List.copyOf(operations);
        this.rankByOperation = rankByOperation;
        this.hostByOperation = hostByOperation;
        this.countedBy = countedBy;
    }

    /**
     * A matrix counted outside our transports (an MPI library's own counters), one phase, given per operation: the
     * phase's matrices are the operations' sums, and each host matrix folds the rank matrix onto the hosts.
     *
     * @param rankByOperation per operation, [field][source][dest] over ranks ({@link #FIELDS} order).
     * @param countedBy       says where the counts were taken and what the received fields mean (written to the file).
     */
    public static TrafficMatrix ofRanks(String scope, int[] rankHosts, List<String> hostNames,
                                       java.util.Map<String, long[][][]> rankByOperation, String countedBy) {
        int ranks = rankHosts.length;
        int hosts = hostNames.size();
        List<String> ops = new ArrayList<>(rankByOperation.keySet());
        long[][][][] rankOps = new long[ops.size()][][][];
        long[][][][] hostOps = new long[ops.size()][4][hosts][hosts];
        long[][][][] rank = new long[1][4][ranks][ranks];
        long[][][][] host = new long[1][4][hosts][hosts];
        for (int o = 0; o < ops.size(); o++) {
            rankOps[o] = rankByOperation.get(ops.get(o));
            for (int f = 0; f < 4; f++) {
                if (rankOps[o].length != 4 || rankOps[o][f].length != ranks) {
                    throw new IllegalArgumentException("operation " + ops.get(o) + ": expected 4 matrices of " + ranks + " ranks");
                }
                for (int s = 0; s < ranks; s++) {
                    for (int d = 0; d < ranks; d++) {
                        long v = rankOps[o][f][s][d];
                        rank[0][f][s][d] += v;
                        hostOps[o][f][rankHosts[s]][rankHosts[d]] += v;
                        host[0][f][rankHosts[s]][rankHosts[d]] += v;
                    }
                }
            }
        }
        return new TrafficMatrix(scope, List.of(TrafficScope.UNMARKED), rankHosts, hostNames, rank, host, ops, rankOps,
                hostOps, countedBy);
    }

    /**
     * What this process's hosts counted: the phases its scope numbered and every non-zero cell of every port, as
     * {@code {"scope", "phases": [names], "ports": [{"kind", "id", "cells": [[peer, phase, bytes_sent, messages_sent,
     * bytes_received, messages_received]]}]}}.
     */
    public static ObjectNode part(List<TrafficCounters> counters, ObjectMapper json) {
        TrafficScope scope = counters.stream().map(TrafficCounters::scope).filter(s -> s != null).findFirst().orElse(null);
        List<PortPart> ports = new ArrayList<>();
        for (TrafficCounters c : counters) {
            for (TrafficCounters.Port p : c.ports()) {
                List<long[]> cells = new ArrayList<>();
                List<long[]> operationCells = new ArrayList<>();
                for (int peer = 0; peer < p.peers(); peer++) {
                    for (int phase = 0; phase < TrafficTag.MAX_PHASES; phase++) {
                        addCell(cells, peer, phase, p, false);
                    }
                    for (int kind = 0; kind < TrafficTag.KINDS; kind++) {
                        addCell(operationCells, peer, kind, p, true);
                    }
                }
                ports.add(new PortPart(p.kind() == TrafficCounters.PortKind.RANK ? "rank" : "host", p.id(), c.host(),
                        cells, operationCells));
            }
        }
        return json.valueToTree(new Part(scope == null ? null : scope.text(),
                scope == null ? List.of(TrafficScope.UNMARKED) : scope.phaseNames(), ports));
    }

    /** What one process counted, for {@link #merge}. */
    @JsonPropertyOrder({"scope", "phases", "ports"})
    record Part(String scope, List<String> phases, List<PortPart> ports) {
    }

    /** One port's non-zero cells: {@code [peer, phase or operation kind, bytes_sent, messages_sent, bytes_received, messages_received]}. */
    @JsonPropertyOrder({"kind", "id", "host", "cells", "operation_cells"})
    record PortPart(String kind, int id, int host, List<long[]> cells,
                    @JsonProperty("operation_cells") List<long[]> operationCells) {
    }

    private static void addCell(List<long[]> into, int peer, int slot, TrafficCounters.Port p, boolean operation) {
        long[] cell = new long[6];
        boolean any = false;
        cell[0] = peer;
        cell[1] = slot;
        for (int f = 0; f < 4; f++) {
            cell[2 + f] = operation ? p.readOperation(peer, slot, OFFSETS[f]) : p.read(peer, slot, OFFSETS[f]);
            any |= cell[2 + f] != 0;
        }
        if (any) {
            into.add(cell);
        }
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
        long[][][][] rankOps = new long[TrafficTag.KINDS][4][ranks][ranks];
        long[][][][] hostOps = new long[TrafficTag.KINDS][4][hosts][hosts];
        int[] rankHosts = spec.rankHosts();
        for (int i = 0; i < parts.size(); i++) {
            for (JsonNode port : parts.get(i).path("ports")) {
                boolean isRank = "rank".equals(port.path("kind").asText());
                int id = port.path("id").asInt(-1);
                int limit = isRank ? ranks : hosts;
                if (id < 0 || id >= limit) {
                    throw new IllegalArgumentException("traffic part " + i + ": port id " + id + ", expected 0.." + (limit - 1));
                }
                addCells(port.path("cells"), "phase", phases.size(), i, id, limit, isRank, rankHosts, rank, host);
                addCells(port.path("operation_cells"), "operation", TrafficTag.KINDS, i, id, limit, isRank, rankHosts,
                        rankOps, hostOps);
            }
        }
        List<String> hostNames = new ArrayList<>();
        for (int h = 0; h < hosts; h++) {
            hostNames.add(spec.topology().host(h).name());
        }
        List<String> ops = new ArrayList<>();
        List<long[][][]> rankKept = new ArrayList<>();
        List<long[][][]> hostKept = new ArrayList<>();
        for (int k = 0; k < TrafficTag.KINDS; k++) {
            if (any(rankOps[k]) || any(hostOps[k])) {
                ops.add(TrafficTag.kindName(k));
                rankKept.add(rankOps[k]);
                hostKept.add(hostOps[k]);
            }
        }
        return new TrafficMatrix(scope == null ? "all" : scope, phases, rankHosts, hostNames, rank, host, ops,
                rankKept.toArray(new long[0][][][]), hostKept.toArray(new long[0][][][]), null);
    }

    /** Adds a port's cells ([peer, slot, 4 counts], slot a phase or an operation kind) to [slot][field][src][dst]. */
    private static void addCells(JsonNode cells, String slotName, int slots, int part, int id, int limit, boolean isRank,
                                 int[] rankHosts, long[][][][] rank, long[][][][] host) {
        for (JsonNode cell : cells) {
            int peer = cell.path(0).asInt(-1);
            int slot = cell.path(1).asInt(-1);
            if (peer < 0 || peer >= limit || slot < 0 || slot >= slots || cell.size() != 6) {
                throw new IllegalArgumentException("traffic part " + part + ": cell " + cell + ", expected [peer 0.."
                        + (limit - 1) + ", " + slotName + " 0.." + (slots - 1) + ", 4 counts]");
            }
            for (int f = 0; f < 4; f++) {
                long v = cell.get(2 + f).asLong();
                boolean sent = f < 2;
                int src = sent ? id : peer;
                int dst = sent ? peer : id;
                if (isRank) {
                    rank[slot][f][src][dst] += v;
                    host[slot][f][rankHosts[src]][rankHosts[dst]] += v;
                } else {
                    host[slot][f][src][dst] += v;
                }
            }
        }
    }

    private static boolean any(long[][][] fields) {
        for (long[][] m : fields) {
            if (total(m) != 0) {
                return true;
            }
        }
        return false;
    }

    /** The matrix of this process's own counters (a job simulated in one JVM has them all). */
    public static TrafficMatrix of(List<TrafficCounters> counters, PathmapSpec spec) {
        return merge(List.of(part(counters, Json.mapper())), spec);
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

    /** The operations that moved anything ({@code send}, {@code allreduce}, … ; an MPI run's own names). */
    public List<String> operations() {
        return operations;
    }

    /** Field {@code field} of the rank × rank matrix of operation {@code op} (an {@link #operations()} index). */
    public long[][] rankMatrixOf(int op, int field) {
        return copy(rankByOperation[op][field]);
    }

    /** As {@link #rankMatrixOf} for host × host. */
    public long[][] hostMatrixOf(int op, int field) {
        return copy(hostByOperation[op][field]);
    }

    private static long[][] copy(long[][] m) {
        long[][] out = new long[m.length][];
        for (int i = 0; i < m.length; i++) {
            out[i] = m[i].clone();
        }
        return out;
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
        List<Named> phaseList = new ArrayList<>(phases.size());
        for (int p = 0; p < phases.size(); p++) {
            phaseList.add(new Named(phases.get(p), matrices(p)));
        }
        List<Named> operationList = new ArrayList<>(operations.size());
        for (int o = 0; o < operations.size(); o++) {
            operationList.add(new Named(operations.get(o),
                    new Matrices(Fields.of(rankByOperation[o]), Fields.of(hostByOperation[o]))));
        }
        return json.valueToTree(new Document(SCHEMA, run, scope,
                countedBy == null ? "payload bytes (8 per word), frame headers not included" : "message bytes",
                countedBy, ranks(), hosts(), rankHosts, hostNames, phaseList, operationList, matrices(-1)));
    }

    private Matrices matrices(int phase) {
        long[][][] r = new long[4][][];
        long[][][] h = new long[4][][];
        for (int f = 0; f < 4; f++) {
            r[f] = rankMatrix(phase, f);
            h[f] = hostMatrix(phase, f);
        }
        return new Matrices(Fields.of(r), Fields.of(h));
    }

    /** The {@code eventspace.traffic/1} document: {@code run} and {@code counted_by} absent where unknown. */
    @JsonPropertyOrder({"schema", "run", "scope", "bytes", "counted_by", "ranks", "hosts", "rank_hosts", "host_names",
            "phases", "operations", "total"})
    record Document(String schema, @JsonInclude(JsonInclude.Include.NON_NULL) JsonNode run, String scope, String bytes,
                    @JsonProperty("counted_by") @JsonInclude(JsonInclude.Include.NON_NULL) String countedBy,
                    int ranks, int hosts, @JsonProperty("rank_hosts") int[] rankHosts,
                    @JsonProperty("host_names") List<String> hostNames, List<Named> phases, List<Named> operations,
                    Matrices total) {
    }

    /** A phase or an operation with its matrices. */
    @JsonPropertyOrder({"name", "rank", "host"})
    record Named(String name, Fields rank, Fields host) {
        Named(String name, Matrices m) {
            this(name, m.rank(), m.host());
        }
    }

    /** Rank by rank and host by host. */
    @JsonPropertyOrder({"rank", "host"})
    record Matrices(Fields rank, Fields host) {
    }

    /** The four counters of {@link #FIELDS}, each a matrix [from][to], in that order. */
    @JsonPropertyOrder({"bytes_sent", "messages_sent", "bytes_received", "messages_received"})
    record Fields(@JsonProperty("bytes_sent") long[][] bytesSent, @JsonProperty("messages_sent") long[][] messagesSent,
                  @JsonProperty("bytes_received") long[][] bytesReceived,
                  @JsonProperty("messages_received") long[][] messagesReceived) {
        static Fields of(long[][][] byField) {
            return new Fields(byField[0], byField[1], byField[2], byField[3]);
        }
    }

    public void write(Path file, ObjectNode run) throws IOException {
        Json.pretty().writeValue(file.toFile(), toJson(Json.mapper(), run));
    }

    /**
     * Reads an {@code eventspace.traffic/1} file.
     *
     * @throws IllegalArgumentException naming the file, the field (a JSON pointer) and what was expected.
     */
    public static TrafficMatrix read(Path file) {
        JsonNode root;
        try {
            root = BoundedFiles.readTree(file);
        } catch (InputLimitException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
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
        readNamed(file, ph, "/phases", "a phase name", ranks, hosts, names, rank, host);
        // Optional: files written before operations were counted have none.
        JsonNode opsNode = root.path("operations");
        if (!opsNode.isMissingNode() && !opsNode.isArray()) {
            throw new IllegalArgumentException(file + ": /operations: expected an array");
        }
        List<String> ops = new ArrayList<>();
        long[][][][] rankOps = new long[opsNode.size()][4][][];
        long[][][][] hostOps = new long[opsNode.size()][4][][];
        readNamed(file, opsNode, "/operations", "an operation name", ranks, hosts, ops, rankOps, hostOps);
        return new TrafficMatrix(root.path("scope").asText("all"), names, rankHosts, hostNames, rank, host, ops, rankOps,
                hostOps, root.hasNonNull("counted_by") ? root.get("counted_by").asText() : null);
    }

    /** Entries {@code {"name", "rank": {fields}, "host": {fields}}} of {@code array} at {@code pointer}, into the outputs. */
    private static void readNamed(Path file, JsonNode array, String pointer, String nameExpected, int ranks, int hosts,
                                  List<String> names, long[][][][] rank, long[][][][] host) {
        for (int i = 0; i < array.size(); i++) {
            String at = pointer + "/" + i;
            JsonNode entry = array.get(i);
            if (!entry.path("name").isTextual()) {
                throw new IllegalArgumentException(file + ": " + at + "/name: expected " + nameExpected);
            }
            names.add(entry.get("name").asText());
            for (int f = 0; f < 4; f++) {
                rank[i][f] = matrix(file, entry.path("rank").path(FIELDS.get(f)), at + "/rank/" + FIELDS.get(f), ranks);
                host[i][f] = matrix(file, entry.path("host").path(FIELDS.get(f)), at + "/host/" + FIELDS.get(f), hosts);
            }
        }
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
