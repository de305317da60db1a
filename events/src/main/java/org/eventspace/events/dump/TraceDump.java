package org.eventspace.events.dump;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.eventspace.comm.pathmap.PathmapDescription;
import org.eventspace.events.CollectorKind;
import org.eventspace.events.CollectorPlacement;
import org.eventspace.events.PointToPointCollectors;
import org.eventspace.events.EventSpace;
import org.eventspace.events.TraceBufferReader;
import org.eventspace.events.TraceTupleFlyweight;

/**
 * A post-mortem trace dump read back: the pathmap the run used and every collector's tuples. Immutable once
 * opened; not tied to any open file (every buffer is copied into a {@link CollectorTrace} and unmapped).
 *
 * <p>The dump directory (written by a run with {@code --trace-dump DIR}):
 * <pre>
 *   DIR/pathmap.json                              PathmapDescription.toJson (eventspace.pathmap-layout/1), with
 *                                                 the collector nodes (kind "collector", property collectorId)
 *   DIR/host-&lt;id&gt;/&lt;collectorId&gt;.&lt;node name&gt;.trace  one TraceBuffer file per collector (EventSpace.fileName)
 * </pre>
 * A trace file is matched to its collector node by its file name; its header's collector id must agree. A file
 * that cannot be read (truncated, not a trace buffer, another version, no collector of that name) is reported
 * in {@link #errors()} naming the file, and the rest of the dump is still read: one bad file must not hide the
 * others (paper §4.1: the trace is the collectors' only output).
 */
public final class TraceDump {
    public static final String PATHMAP_FILE = "pathmap.json";
    public static final String TRACE_SUFFIX = ".trace";

    /** A wrapper of the pathmap, as {@code pathmap.json} lists it. {@code parent} is -1 for a root. */
    public record DumpNode(int id, String name, String kind, int tree, String host, int parent, int parentPort,
                           int arity, Map<String, String> properties) {
        public DumpNode {
            properties = Map.copyOf(properties);
        }

        public boolean isCollector() {
            return kind.equals(CollectorKind.NAME);
        }
    }

    /** Where rank {@code rank}'s path into tree {@code tree} starts: port {@code port} of node {@code node}. */
    public record DumpEntry(int tree, int rank, String host, int node, int port) {
    }

    private final Path directory;
    private final List<DumpNode> nodes;
    private final List<DumpEntry> entries;
    private final List<CollectorTrace> collectors;
    private final Map<Integer, CollectorTrace> byNode;
    private final List<String> errors;

    private TraceDump(Path directory, List<DumpNode> nodes, List<DumpEntry> entries, List<CollectorTrace> collectors,
                      List<String> errors) {
        this.directory = directory;
        this.nodes = List.copyOf(nodes);
        this.entries = List.copyOf(entries);
        this.collectors = List.copyOf(collectors);
        this.errors = List.copyOf(errors);
        Map<Integer, CollectorTrace> map = new HashMap<>();
        for (CollectorTrace c : collectors) {
            map.put(c.node().id(), c);
        }
        this.byNode = Collections.unmodifiableMap(map);
    }

    /**
     * Reads the dump in {@code directory}.
     *
     * @throws IOException naming the directory or {@code pathmap.json} if there is no dump there or its pathmap
     *                     cannot be parsed; unreadable trace files do not throw, they are listed in {@link #errors()}.
     */
    public static TraceDump open(Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            throw new IOException("trace dump " + directory + " is not a directory");
        }
        Path pathmapFile = directory.resolve(PATHMAP_FILE);
        if (!Files.isRegularFile(pathmapFile)) {
            throw new IOException("trace dump " + directory + " has no " + PATHMAP_FILE);
        }
        List<DumpNode> nodes = new ArrayList<>();
        List<DumpEntry> entries = new ArrayList<>();
        Map<Integer, String> hostNames = parsePathmap(pathmapFile, nodes, entries);

        Map<String, DumpNode> byFileName = new HashMap<>();
        for (DumpNode n : nodes) {
            if (n.isCollector()) {
                String id = n.properties().get(CollectorKind.COLLECTOR_ID);
                try {
                    byFileName.put(EventSpace.fileName(CollectorKind.collectorId(n.name(), id), n.name()), n);
                } catch (RuntimeException e) {
                    // No usable id: no file can be matched to it; its files are reported as unmatched.
                }
            }
        }
        List<Path> files;
        try (Stream<Path> walk = Files.walk(directory, 2)) {
            files = walk.filter(p -> p.getFileName().toString().endsWith(TRACE_SUFFIX) && Files.isRegularFile(p))
                    .sorted().toList();
        }
        List<CollectorTrace> collectors = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        Map<Integer, Path> seen = new HashMap<>();
        for (Path file : files) {
            DumpNode node = byFileName.get(file.getFileName().toString());
            if (node == null) {
                node = pointToPointNode(file, nodes.size(), hostNames);
                if (node != null) {
                    nodes.add(node);
                }
            }
            if (node == null) {
                errors.add("trace file " + file + ": no collector node in " + PATHMAP_FILE + " has this file name "
                        + "(<collectorId>.<node name>" + TRACE_SUFFIX + ")");
                continue;
            }
            Path earlier = seen.putIfAbsent(node.id(), file);
            if (earlier != null) {
                errors.add("trace file " + file + ": collector " + node.name() + " already read from " + earlier);
                continue;
            }
            try {
                collectors.add(read(file, node));
            } catch (IOException | RuntimeException e) {
                errors.add(e.getMessage() != null && e.getMessage().contains(file.toString()) ? e.getMessage()
                        : "trace file " + file + ": " + e);
            }
        }
        collectors.sort(Comparator.comparing(CollectorTrace::host).thenComparingInt(CollectorTrace::collectorId));
        return new TraceDump(directory, nodes, entries, collectors, errors);
    }

    /** {@code <collectorId>.p2p.<src>.<dst>.send|serve.trace}: a point-to-point collector's file (PointToPointCollectors). */
    private static final java.util.regex.Pattern POINT_TO_POINT_FILE =
            java.util.regex.Pattern.compile("(\\d+)\\.(p2p\\.(\\d+)\\.(\\d+)\\.(send|serve))\\" + TRACE_SUFFIX);

    /**
     * A node for a point-to-point collector's file, which no pathmap lists (point-to-point paths are built on
     * demand, {@link PointToPointCollectors}): a root of tree −1 on the host of the file's directory, with its
     * collector id from the file name, {@code above} the mailbox and {@code below} the sending rank or the hop.
     * Null if the file is not one.
     */
    private static DumpNode pointToPointNode(Path file, int id, Map<Integer, String> hostNames) {
        java.util.regex.Matcher m = POINT_TO_POINT_FILE.matcher(file.getFileName().toString());
        if (!m.matches()) {
            return null;
        }
        String dir = file.getParent() == null ? "" : file.getParent().getFileName().toString();
        String host = dir;
        if (dir.startsWith("host-")) {
            try {
                host = hostNames.getOrDefault(Integer.parseInt(dir.substring("host-".length())), dir);
            } catch (NumberFormatException e) {
                host = dir;
            }
        }
        boolean send = m.group(5).equals("send");
        Map<String, String> properties = new TreeMap<>();
        properties.put(CollectorKind.COLLECTOR_ID, m.group(1));
        properties.put(CollectorPlacement.ABOVE, "mailbox p2p." + m.group(3) + "." + m.group(4));
        properties.put(CollectorPlacement.BELOW, send ? "rank " + m.group(3) : "hop from rank " + m.group(3));
        return new DumpNode(id, m.group(2), CollectorKind.NAME, -1, host, -1, -1, 1, properties);
    }

    /** Fills {@code nodes} and {@code entries}; returns the host names by id. */
    private static Map<Integer, String> parsePathmap(Path file, List<DumpNode> nodes, List<DumpEntry> entries) throws IOException {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(file.toFile());
        } catch (JsonProcessingException e) {
            throw new IOException(file + " is not valid JSON: " + e.getOriginalMessage(), e);
        }
        String schema = root.path("schema").asText("");
        if (!schema.equals(PathmapDescription.LAYOUT_SCHEMA)) {
            throw new IOException(file + " has schema=\"" + schema + "\", expected " + PathmapDescription.LAYOUT_SCHEMA);
        }
        JsonNode nodeArray = root.path("nodes");
        if (!nodeArray.isArray()) {
            throw new IOException(file + " has no nodes array");
        }
        for (JsonNode n : nodeArray) {
            int id = required(file, n, "id").asInt();
            if (id != nodes.size()) {
                throw new IOException(file + ": nodes[" + nodes.size() + "] has id=" + id + ", ids must be the indexes");
            }
            Map<String, String> properties = new TreeMap<>();
            n.path("properties").fields().forEachRemaining(p -> properties.put(p.getKey(), p.getValue().asText()));
            JsonNode parent = n.path("parent");
            boolean root0 = parent.isMissingNode() || parent.isNull();
            nodes.add(new DumpNode(id, required(file, n, "name").asText(), required(file, n, "kind").asText(),
                    n.path("tree").asInt(-1), required(file, n, "host").asText(), root0 ? -1 : parent.asInt(),
                    root0 ? -1 : n.path("parentPort").asInt(0), n.path("arity").asInt(1), properties));
        }
        for (JsonNode e : root.path("entries")) {
            entries.add(new DumpEntry(e.path("tree").asInt(), e.path("rank").asInt(), e.path("host").asText(),
                    required(file, e, "node").asInt(), e.path("port").asInt()));
        }
        Map<Integer, String> hostNames = new HashMap<>();
        for (JsonNode h : root.path("hosts")) {
            hostNames.put(h.path("id").asInt(), h.path("name").asText());
        }
        return hostNames;
    }

    private static JsonNode required(Path file, JsonNode object, String field) throws IOException {
        JsonNode value = object.get(field);
        if (value == null || value.isNull()) {
            throw new IOException(file + ": " + object + " has no " + field);
        }
        return value;
    }

    private static CollectorTrace read(Path file, DumpNode node) throws IOException {
        try (TraceBufferReader reader = TraceBufferReader.open(file)) {
            int expectedId = CollectorKind.collectorId(node.name(), node.properties().get(CollectorKind.COLLECTOR_ID));
            if (reader.collectorId() != expectedId) {
                throw new IOException("trace file " + file + " has collectorId=" + reader.collectorId()
                        + " in its header, but collector " + node.name() + " has collectorId=" + expectedId);
            }
            long held = reader.writePosition() - reader.position();
            int n = (int) Math.min(held, reader.capacity());
            long[] sequence = new long[n];
            long[] value = new long[n];
            long[] start = new long[n];
            long[] end = new long[n];
            int[] op = new int[n];
            int[] flags = new int[n];
            TraceTupleFlyweight t = new TraceTupleFlyweight();
            int size = 0;
            while (size < n && reader.readNext(t)) {
                sequence[size] = t.sequence();
                value[size] = t.value();
                start[size] = t.startNs();
                end[size] = t.endNs();
                op[size] = t.opType();
                flags[size] = t.flags();
                size++;
            }
            long overwritten = reader.position() - size;
            return new CollectorTrace(node, expectedId, file, overwritten, size, sequence, value, start, end, op, flags);
        }
    }

    public Path directory() {
        return directory;
    }

    /** Every wrapper of the pathmap, indexed by id. */
    public List<DumpNode> nodes() {
        return nodes;
    }

    public DumpNode node(int id) {
        return nodes.get(id);
    }

    public List<DumpEntry> entries() {
        return entries;
    }

    /** Every collector whose file was read, by host name then collector id. */
    public List<CollectorTrace> collectors() {
        return collectors;
    }

    /** The trace of the collector at node {@code nodeId}, or null if it has none (no file, or unreadable). */
    public CollectorTrace collector(int nodeId) {
        return byNode.get(nodeId);
    }

    /** The trace of the collector named {@code name}, or null. */
    public CollectorTrace collector(String name) {
        for (CollectorTrace c : collectors) {
            if (c.name().equals(name)) {
                return c;
            }
        }
        return null;
    }

    /** One message per file that could not be read, each naming the file and what is wrong. */
    public List<String> errors() {
        return errors;
    }

    /** Total tuples held across collectors. */
    public long tuples() {
        long total = 0;
        for (CollectorTrace c : collectors) {
            total += c.size();
        }
        return total;
    }
}
