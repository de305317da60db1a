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

import org.eventspace.base.io.BoundedFiles;
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
 *
 * <p>Nothing in a dump is trusted: {@code pathmap.json} is checked (node ids are their indexes, parents and
 * entry nodes are node ids, ports are below the arity, hosts are listed) before anything is indexed by it, and
 * a failure names the file, the field and the value. A collector that {@code pathmap.json} lists but that has no
 * trace file (a host's directory lost, a file deleted) is a {@link #missing()} collector and an error naming it
 * and its host: the run's trace is incomplete, which a reader must not mistake for a quiet collector. Every
 * message is at most {@value #MAX_MESSAGE_CHARS} characters, whatever the dump holds.
 */
public final class TraceDump {
    public static final String PATHMAP_FILE = "pathmap.json";
    public static final String TRACE_SUFFIX = ".trace";
    /** Longest message {@link #errors()} or a thrown exception carries; longer values are cut, not echoed. */
    public static final int MAX_MESSAGE_CHARS = 1024;
    /** Longest value quoted from the dump inside a message. */
    static final int MAX_VALUE_CHARS = 80;
    /** Largest arity a node may have: a gred has one port per contributor, at most every rank. */
    static final int MAX_ARITY = 1 << 20;
    /** Collector names listed per host in a missing-collectors message before the rest are counted. */
    static final int MISSING_LISTED_PER_HOST = 8;

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

    /** There is no dump at the path given (not a directory, or no {@code pathmap.json}), as opposed to a bad one. */
    public static final class NotADumpException extends IOException {
        private static final long serialVersionUID = 1L;

        NotADumpException(String message) {
            super(message);
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
    private final List<DumpNode> missing;
    private final int unreadable;

    private TraceDump(Path directory, List<DumpNode> nodes, List<DumpEntry> entries, List<CollectorTrace> collectors,
                      List<String> errors, List<DumpNode> missing, int unreadable) {
        this.directory = directory;
        this.missing = List.copyOf(missing);
        this.unreadable = unreadable;
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
     *                     cannot be parsed or is inconsistent (naming the field and value); unreadable trace files
     *                     and collectors without a file do not throw, they are listed in {@link #errors()}.
     */
    public static TraceDump open(Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            throw new NotADumpException("trace dump " + directory + " is not a directory");
        }
        Path pathmapFile = directory.resolve(PATHMAP_FILE);
        if (!Files.isRegularFile(pathmapFile)) {
            throw new NotADumpException("trace dump " + directory + " has no " + PATHMAP_FILE);
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
                errors.add(bounded("trace file " + file + ": no collector node in " + PATHMAP_FILE + " has this file name "
                        + "(<collectorId>.<node name>" + TRACE_SUFFIX + ")"));
                continue;
            }
            Path earlier = seen.putIfAbsent(node.id(), file);
            if (earlier != null) {
                errors.add(bounded("trace file " + file + ": collector " + shown(node.name()) + " already read from " + earlier));
                continue;
            }
            try {
                collectors.add(read(file, node));
            } catch (IOException | RuntimeException e) {
                errors.add(bounded(e.getMessage() != null && e.getMessage().contains(file.toString()) ? e.getMessage()
                        : "trace file " + file + ": " + e));
            }
        }
        int unreadable = errors.size();
        List<DumpNode> missing = new ArrayList<>();
        Map<String, List<DumpNode>> missingOn = new TreeMap<>();
        for (DumpNode n : byFileName.values()) {
            if (!seen.containsKey(n.id())) {
                missing.add(n);
            }
        }
        missing.sort(Comparator.comparingInt(DumpNode::id));
        for (DumpNode n : missing) {
            missingOn.computeIfAbsent(n.host(), h -> new ArrayList<>()).add(n);
        }
        Map<String, Integer> hostIds = new HashMap<>();
        hostNames.forEach((id, name) -> hostIds.putIfAbsent(name, id));
        int listed = 0;
        for (Map.Entry<String, List<DumpNode>> e : missingOn.entrySet()) {
            if (listed == MISSING_LISTED_PER_HOST) {
                errors.add(bounded("… and collectors on " + (missingOn.size() - listed) + " more hosts have no trace "
                        + "file (" + missing.size() + " collectors in all)"));
                break;
            }
            listed++;
            List<DumpNode> on = e.getValue();
            Integer hostId = hostIds.get(e.getKey());
            StringBuilder names = new StringBuilder();
            for (int i = 0; i < Math.min(on.size(), MISSING_LISTED_PER_HOST); i++) {
                names.append(i == 0 ? "" : ", ").append(shown(on.get(i).name()));
            }
            if (on.size() > MISSING_LISTED_PER_HOST) {
                names.append(" … ").append(on.size() - MISSING_LISTED_PER_HOST).append(" more");
            }
            errors.add(bounded("host " + shown(e.getKey()) + " (" + (hostId == null ? "not in the hosts list"
                    : directory.resolve("host-" + hostId)) + "): " + on.size() + " collector"
                    + (on.size() == 1 ? "" : "s") + " listed in " + PATHMAP_FILE + " have no trace file: " + names));
        }
        collectors.sort(Comparator.comparing(CollectorTrace::host).thenComparingInt(CollectorTrace::collectorId));
        return new TraceDump(directory, nodes, entries, collectors, errors, missing, unreadable);
    }

    /** {@code value} quoted in a message: cut to {@value #MAX_VALUE_CHARS} characters, with its full length. */
    static String shown(String value) {
        if (value == null) {
            return "null";
        }
        return value.length() <= MAX_VALUE_CHARS ? value
                : value.substring(0, MAX_VALUE_CHARS) + "…(" + value.length() + " chars)";
    }

    /** {@code message} cut to {@value #MAX_MESSAGE_CHARS} characters. */
    static String bounded(String message) {
        return message.length() <= MAX_MESSAGE_CHARS ? message
                : message.substring(0, MAX_MESSAGE_CHARS - 20) + "…(" + message.length() + " chars)";
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

    /**
     * Fills {@code nodes} and {@code entries}; returns the host names by id. Every field that is later used as an
     * index (id, parent, parentPort, entry node and port) or a name (host) is checked here, so the analysis never
     * meets an index out of range.
     */
    private static Map<Integer, String> parsePathmap(Path file, List<DumpNode> nodes, List<DumpEntry> entries) throws IOException {
        JsonNode root;
        try {
            root = BoundedFiles.readTree(file);
        } catch (JsonProcessingException e) {
            throw new IOException(bounded(file + " is not valid JSON: " + shown(e.getOriginalMessage())), e);
        }
        if (root == null || !root.isObject()) {
            throw new IOException(file + " is not a JSON object");
        }
        String schema = root.path("schema").asText("");
        if (!schema.equals(PathmapDescription.LAYOUT_SCHEMA)) {
            throw new IOException(file + " has schema=\"" + shown(schema) + "\", expected " + PathmapDescription.LAYOUT_SCHEMA);
        }
        Map<Integer, String> hostNames = new HashMap<>();
        java.util.Set<String> hostSet = new java.util.HashSet<>();
        JsonNode hostArray = root.path("hosts");
        if (!hostArray.isArray()) {
            throw new IOException(file + " has no hosts array");
        }
        for (int i = 0; i < hostArray.size(); i++) {
            JsonNode h = hostArray.get(i);
            String where = "hosts[" + i + "]";
            int id = integer(file, where, h, "id", 0, Integer.MAX_VALUE);
            String name = text(file, where, h, "name");
            if (hostNames.putIfAbsent(id, name) != null) {
                throw new IOException(file + ": " + where + ".id=" + id + " is the id of an earlier host");
            }
            hostSet.add(name);
        }
        JsonNode nodeArray = root.path("nodes");
        if (!nodeArray.isArray()) {
            throw new IOException(file + " has no nodes array");
        }
        for (JsonNode n : nodeArray) {
            String where = "nodes[" + nodes.size() + "]";
            int id = integer(file, where, n, "id", 0, Integer.MAX_VALUE);
            if (id != nodes.size()) {
                throw new IOException(file + ": " + where + ".id=" + id + ", ids must be the indexes");
            }
            Map<String, String> properties = new TreeMap<>();
            JsonNode props = n.path("properties");
            if (!props.isMissingNode() && !props.isNull() && !props.isObject()) {
                throw new IOException(file + ": " + where + ".properties must be an object");
            }
            props.fields().forEachRemaining(p -> properties.put(p.getKey(), p.getValue().asText()));
            JsonNode parent = n.path("parent");
            boolean root0 = parent.isMissingNode() || parent.isNull();
            String host = text(file, where, n, "host");
            if (!hostSet.contains(host)) {
                throw new IOException(file + ": " + where + ".host=\"" + shown(host) + "\" is not in the hosts list");
            }
            int parentId = root0 ? -1 : integer(file, where, n, "parent", 0, Integer.MAX_VALUE);
            int arity = n.has("arity") ? integer(file, where, n, "arity", 0, MAX_ARITY) : 1;
            int tree = n.has("tree") ? integer(file, where, n, "tree", Integer.MIN_VALUE, Integer.MAX_VALUE) : -1;
            int parentPort = root0 ? -1 : n.has("parentPort") ? integer(file, where, n, "parentPort", 0, MAX_ARITY - 1) : 0;
            nodes.add(new DumpNode(id, text(file, where, n, "name"), text(file, where, n, "kind"), tree, host,
                    parentId, parentPort, arity, properties));
        }
        for (DumpNode n : nodes) {
            if (n.parent() < 0) {
                continue;
            }
            if (n.parent() >= nodes.size()) {
                throw new IOException(file + ": nodes[" + n.id() + "].parent=" + n.parent() + ", expected null or a node id 0.."
                        + (nodes.size() - 1));
            }
            if (n.parent() == n.id()) {
                throw new IOException(file + ": nodes[" + n.id() + "].parent=" + n.parent() + " is the node itself");
            }
            int arity = nodes.get(n.parent()).arity();
            if (n.parentPort() >= arity) {
                throw new IOException(file + ": nodes[" + n.id() + "].parentPort=" + n.parentPort() + ", but its parent "
                        + n.parent() + " has arity=" + arity);
            }
        }
        JsonNode entryArray = root.path("entries");
        if (!entryArray.isMissingNode() && !entryArray.isArray()) {
            throw new IOException(file + ": entries must be an array");
        }
        for (int i = 0; i < entryArray.size(); i++) {
            JsonNode e = entryArray.get(i);
            String where = "entries[" + i + "]";
            int node = integer(file, where, e, "node", 0, Integer.MAX_VALUE);
            if (node >= nodes.size()) {
                throw new IOException(file + ": " + where + ".node=" + node + ", expected a node id 0.." + (nodes.size() - 1));
            }
            int arity = nodes.get(node).arity();
            int port = e.has("port") ? integer(file, where, e, "port", 0, Integer.MAX_VALUE) : 0;
            if (port >= arity) {
                throw new IOException(file + ": " + where + ".port=" + port + ", but node " + node + " has arity=" + arity);
            }
            int tree = e.has("tree") ? integer(file, where, e, "tree", Integer.MIN_VALUE, Integer.MAX_VALUE) : 0;
            int rank = integer(file, where, e, "rank", 0, Integer.MAX_VALUE);
            String host = e.has("host") ? text(file, where, e, "host") : nodes.get(node).host();
            entries.add(new DumpEntry(tree, rank, host, node, port));
        }
        return hostNames;
    }

    /** {@code object.field}, an integer in [min, max]. */
    private static int integer(Path file, String where, JsonNode object, String field, int min, int max) throws IOException {
        JsonNode value = required(file, where, object, field);
        if (!value.isIntegralNumber() || !value.canConvertToInt()) {
            throw new IOException(file + ": " + where + "." + field + "=" + shown(value.toString())
                    + ", expected an integer " + min + ".." + max);
        }
        int v = value.intValue();
        if (v < min || v > max) {
            throw new IOException(file + ": " + where + "." + field + "=" + v + ", expected " + min + ".." + max);
        }
        return v;
    }

    /** {@code object.field}, a string. */
    private static String text(Path file, String where, JsonNode object, String field) throws IOException {
        JsonNode value = required(file, where, object, field);
        if (!value.isTextual()) {
            throw new IOException(file + ": " + where + "." + field + "=" + shown(value.toString()) + ", expected a string");
        }
        return value.asText();
    }

    private static JsonNode required(Path file, String where, JsonNode object, String field) throws IOException {
        if (object == null || !object.isObject()) {
            throw new IOException(file + ": " + where + " is not an object");
        }
        JsonNode value = object.get(field);
        if (value == null || value.isNull()) {
            throw new IOException(file + ": " + where + " has no " + field);
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
            checkWritePosition(file, reader);
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

    /**
     * A post-mortem file's write position must agree with its slots (TraceBufferLayout: the writer stores a slot's
     * sequence, then the write position): the newest slot holds position − 1, and no slot holds a tuple at or
     * beyond the position. A position that is wrong would report tuples that were never written as overwritten.
     */
    static void checkWritePosition(Path file, TraceBufferReader reader) throws IOException {
        long position = reader.writePosition();
        int capacity = reader.capacity();
        if (position < 0) {
            throw new IOException("trace file " + file + " is corrupt: header field writePosition=" + position
                    + " is negative");
        }
        for (int slot = 0; slot < capacity; slot++) {
            long sequence = reader.sequenceOfSlot(slot);
            // -1: never written; -(p + 1): a write of p interrupted (the writer died between its two stores).
            long tupleAt = sequence >= 0 ? sequence : -sequence - 1;
            if (sequence < -1 && tupleAt > position || sequence >= position
                    || sequence >= 0 && (sequence & (capacity - 1)) != slot) {
                throw new IOException("trace file " + file + " is corrupt: header field writePosition=" + position
                        + " (capacity=" + capacity + ") contradicts slot " + slot + ", whose sequence=" + sequence);
            }
        }
        if (position > 0) {
            int newest = (int) ((position - 1) & (capacity - 1));
            long sequence = reader.sequenceOfSlot(newest);
            if (sequence != position - 1) {
                throw new IOException("trace file " + file + " is corrupt: header field writePosition=" + position
                        + " (capacity=" + capacity + ") says slot " + newest + " holds tuple " + (position - 1)
                        + ", but its sequence=" + sequence);
            }
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

    /**
     * One message per file that could not be read, each naming the file and what is wrong, then one per host
     * with {@link #missing()} collectors naming them; each at most {@value #MAX_MESSAGE_CHARS} characters.
     */
    public List<String> errors() {
        return errors;
    }

    /** Trace files that were found but could not be read: the first this many {@link #errors()}. */
    public int unreadable() {
        return unreadable;
    }

    /** Collectors {@code pathmap.json} lists that have no trace file in the dump, by node id. */
    public List<DumpNode> missing() {
        return missing;
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
