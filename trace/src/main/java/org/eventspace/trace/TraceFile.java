package org.eventspace.trace;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.eventspace.base.io.BoundedFiles;
import org.eventspace.base.json.Json;
import org.eventspace.comm.path.ReduceOp;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.cbor.CBORFactory;
import com.fasterxml.jackson.dataformat.cbor.CBORGenerator;

/**
 * The trace file, {@code eventspace.trace/3} (reads {@code /1} and {@code /2} too): one document per job, documented field by field in
 * {@code docs/TRACE-FORMAT.md}, in one of two encodings of the same tree. JSON by default, because a trace is small
 * (its size does not grow with ranks or iterations for regular programs) and people read it; CBOR (RFC 8949, a file
 * named {@code *.cbor}) when size matters more: a third smaller, and its integers grow by bytes at 2^8, 2^16 and
 * 2^32 rather than by a byte per decimal digit, so the sample counts of more ranks add less. Times are integer
 * nanoseconds in both. Reading recognises the encoding by its first bytes (a CBOR file starts with the self-described
 * CBOR tag), validates everything and fails with a {@link TraceFormatException} naming the file, the place (a JSON
 * pointer; line and column for a JSON syntax error, the byte for a CBOR one) and what was expected. Stateless;
 * thread-safe.
 */
public final class TraceFile {
    /** What is written: groups are the aligned sequence's runs over one ranklist, nodes may be packed arrays. */
    public static final String SCHEMA = "eventspace.trace/3";
    /** Read: one group per distinct rank trace, every node an object, no {@code words_runs}. */
    public static final String SCHEMA_V1 = "eventspace.trace/1";
    /**
     * Read: version 1 plus {@code words_runs}, counts that change between a call's occurrences (version 3 keeps them).
     */
    public static final String SCHEMA_RUNS = "eventspace.trace/2";
    private static final ObjectMapper JSON = Json.mapper();
    /** Writes the self-described CBOR tag (55799: bytes d9 d9 f7) first, which is how a reader tells the encodings apart. */
    private static final ObjectMapper CBOR = new ObjectMapper(CBORFactory.builder()
            .enable(CBORGenerator.Feature.WRITE_TYPE_HEADER).streamReadConstraints(BoundedFiles.CONSTRAINTS).build());
    private static final byte[] CBOR_MAGIC = {(byte) 0xd9, (byte) 0xd9, (byte) 0xf7};

    /** How a trace file is written: chosen by the file's name ({@link #of}), recognised on reading by its first bytes. */
    public enum Encoding {
        JSON, CBOR;

        /** CBOR for a file named {@code *.cbor}, JSON otherwise. */
        public static Encoding of(Path file) {
            Path name = file.getFileName();
            return name != null && name.toString().toLowerCase(java.util.Locale.ROOT).endsWith(".cbor") ? CBOR : JSON;
        }

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private TraceFile() {
    }

    /** Writes {@code trace} to {@code file}, in the encoding its name asks for ({@link Encoding#of}); returns the bytes written. */
    public static long write(Trace trace, Path file) throws IOException {
        return write(trace, null, file);
    }

    /**
     * Writes {@code trace} with the conditions of the run that recorded it ({@link RunConditions}, the optional
     * {@code "conditions"} block; null writes none) to {@code file}; returns the bytes written.
     */
    public static long write(Trace trace, RunConditions conditions, Path file) throws IOException {
        Encoding encoding = Encoding.of(file);
        byte[] bytes = mapperOf(encoding).writeValueAsBytes(withConditions(toJson(trace, encoding), conditions));
        try (OutputStream out = Files.newOutputStream(file)) {
            out.write(bytes);
        }
        return bytes.length;
    }

    private static ObjectMapper mapperOf(Encoding encoding) {
        return encoding == Encoding.CBOR ? CBOR : JSON;
    }

    /** The document as written in JSON (the packed fallback chosen by JSON sizes). */
    public static ObjectNode toJson(Trace trace) {
        return toJson(trace, Encoding.JSON);
    }

    /**
     * A partial trace that is merged further (a host's ranks over TCP): its groups of whole rank traces as they are,
     * not aligned, so that the final alignment sees the same groups as in one JVM and the files are equal. Falls back
     * to the aligned form if the trace was aligned already (then the final merge is still correct, only its shape may
     * differ).
     */
    public static ObjectNode toJsonPartial(Trace trace) {
        if (!trace.wholeRankGroups()) {
            return toJson(trace);
        }
        List<Trace.Segment> groups = new ArrayList<>();
        for (Trace.Group g : trace.groups) {
            groups.add(new Trace.Segment(g.ranks(), g.nodes()));
        }
        return document(trace, groups, null);
    }

    /**
     * The document in {@code encoding}: the aligned sequence's runs over one ranklist are its groups. If the document
     * would be larger than the flat trace, each top-level node whose object takes more bytes than its calls flat is
     * written packed instead ({@link #packed}); a document below the flat trace keeps every node an object.
     */
    public static ObjectNode toJson(Trace trace, Encoding encoding) {
        List<Trace.Segment> segments = Trace.segments(trace.nodes());
        ObjectNode objects = document(trace, segments, null);
        try {
            if (mapperOf(encoding).writeValueAsBytes(objects).length <= trace.flatBytes()) {
                return objects; // the structure pays as a whole: every node stays readable
            }
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode a trace: " + e.getMessage(), e);
        }
        return document(trace, segments, encoding);
    }

    /** The document; with {@code packIn} an encoding, a node whose object costs more than its calls flat is packed. */
    private static ObjectNode document(Trace trace, List<Trace.Segment> segments, Encoding packIn) {
        ObjectNode root = JSON.createObjectNode();
        root.put("schema", SCHEMA);
        root.put("ranks", trace.ranks());
        root.put("time_encoding", trace.encoding().fileName());
        root.put("bins", trace.bins());
        // Estimates (means, standard deviations, bins' edges and averages) are scaled codes (ScaledEstimate).
        root.put("estimate_bits", ScaledEstimate.MANTISSA_BITS);
        root.put("events_recorded", trace.eventsRecorded());
        root.put("wall_ns", trace.wallNanos());
        if (trace.timedNanos() >= 0) {
            ObjectNode timed = root.putObject("timed");
            timed.put("ns", trace.timedNanos());
            ArrayNode from = timed.putArray("from");
            for (Trace.TimedFrom f : trace.timedFromPairs()) {
                from.addObject().put("calls", f.calls()).set("ranks", ranks(f.ranks()));
            }
        }
        ArrayNode lost = root.putArray("lost");
        for (RankTrace.Lost l : trace.lost()) {
            ObjectNode o = lost.addObject();
            o.put("rank", l.rank());
            o.put("first_lost", l.firstLost());
            o.put("count", l.count());
            ObjectNode byOp = o.putObject("by_op");
            for (Op op : Op.values()) {
                if (l.byOp()[op.ordinal()] > 0) {
                    byOp.put(op.fileName(), l.byOp()[op.ordinal()]);
                }
            }
        }
        ObjectNode sites = root.putObject("sites");
        trace.sites().forEach((id, name) -> sites.put(Integer.toString(id), name));
        ArrayNode groups = root.putArray("groups");
        for (Trace.Segment g : segments) {
            ObjectNode o = groups.addObject();
            o.set("ranks", ranks(g.ranks()));
            ArrayNode out = o.putArray("trace");
            for (Node n : g.nodes()) {
                if (packIn == null) {
                    nodes(List.of(n), out, g.ranks());
                } else {
                    out.add(smaller(n, packIn));
                }
            }
        }
        CountRunsTable.compact(root);
        ParamsTable.compact(root);
        return root;
    }

    /**
     * {@code n} as an object ({@link #nodes}), or packed ({@link #packed}) when the object would take more bytes than
     * the calls it stands for do in a flat trace ({@link Trace#FLAT_RECORD_BYTES} each) and the packed form fewer:
     * structure that does not pay (calls that never repeat, on one rank) falls back to a plain per-call form, so the
     * file stays below the flat trace wherever a call's packed form does (about 20-30 bytes for real values).
     */
    private static JsonNode smaller(Node n, Encoding encoding) {
        ArrayNode one = JSON.createArrayNode();
        nodes(List.of(n), one, n.ranks());
        JsonNode object = one.get(0);
        long flat = calls(n) * Trace.FLAT_RECORD_BYTES;
        try {
            long objectBytes = mapperOf(encoding).writeValueAsBytes(object).length;
            if (objectBytes <= flat) {
                return object;
            }
            JsonNode packed = packed(n);
            return mapperOf(encoding).writeValueAsBytes(packed).length < objectBytes ? packed : object;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode a trace node: " + e.getMessage(), e);
        }
    }

    /** The calls {@code n} stands for over all its ranks (saturated). */
    private static long calls(Node n) {
        if (n instanceof EventNode e) {
            return saturatedMultiply(e.occurrences(), e.ranks().size());
        }
        long sum = 0;
        for (Node b : ((LoopNode) n).body) {
            sum += calls(b);
            if (sum < 0) {
                return Long.MAX_VALUE;
            }
        }
        return sum;
    }

    private static long saturatedMultiply(long a, long b) {
        long hi = Math.multiplyHigh(a, b);
        return hi != 0 || a * b < 0 ? Long.MAX_VALUE : a * b;
    }

    /**
     * The plain form: an event as an array {@code [op, compute, comm, site, reduce?, peer?, words, root?]} (reduce only
     * for reducing ops, peer only point-to-point, root only rooted; absent values null, trailing nulls left out), a loop
     * as {@code [iterations, [body...]]}. A delta of one sample on one rank is just its nanoseconds ({@code [ns,
     * previous site]} for time encoding path), what the statistics and histograms of one sample are made of; otherwise
     * the timing object as in the object form; an MPI call's tag and communicator follow. An event with {@code words_runs}
     * stays an object.
     */
    static JsonNode packed(Node n) {
        if (!sameRanksBelow(n)) {
            ArrayNode one = JSON.createArrayNode();
            nodes(List.of(n), one, n.ranks());
            return one.get(0);
        }
        if (n instanceof LoopNode l) {
            ArrayNode a = JSON.createArrayNode();
            a.add(l.iterations());
            ArrayNode body = a.addArray();
            for (Node b : l.body) {
                body.add(packed(b));
            }
            return a;
        }
        EventNode e = (EventNode) n;
        if (e.countRuns() != null) {
            ArrayNode one = JSON.createArrayNode();
            nodes(List.of(n), one, n.ranks());
            return one.get(0);
        }
        ArrayNode a = JSON.createArrayNode();
        a.add(e.op().fileName());
        a.add(packedTiming(e.computeDelta(), e.ranks()));
        a.add(packedTiming(e.communicateDelta(), e.ranks()));
        a.add(e.site() == CallSite.UNMARKED ? JSON.nullNode() : JSON.getNodeFactory().numberNode(e.site()));
        if (e.op().reduces()) {
            a.add(e.reduceOp() == null ? JSON.nullNode()
                    : JSON.getNodeFactory().textNode(e.reduceOp().name().toLowerCase(java.util.Locale.ROOT)));
        }
        if (e.op().pointToPoint()) {
            a.add(paramsNode(e.peer()));
        }
        a.add(paramsNode(e.count()));
        if (e.op().rooted()) {
            a.add(paramsNode(e.root()));
        }
        if (e.op().mpi()) {
            a.add(paramsNode(e.tag()));
            a.add(paramsNode(e.communicator()));
        }
        while (a.size() > 3 && a.get(a.size() - 1).isNull()) {
            a.remove(a.size() - 1);
        }
        return a;
    }

    /** Whether every node below {@code n} runs on {@code n}'s ranks (a packed node has no place for other ranks). */
    private static boolean sameRanksBelow(Node n) {
        if (n instanceof LoopNode l) {
            for (Node b : l.body) {
                if (!b.ranks().equals(n.ranks()) || !sameRanksBelow(b)) {
                    return false;
                }
            }
        }
        return true;
    }

    private static JsonNode paramsNode(Params p) {
        if (p == null) {
            return JSON.nullNode();
        }
        ObjectNode holder = JSON.createObjectNode();
        params(holder, "v", p);
        return holder.get("v");
    }

    /** One sample's nanoseconds (and previous site for path), when that is all {@code t} holds; else the object. */
    private static JsonNode packedTiming(DeltaTiming t, RankList ranks) {
        TimeStats s = t.stats();
        long v = s.min();
        boolean one = s.count() == 1 && ranks.size() == 1 && s.max() == v && Math.round(s.mean()) == v
                && Math.round(s.sd()) == 0 && s.minRank() == ranks.first() && s.maxRank() == ranks.first();
        TraceConfig config = t.config();
        if (one && config.encoding() == TimeEncoding.STATS) {
            return JSON.getNodeFactory().numberNode(v);
        }
        if (one && config.encoding() == TimeEncoding.HIST && t.histogram() != null
                && sameBins(t.histogram(), DeltaHistogram.create(v, config.bins(), config.smoothInterval()))) {
            return JSON.getNodeFactory().numberNode(v);
        }
        if (one && config.encoding() == TimeEncoding.PATH && t.histogram() == null && t.paths().size() == 1) {
            Map.Entry<Integer, DeltaHistogram> only = t.paths().entrySet().iterator().next();
            if (sameBins(only.getValue(), DeltaHistogram.create(v, config.bins(), config.smoothInterval()))) {
                ArrayNode a = JSON.createArrayNode();
                a.add(v);
                a.add(only.getKey());
                return a;
            }
        }
        return timing(t);
    }

    /** Whether the two histograms write the same bins (what the file keeps of a histogram). */
    private static boolean sameBins(DeltaHistogram a, DeltaHistogram b) {
        return bins(a).equals(bins(b));
    }

    private static ArrayNode ranks(RankList r) {
        ArrayNode a = JSON.createArrayNode();
        for (int v : r.runs()) {
            a.add(v);
        }
        return a;
    }

    /** {@code nodes} as objects; a node over other ranks than {@code parentRanks} (its loop's, its group's) names them. */
    private static void nodes(List<Node> nodes, ArrayNode out, RankList parentRanks) {
        for (Node n : nodes) {
            ObjectNode o = out.addObject();
            if (!n.ranks().equals(parentRanks)) {
                o.set("ranks", ranks(n.ranks()));
            }
            if (n instanceof LoopNode l) {
                o.put("loop", l.iterations());
                nodes(l.body, o.putArray("body"), l.ranks());
            } else {
                EventNode e = (EventNode) n;
                o.put("op", e.op().fileName());
                if (e.site() != CallSite.UNMARKED) {
                    o.put("site", e.site());
                }
                if (e.reduceOp() != null) {
                    o.put("reduce", e.reduceOp().name().toLowerCase(java.util.Locale.ROOT));
                }
                params(o, "peer", e.peer());
                params(o, "words", e.count());
                if (e.countRuns() != null) {
                    ArrayNode runs = o.putArray("words_runs");
                    for (EventNode.RunsEntry r : e.countRuns()) {
                        ArrayNode pair = runs.addArray();
                        ArrayNode values = pair.addArray();
                        for (long v : r.runs().pairs()) {
                            values.add(v);
                        }
                        pair.add(ranks(r.ranks()));
                    }
                }
                params(o, "root", e.root());
                channel(o, e);
                o.set("compute", timing(e.computeDelta()));
                o.set("comm", timing(e.communicateDelta()));
            }
        }
    }

    /**
     * An MPI call's {@code tag} and {@code communicator}, optional fields (absent on our own workloads' calls and in MPI traces
     * recorded before they were kept): a value or {@code [[value, ranklist], ...]} as {@code root}.
     */
    private static void channel(ObjectNode o, EventNode e) {
        params(o, "tag", e.tag());
        params(o, "communicator", e.communicator());
    }

    private static void params(ObjectNode o, String name, Params p) {
        if (p == null) {
            return;
        }
        if (p.uniform()) {
            o.set(name, value(p.entries().get(0).value()));
            return;
        }
        ArrayNode a = o.putArray(name);
        for (Params.Entry e : p.entries()) {
            ArrayNode pair = a.addArray();
            pair.add(value(e.value()));
            pair.add(ranks(e.ranks()));
        }
    }

    /** A parameter's value: a number, or {@value #PROC_NULL} for a peer that is MPI_PROC_NULL. */
    private static JsonNode value(long v) {
        return v == EventNode.PROC_NULL ? JSON.getNodeFactory().textNode(PROC_NULL) : JSON.getNodeFactory().numberNode(v);
    }

    /** The statistics of a compact timing: n, mean, sd, min, min_rank, max, max_rank. */
    private static final int COMPACT_TIMING_FIELDS = 7;

    /** How a peer that is MPI_PROC_NULL is written. */
    static final String PROC_NULL = "proc_null";

    /**
     * A timing as the file keeps it: {@code [n, mean, sd, min, min_rank, max, max_rank]} plus its bins when it has a
     * histogram (version 3: the seven field names took a third of a real code's file); with rank groups, the array of
     * its groups instead, each {@code [ranks, merged_entries, n, mean, sd, min, min_rank, max, max_rank(, bins)]}, the
     * all-ranks timing being theirs merged. The object form's nine names per group, and an all-ranks timing the groups
     * already hold, made a trace of 256 ranks whose rank 0 computes longer a third larger than the same program's at 8.
     * Path histograms keep the object form ({@link #timingObject}).
     */
    private static JsonNode timing(DeltaTiming t) {
        if (!t.paths().isEmpty()) {
            return timingObject(t);
        }
        if (t.byRanks().isEmpty()) {
            return compactTiming(t);
        }
        ArrayNode groups = JSON.createArrayNode();
        for (DeltaTiming g : t.byRanks()) {
            ArrayNode e = groups.addArray();
            e.add(ranks(g.ranks()));
            e.add(g.mergedEntries());
            e.addAll(compactTiming(g));
        }
        return groups;
    }

    /** {@code [n, mean, sd, min, min_rank, max, max_rank]} and the bins when {@code t} has a histogram. */
    private static ArrayNode compactTiming(DeltaTiming t) {
        TimeStats s = t.stats();
        ArrayNode a = JSON.createArrayNode();
        a.add(s.count());
        a.add(ScaledEstimate.encode(s.mean()));
        a.add(ScaledEstimate.encode(s.sd()));
        a.add(s.min());
        a.add(s.minRank());
        a.add(s.max());
        a.add(s.maxRank());
        if (t.histogram() != null) {
            a.add(bins(t.histogram()));
        }
        return a;
    }

    private static ObjectNode timingObject(DeltaTiming t) {
        ObjectNode o = JSON.createObjectNode();
        TimeStats s = t.stats();
        o.put("n", s.count());
        o.put("mean", ScaledEstimate.encode(s.mean()));
        o.put("sd", ScaledEstimate.encode(s.sd()));
        o.put("min", s.min());
        o.put("min_rank", s.minRank());
        o.put("max", s.max());
        o.put("max_rank", s.maxRank());
        if (t.histogram() != null) {
            o.set("hist", bins(t.histogram()));
        }
        if (!t.paths().isEmpty()) {
            ObjectNode paths = o.putObject("paths");
            t.paths().forEach((site, h) -> paths.set(Integer.toString(site), bins(h)));
        }
        timingByRanks(o, t);
        return o;
    }

    /**
     * The optional {@code by_ranks} of a timing (docs/TRACE-FORMAT.md, "Per-rank-group timing"): the timings of its
     * rank groups whose deltas differ, each a timing of its own with its {@code ranks} and, when the bound on groups
     * merged differing ones into it, {@code merged_entries}; absent, one timing for all the event's ranks.
     */
    private static void timingByRanks(ObjectNode o, DeltaTiming t) {
        if (t.byRanks().isEmpty()) {
            return;
        }
        ArrayNode a = o.putArray("by_ranks");
        for (DeltaTiming g : t.byRanks()) {
            ObjectNode e = a.addObject();
            e.set("ranks", ranks(g.ranks()));
            e.setAll(timingObject(g));
            if (g.mergedEntries() > 1) {
                e.put("merged_entries", g.mergedEntries());
            }
        }
    }

    private static ArrayNode bins(DeltaHistogram h) {
        ArrayNode a = JSON.createArrayNode();
        for (int i = 0; i < h.bins(); i++) {
            ArrayNode b = a.addArray();
            b.add(ScaledEstimate.encode(h.binMin(i)));
            b.add(ScaledEstimate.encode(h.binMax(i)));
            b.add(h.binFreq(i));
            b.add(ScaledEstimate.encode(h.binAvg(i)));
            b.add(ScaledEstimate.encode(h.binSd(i)));
        }
        return a;
    }

    /**
     * Reads and validates {@code file}, streamed: its size is checked against {@link BoundedFiles#maxBytes()} before a
     * byte is read, and the parsers cap each token ({@link BoundedFiles#CONSTRAINTS}).
     *
     * @throws org.eventspace.base.io.InputLimitException if the file is over the limit (one line: file, size, limit).
     */
    public static Trace read(Path file) throws IOException, TraceFormatException {
        return new Reader(file).trace(parse(file).root());
    }

    /** A trace file's document as parsed, the encoding it was in, and the trace it validated to. */
    record Document(JsonNode root, Encoding encoding, Trace trace) {
    }

    /** Reads and validates {@code file} as {@link #read} does, keeping the parsed document (what {@link TraceSizes} measures). */
    static Document readDocument(Path file) throws IOException, TraceFormatException {
        Parsed parsed = parse(file);
        return new Document(parsed.root(), parsed.encoding(), new Reader(file).trace(parsed.root()));
    }

    /** A trace file's trace and the conditions of the run that wrote it (null for a file without the block). */
    public record Recorded(Trace trace, RunConditions conditions) {
    }

    /** Reads and validates {@code file} as {@link #read} does, with its {@code "conditions"} block where it has one. */
    public static Recorded readRecorded(Path file) throws IOException, TraceFormatException {
        JsonNode root = parse(file).root();
        Trace trace = new Reader(file).trace(root);
        return new Recorded(trace, root.has(RunConditions.FIELD)
                ? RunConditions.fromJson(root.get(RunConditions.FIELD), file.toString()) : null);
    }

    /** {@code root} with {@code conditions} as its {@code "conditions"} block (after the header's fields); null adds none. */
    private static ObjectNode withConditions(ObjectNode root, RunConditions conditions) {
        if (conditions == null) {
            return root;
        }
        ObjectNode out = JSON.createObjectNode();
        root.fields().forEachRemaining(e -> {
            out.set(e.getKey(), e.getValue());
            if (e.getKey().equals("wall_ns")) {
                out.set(RunConditions.FIELD, conditions.toJson());
            }
        });
        return out;
    }

    /** A file's document and the encoding it was written in. */
    private record Parsed(JsonNode root, Encoding encoding) {
    }

    private static Parsed parse(Path file) throws IOException, TraceFormatException {
        JsonNode root;
        boolean cbor;
        try (InputStream in = new BufferedInputStream(BoundedFiles.open(file))) {
            in.mark(CBOR_MAGIC.length);
            cbor = Arrays.equals(in.readNBytes(CBOR_MAGIC.length), CBOR_MAGIC);
            in.reset();
            try (JsonParser parser = cbor ? CBOR.getFactory().createParser(in) : BoundedFiles.jsonParser(in)) {
                root = (cbor ? CBOR : JSON).readTree(parser);
            } catch (JsonProcessingException e) {
                // A limit of the parser (nesting deeper than it reads, a number too long) comes without a location.
                com.fasterxml.jackson.core.JsonLocation at = e.getLocation();
                if (cbor) {
                    throw new TraceFormatException(file + ": not CBOR" + (at == null ? "" : " at byte " + at.getByteOffset())
                            + ": " + e.getOriginalMessage(), e);
                }
                throw new TraceFormatException(file + ": not JSON" + (at == null ? "" : " at line " + at.getLineNr()
                        + ", column " + at.getColumnNr()) + ": " + e.getOriginalMessage(), e);
            }
        }
        if (root == null || root.isMissingNode()) {
            throw new TraceFormatException(file + ": empty file, expected an " + SCHEMA + " JSON object");
        }
        return new Parsed(root, cbor ? Encoding.CBOR : Encoding.JSON);
    }

    /**
     * Decodes a trace already parsed, e.g. a host's partial trace sent in its result; {@code source} names it in
     * every error (as a file would be named).
     */
    public static Trace fromJson(JsonNode root, String source) throws TraceFormatException {
        if (root == null || !root.isObject()) {
            throw new TraceFormatException(source + ": expected an " + SCHEMA + " JSON object");
        }
        return new Reader(Path.of(source)).trace(root);
    }

    /** Decodes one document; every check names the file and the JSON pointer of the bad value. */
    private static final class Reader {
        private final Path file;
        private TraceConfig config;
        /** Whether the file's schema has {@code words_runs} ({@link #SCHEMA_RUNS} and later). */
        private boolean runsAllowed;
        /** Whether the file's schema has packed nodes and groups over overlapping ranks ({@link #SCHEMA}). */
        private boolean packedAllowed;
        /** The file's packed runs ({@link CountRunsTable#FIELD}), or null if it has none. */
        private CountRunsTable runsTable;
        /** The file's shared parameter lists ({@link ParamsTable#FIELD}). */
        private List<Params> paramsTable = List.of();
        /** Whether the file writes its estimates as {@link ScaledEstimate} codes ({@code estimate_bits}); else exact ns. */
        private boolean scaled;

        Reader(Path file) {
            this.file = file;
        }

        private TraceFormatException bad(String pointer, String expected, JsonNode got) {
            return new TraceFormatException(file + ": at " + (pointer.isEmpty() ? "/" : pointer) + ": expected " + expected
                    + ", got " + (got == null || got.isMissingNode() ? "nothing" : abbreviate(got.toString())));
        }

        private static String abbreviate(String s) {
            return s.length() > 60 ? s.substring(0, 57) + "..." : s;
        }

        private JsonNode field(JsonNode o, String pointer, String name) throws TraceFormatException {
            if (!o.isObject()) {
                throw bad(pointer, "an object", o);
            }
            JsonNode v = o.get(name);
            if (v == null) {
                throw bad(pointer + "/" + name, "field '" + name + "'", null);
            }
            return v;
        }

        private long integer(JsonNode o, String pointer, String name, long min) throws TraceFormatException {
            JsonNode v = field(o, pointer, name);
            if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < min) {
                throw bad(pointer + "/" + name, "an integer >= " + min, v);
            }
            return v.asLong();
        }

        Trace trace(JsonNode root) throws TraceFormatException {
            JsonNode schema = field(root, "", "schema");
            if (!SCHEMA.equals(schema.asText()) && !SCHEMA_RUNS.equals(schema.asText())
                    && !SCHEMA_V1.equals(schema.asText())) {
                throw bad("/schema", "\"" + SCHEMA + "\", \"" + SCHEMA_RUNS + "\" or \"" + SCHEMA_V1 + "\"", schema);
            }
            runsAllowed = !SCHEMA_V1.equals(schema.asText());
            packedAllowed = SCHEMA.equals(schema.asText());
            runsTable = runsTable(root);
            int ranks = (int) integer(root, "", "ranks", 1);
            paramsTable = paramsTable(root, ranks);
            JsonNode enc = field(root, "", "time_encoding");
            TimeEncoding encoding;
            try {
                encoding = TimeEncoding.parse(enc.asText());
            } catch (IllegalArgumentException e) {
                throw bad("/time_encoding", "stats, hist or path", enc);
            }
            int bins = (int) integer(root, "", "bins", 2);
            if (root.has("estimate_bits")) {
                JsonNode bits = root.get("estimate_bits");
                if (!packedAllowed) {
                    throw bad("/estimate_bits", "no estimate_bits in an " + schema.asText() + " file (scaled estimates "
                            + "are " + SCHEMA + ")", bits);
                }
                if (!bits.isIntegralNumber() || bits.asLong() != ScaledEstimate.MANTISSA_BITS) {
                    throw bad("/estimate_bits", ScaledEstimate.MANTISSA_BITS + " (the mantissa bits of the scaled "
                            + "estimates) or no field (exact nanoseconds)", bits);
                }
                scaled = true;
            }
            config = new TraceConfig(encoding, Math.min(bins, 64), DeltaHistogram.DEFAULT_SMOOTH_INTERVAL,
                    TraceConfig.DEFAULT_WINDOW, TraceConfig.DEFAULT_MAX_NODES);
            long events = integer(root, "", "events_recorded", 0);
            long wall = integer(root, "", "wall_ns", 0);
            List<RankTrace.Lost> lost = new ArrayList<>();
            JsonNode lostNode = field(root, "", "lost");
            if (!lostNode.isArray()) {
                throw bad("/lost", "an array", lostNode);
            }
            for (int i = 0; i < lostNode.size(); i++) {
                String p = "/lost/" + i;
                JsonNode l = lostNode.get(i);
                long[] byOp = new long[Op.values().length];
                JsonNode by = field(l, p, "by_op");
                Iterator<Map.Entry<String, JsonNode>> it = by.fields();
                while (it.hasNext()) {
                    Map.Entry<String, JsonNode> e = it.next();
                    Op op = Op.ofFileName(e.getKey());
                    if (op == null) {
                        throw bad(p + "/by_op/" + e.getKey(), "an op name", by);
                    }
                    byOp[op.ordinal()] = integer(by, p + "/by_op", e.getKey(), 0);
                }
                lost.add(new RankTrace.Lost((int) integer(l, p, "rank", 0), integer(l, p, "first_lost", 0),
                        integer(l, p, "count", 0), byOp));
            }
            Map<Integer, String> sites = new TreeMap<>();
            JsonNode sitesNode = field(root, "", "sites");
            if (!sitesNode.isObject()) {
                throw bad("/sites", "an object of site id -> name", sitesNode);
            }
            Iterator<Map.Entry<String, JsonNode>> it = sitesNode.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                try {
                    sites.put(Integer.parseInt(e.getKey()), e.getValue().asText());
                } catch (NumberFormatException ex) {
                    throw bad("/sites/" + e.getKey(), "an integer site id as key", sitesNode);
                }
            }
            JsonNode groupsNode = field(root, "", "groups");
            if (!groupsNode.isArray()) {
                throw bad("/groups", "an array", groupsNode);
            }
            List<Trace.Group> groups = new ArrayList<>();
            boolean disjoint = true;
            java.util.BitSet seen = new java.util.BitSet();
            for (int g = 0; g < groupsNode.size(); g++) {
                String p = "/groups/" + g;
                JsonNode gn = groupsNode.get(g);
                RankList r = rankList(field(gn, p, "ranks"), p + "/ranks", ranks);
                for (int rank : r.ranks()) {
                    disjoint &= !seen.get(rank);
                    seen.set(rank);
                }
                groups.add(new Trace.Group(r, nodes(field(gn, p, "trace"), p + "/trace", r, ranks)));
            }
            if (!disjoint && !packedAllowed) {
                throw bad("/groups", "groups naming each rank at most once in an " + schema.asText() + " file (groups "
                        + "over overlapping ranks, an aligned trace, came with " + SCHEMA + ")", groupsNode);
            }
            Trace trace = new Trace(ranks, encoding, bins, groups, events, lost, sites);
            trace.groups = groupsOf(groups, disjoint, ranks);
            trace.aligned = !disjoint;
            trace.wallNanos = wall;
            if (root.has("timed")) {
                JsonNode timed = root.get("timed");
                if (!timed.isObject()) {
                    throw bad("/timed", "an object {\"ns\", \"from\"}", timed);
                }
                long ns = integer(timed, "/timed", "ns", 0);
                JsonNode from = field(timed, "/timed", "from");
                if (!from.isArray() || from.isEmpty()) {
                    throw bad("/timed/from", "a non-empty array of {\"calls\", \"ranks\"}", from);
                }
                List<Trace.TimedFrom> pairs = new ArrayList<>();
                int covered = 0;
                for (int i = 0; i < from.size(); i++) {
                    String p = "/timed/from/" + i;
                    RankList r = rankList(field(from.get(i), p, "ranks"), p + "/ranks", ranks);
                    pairs.add(new Trace.TimedFrom(integer(from.get(i), p, "calls", 0), r));
                    covered += r.size();
                }
                if (covered > ranks) {
                    throw bad("/timed/from", "ranklists that name each of the " + ranks + " ranks at most once", from);
                }
                trace.timedNanos = ns;
                trace.timedFrom = List.copyOf(pairs);
            }
            return trace;
        }

        /**
         * Groups that name each rank at most once are whole rank traces, to be aligned (every file before version 3,
         * and a partial trace); otherwise they are the aligned sequence, one group over the ranks they name.
         */
        private static List<Trace.Group> groupsOf(List<Trace.Group> groups, boolean disjoint, int ranks) {
            if (disjoint || groups.isEmpty()) {
                return groups;
            }
            List<Node> all = new ArrayList<>();
            RankList union = groups.get(0).ranks();
            for (Trace.Group g : groups) {
                all.addAll(g.nodes());
                union = union.union(g.ranks());
            }
            return new ArrayList<>(List.of(new Trace.Group(union, all)));
        }

        private RankList rankList(JsonNode a, String pointer, int ranks) throws TraceFormatException {
            if (!a.isArray() || a.size() == 0 || a.size() % 3 != 0) {
                throw bad(pointer, "a ranklist: [start, stride, count, ...] runs", a);
            }
            int[] runs = new int[a.size()];
            for (int i = 0; i < runs.length; i++) {
                if (!a.get(i).isIntegralNumber()) {
                    throw bad(pointer + "/" + i, "an integer", a.get(i));
                }
                runs[i] = a.get(i).asInt();
            }
            RankList r = RankList.ofRuns(runs);
            if (r == null) {
                throw bad(pointer, "runs with start >= 0, stride >= 1, count >= 1", a);
            }
            for (int rank : r.ranks()) {
                if (rank >= ranks) {
                    throw bad(pointer, "ranks below " + ranks, a);
                }
            }
            return r;
        }

        private List<Node> nodes(JsonNode a, String pointer, RankList ranks, int jobRanks) throws TraceFormatException {
            return nodes(a, pointer, ranks, jobRanks, 1);
        }

        /** {@code occurrences}: how many times one rank runs this sequence (the enclosing loops' iterations, multiplied). */
        private List<Node> nodes(JsonNode a, String pointer, RankList ranks, int jobRanks, long occurrences)
                throws TraceFormatException {
            if (!a.isArray()) {
                throw bad(pointer, "an array of events and loops", a);
            }
            List<Node> out = new ArrayList<>();
            for (int i = 0; i < a.size(); i++) {
                String p = pointer + "/" + i;
                JsonNode n = a.get(i);
                if (n.isArray() && packedAllowed) {
                    out.add(packedNode(n, p, ranks, jobRanks, occurrences));
                    continue;
                }
                if (!n.isObject()) {
                    throw bad(p, "an event {\"op\": ...} or a loop {\"loop\": ...}"
                            + (packedAllowed ? ", or packed: [op, ...] or [iterations, [body]]" : ""), n);
                }
                RankList own = ownRanks(n, p, ranks, jobRanks);
                if (n.has("loop")) {
                    long iters = integer(n, p, "loop", 1);
                    long inner;
                    try {
                        inner = Math.multiplyExact(occurrences, iters);
                    } catch (ArithmeticException e) {
                        throw bad(p + "/loop", "loops whose iterations multiplied stay below 2^63", n.get("loop"));
                    }
                    out.add(new LoopNode(own, iters, nodes(field(n, p, "body"), p + "/body", own, jobRanks, inner)));
                } else if (n.has("op")) {
                    out.add(event(n, p, own, jobRanks, occurrences));
                } else {
                    throw bad(p, "an event {\"op\": ...} or a loop {\"loop\": ...}", n);
                }
            }
            return out;
        }

        /**
         * A node's {@code ranks} (version 3: a node over fewer ranks than its loop's or its group's, an aligned loop
         * body's element), which must be among its parent's; or the parent's.
         */
        private RankList ownRanks(JsonNode n, String p, RankList parent, int jobRanks) throws TraceFormatException {
            if (!n.has("ranks")) {
                return parent;
            }
            if (!packedAllowed) {
                throw bad(p + "/ranks", "no ranks on a node in an eventspace.trace/1 or /2 file (they came with "
                        + SCHEMA + ")", n.get("ranks"));
            }
            RankList own = rankList(n.get("ranks"), p + "/ranks", jobRanks);
            if (!parent.union(own).equals(parent)) {
                throw bad(p + "/ranks", "ranks among the enclosing loop's or group's " + parent, n.get("ranks"));
            }
            return own;
        }

        /** A node in the plain form ({@link TraceFile#packed}): {@code [op, compute, comm, ...]} or {@code [iterations, [body]]}. */
        private Node packedNode(JsonNode n, String p, RankList ranks, int jobRanks, long occurrences)
                throws TraceFormatException {
            String expected = "[op, compute, comm, site, ...] or [iterations, [body...]]";
            if (n.size() < 2) {
                throw bad(p, expected, n);
            }
            if (n.get(0).isIntegralNumber()) {
                long iters = n.get(0).asLong();
                if (n.size() != 2 || iters < 1) {
                    throw bad(p, "a packed loop [iterations >= 1, [body...]]", n);
                }
                long inner;
                try {
                    inner = Math.multiplyExact(occurrences, iters);
                } catch (ArithmeticException e) {
                    throw bad(p + "/0", "loops whose iterations multiplied stay below 2^63", n.get(0));
                }
                return new LoopNode(ranks, iters, nodes(n.get(1), p + "/1", ranks, jobRanks, inner));
            }
            Op op = Op.ofFileName(n.get(0).asText());
            if (!n.get(0).isTextual() || op == null) {
                throw bad(p + "/0", "an op (allreduce_long, barrier, send, ...) or a loop's iterations", n.get(0));
            }
            int slots = 4 + (op.reduces() ? 1 : 0) + (op.pointToPoint() ? 1 : 0) + 1 + (op.rooted() ? 1 : 0)
                    + (op.mpi() ? 2 : 0);
            if (n.size() < 3 || n.size() > slots) {
                throw bad(p, "a packed " + op.fileName() + " of 3 to " + slots + " elements [op, compute, comm, site"
                        + (op.reduces() ? ", reduce" : "") + (op.pointToPoint() ? ", peer" : "") + ", words"
                        + (op.rooted() ? ", root" : "") + (op.mpi() ? ", tag, communicator" : "") + "]", n);
            }
            int at = 3;
            JsonNode siteNode = slot(n, at++);
            int site = CallSite.UNMARKED;
            if (!siteNode.isNull()) {
                if (!siteNode.isIntegralNumber() || siteNode.asLong() < 0 || siteNode.asLong() > Integer.MAX_VALUE) {
                    throw bad(p + "/3", "a call site id >= 0 or null", siteNode);
                }
                site = siteNode.asInt();
            }
            int reduce = -1;
            if (op.reduces()) {
                JsonNode r = slot(n, at);
                try {
                    reduce = ReduceOp.valueOf(r.asText().toUpperCase(java.util.Locale.ROOT)).ordinal();
                } catch (IllegalArgumentException e) {
                    throw bad(p + "/" + at, "a reduce op (sum, min, max, ...)", r);
                }
                at++;
            }
            Params peer = null;
            if (op.pointToPoint()) {
                peer = slot(n, at).isNull() ? null : paramsValue(slot(n, at), p + "/" + at, "peer", ranks, jobRanks);
                at++;
            }
            Params words = slot(n, at).isNull() ? null : paramsValue(slot(n, at), p + "/" + at, "words", ranks, jobRanks);
            at++;
            Params root = null;
            if (op.rooted()) {
                if (slot(n, at).isNull()) {
                    throw bad(p + "/" + at, "the root of a " + op.fileName(), slot(n, at));
                }
                root = paramsValue(slot(n, at), p + "/" + at, "root", ranks, jobRanks);
                at++;
            }
            EventNode e = EventNode.restored(ranks, op, site, reduce, peer, words, root, null, occurrences,
                    packedTiming(n.get(1), p + "/1", ranks, jobRanks), packedTiming(n.get(2), p + "/2", ranks, jobRanks));
            if (op.mpi()) {
                Params tag = slot(n, at).isNull() ? null : paramsValue(slot(n, at), p + "/" + at, "tag", ranks, jobRanks);
                at++;
                Params communicator = slot(n, at).isNull() ? null
                        : paramsValue(slot(n, at), p + "/" + at, "communicator", ranks, jobRanks);
                e.restoreChannel(tag, communicator);
            }
            return e;
        }

        private static JsonNode slot(JsonNode n, int i) {
            return i < n.size() ? n.get(i) : com.fasterxml.jackson.databind.node.NullNode.getInstance();
        }

        /** One sample's nanoseconds, {@code [ns, previous site]} (time encoding path), or a timing object. */
        private DeltaTiming packedTiming(JsonNode t, String p, RankList ranks, int jobRanks) throws TraceFormatException {
            if (t.isObject() || t.isArray() && t.size() >= COMPACT_TIMING_FIELDS) {
                return timing(t, p, ranks, jobRanks);
            }
            boolean path = config.encoding() == TimeEncoding.PATH;
            JsonNode v = t.isArray() ? t.get(0) : t;
            if (path != t.isArray() || t.isArray() && (t.size() != 2 || !t.get(1).isIntegralNumber()
                    || t.get(1).asLong() < 0 || t.get(1).asLong() > Integer.MAX_VALUE)
                    || v == null || !v.isIntegralNumber() || v.asLong() < 0) {
                throw bad(p, path ? "[nanoseconds >= 0, previous site] or a timing object"
                        : "nanoseconds >= 0 or a timing object", t);
            }
            if (ranks.size() != 1) {
                throw bad(p, "a timing object: one sample's nanoseconds belong to an event of one rank, this one has "
                        + ranks.size(), t);
            }
            DeltaTiming d = new DeltaTiming(config);
            d.add(v.asLong(), ranks.first(), path ? t.get(1).asInt() : CallSite.UNMARKED);
            return d;
        }

        private EventNode event(JsonNode n, String p, RankList ranks, int jobRanks, long occurrences)
                throws TraceFormatException {
            JsonNode opNode = field(n, p, "op");
            Op op = Op.ofFileName(opNode.asText());
            if (op == null) {
                throw bad(p + "/op", "an op (allreduce_long, barrier, send, ...)", opNode);
            }
            int site = n.has("site") ? (int) integer(n, p, "site", 0) : CallSite.UNMARKED;
            int reduce = -1;
            if (op.reduces()) {
                JsonNode r = field(n, p, "reduce");
                try {
                    reduce = ReduceOp.valueOf(r.asText().toUpperCase(java.util.Locale.ROOT)).ordinal();
                } catch (IllegalArgumentException e) {
                    throw bad(p + "/reduce", "a reduce op (sum, min, max, ...)", r);
                }
            }
            // no peer: none of the ranks had one (an MPI_ANY_SOURCE receive, a call on an unknown communicator)
            Params peer = op.pointToPoint() && n.has("peer") ? params(n, p, "peer", ranks, jobRanks) : null;
            if (n.has("words_runs") && !runsAllowed) {
                throw bad(p + "/words_runs", "no words_runs in an " + SCHEMA_V1 + " file (they came with " + SCHEMA_RUNS + ")",
                        n.get("words_runs"));
            }
            if (n.has("words") && n.has("words_runs")) {
                throw bad(p + "/words_runs", "either words or words_runs, not both", n.get("words_runs"));
            }
            Params words = n.has("words") ? params(n, p, "words", ranks, jobRanks) : null;
            List<EventNode.RunsEntry> runs = n.has("words_runs") ? runs(n.get("words_runs"), p + "/words_runs", ranks,
                    jobRanks, occurrences) : null;
            Params root = op.rooted() ? params(n, p, "root", ranks, jobRanks) : null;
            EventNode e = EventNode.restored(ranks, op, site, reduce, peer, words, root, runs, occurrences,
                    timing(field(n, p, "compute"), p + "/compute", ranks, jobRanks),
                    timing(field(n, p, "comm"), p + "/comm", ranks, jobRanks));
            channel(n, p, e, ranks, jobRanks);
            return e;
        }

        /** The optional {@code tag} and {@code communicator} of an MPI call ({@link TraceFile#channel}). */
        private void channel(JsonNode n, String p, EventNode e, RankList ranks, int jobRanks) throws TraceFormatException {
            boolean tag = n.has("tag");
            if ((tag || n.has("communicator")) && !e.op().mpi()) {
                throw bad(p + (tag ? "/tag" : "/communicator"), "no tag or communicator on " + e.op().fileName()
                        + " (they belong to an MPI program's calls)", tag ? n.get("tag") : n.get("communicator"));
            }
            e.restoreChannel(tag ? params(n, p, "tag", ranks, jobRanks) : null,
                    n.has("communicator") ? params(n, p, "communicator", ranks, jobRanks) : null);
        }

        /**
         * {@code [[[value, length, ...], ranklist], ...]}: counts that vary between occurrences, each rank set's in order;
         * the lengths of each must add up to {@code occurrences}, the times one rank makes the call.
         */
        private List<EventNode.RunsEntry> runs(JsonNode v, String p, RankList ranks, int jobRanks, long occurrences)
                throws TraceFormatException {
            if (v.isIntegralNumber() || v.isArray() && v.size() > 0 && v.get(0).isIntegralNumber()) {
                return packedRuns(v, p, ranks, occurrences);
            }
            if (!v.isArray() || v.size() == 0) {
                throw bad(p, "[[[value, length, ...], ranklist], ...], [[index, ranklist], ...], [index, ...] or an index",
                        v);
            }
            List<EventNode.RunsEntry> out = new ArrayList<>();
            for (int i = 0; i < v.size(); i++) {
                JsonNode pair = v.get(i);
                String pp = p + "/" + i;
                if (pair.isArray() && pair.size() == 2 && pair.get(0).isIntegralNumber()) {
                    out.add(new EventNode.RunsEntry(packedEntry(pair.get(0), pp + "/0", occurrences),
                            rankList(pair.get(1), pp + "/1", jobRanks)));
                    continue;
                }
                if (!pair.isArray() || pair.size() != 2 || !pair.get(0).isArray()) {
                    throw bad(pp, "[[value, length, ...], ranklist]", pair);
                }
                JsonNode values = pair.get(0);
                long[] pairs = new long[values.size()];
                for (int j = 0; j < pairs.length; j++) {
                    if (!values.get(j).isIntegralNumber()) {
                        throw bad(pp + "/0/" + j, "an integer", values.get(j));
                    }
                    pairs[j] = values.get(j).asLong();
                }
                CountRuns r;
                try {
                    r = CountRuns.of(pairs);
                } catch (IllegalArgumentException e) {
                    throw bad(pp + "/0", "value, length pairs with lengths >= 1 (" + e.getMessage() + ")", values);
                }
                if (r.occurrences() != occurrences) {
                    throw bad(pp + "/0", "lengths adding up to " + occurrences + ", the calls one rank makes here (the "
                            + "enclosing loops' iterations), not " + r.occurrences(), values);
                }
                out.add(new EventNode.RunsEntry(r, rankList(pair.get(1), pp + "/1", jobRanks)));
            }
            return out;
        }

        /** The table of packed runs ({@link CountRunsTable}), or null when the file has none. */
        private CountRunsTable runsTable(JsonNode root) throws TraceFormatException {
            JsonNode t = root.get(CountRunsTable.FIELD);
            if (t == null) {
                return null;
            }
            String p = "/" + CountRunsTable.FIELD;
            byte[] bytes;
            try {
                bytes = t.isBinary() || t.isTextual() ? t.binaryValue() : null;
            } catch (IOException | IllegalArgumentException e) {
                bytes = null;
            }
            if (bytes == null || bytes.length == 0) {
                throw bad(p, "the packed runs: a non-empty byte string (base64 in JSON)", t);
            }
            try {
                return CountRunsTable.read(bytes);
            } catch (IllegalArgumentException e) {
                throw new TraceFormatException(file + ": at " + p + ": " + e.getMessage());
            }
        }

        /**
         * {@code [index, ...]}: one entry of the packed runs per rank of the event, in ascending rank order; a single
         * {@code index}: entries index, index + 1, … for the ranks in ascending order.
         */
        private List<EventNode.RunsEntry> packedRuns(JsonNode v, String p, RankList ranks, long occurrences)
                throws TraceFormatException {
            int[] r = ranks.ranks();
            if (v.isArray() && v.size() != r.length) {
                throw bad(p, "one index into " + CountRunsTable.FIELD + " per rank of the event (" + r.length + ")", v);
            }
            Map<CountRuns, List<Integer>> byRuns = new java.util.LinkedHashMap<>();
            for (int i = 0; i < r.length; i++) {
                JsonNode ref = v.get(i);
                if (!v.isArray()) {
                    if (!v.canConvertToLong() || v.asLong() < 0) {
                        throw bad(p, "an index into " + CountRunsTable.FIELD, v);
                    }
                    ref = com.fasterxml.jackson.databind.node.LongNode.valueOf(v.asLong() + i);
                }
                byRuns.computeIfAbsent(packedEntry(ref, v.isArray() ? p + "/" + i : p, occurrences),
                        k -> new ArrayList<>()).add(r[i]);
            }
            List<EventNode.RunsEntry> out = new ArrayList<>();
            byRuns.forEach((runs, rs) -> out.add(new EventNode.RunsEntry(runs,
                    RankList.ofSorted(rs.stream().mapToInt(Integer::intValue).toArray()))));
            return out;
        }

        private CountRuns packedEntry(JsonNode ref, String p, long occurrences) throws TraceFormatException {
            if (runsTable == null) {
                throw bad(p, "runs (an index needs a " + CountRunsTable.FIELD + " in the file)", ref);
            }
            if (!ref.isIntegralNumber() || !ref.canConvertToLong()) {
                throw bad(p, "an index into " + CountRunsTable.FIELD, ref);
            }
            try {
                return runsTable.runs(ref.asLong(), occurrences);
            } catch (IllegalArgumentException e) {
                throw bad(p, e.getMessage(), ref);
            }
        }

        private Params params(JsonNode n, String p, String name, RankList ranks, int jobRanks) throws TraceFormatException {
            return paramsValue(field(n, p, name), p + "/" + name, name, ranks, jobRanks);
        }

        /** {@code v} at {@code pointer}: a value for every rank, [[value, ranklist], ...], or [index] into the shared lists. */
        private Params paramsValue(JsonNode v, String pointer, String name, RankList ranks, int jobRanks)
                throws TraceFormatException {
            boolean peer = name.equals("peer");
            if (ParamsTable.isReference(v)) {
                return sharedParams(v, pointer, peer);
            }
            return params(v, pointer, peer, ranks, jobRanks);
        }

        /** The shared lists of pairs ({@link ParamsTable}), each checked as an event's would be; empty if none. */
        private List<Params> paramsTable(JsonNode root, int jobRanks) throws TraceFormatException {
            JsonNode t = root.get(ParamsTable.FIELD);
            if (t == null) {
                return List.of();
            }
            String p = "/" + ParamsTable.FIELD;
            if (!t.isArray()) {
                throw bad(p, "an array of [[value, ranklist], ...] lists", t);
            }
            List<Params> out = new ArrayList<>();
            for (int i = 0; i < t.size(); i++) {
                if (!t.get(i).isArray() || t.get(i).isEmpty()) {
                    throw bad(p + "/" + i, "[[value, ranklist], ...]", t.get(i));
                }
                out.add(params(t.get(i), p + "/" + i, true, null, jobRanks));
            }
            return List.copyOf(out);
        }

        /** {@code [index]}: a list of {@link #paramsTable}; {@code proc_null} only where a peer is named. */
        private Params sharedParams(JsonNode v, String where, boolean peer) throws TraceFormatException {
            JsonNode index = v.get(0);
            if (!index.canConvertToLong() || index.asLong() < 0 || index.asLong() >= paramsTable.size()) {
                throw bad(where + "/0", "an index into " + ParamsTable.FIELD + " below " + paramsTable.size(), index);
            }
            Params shared = paramsTable.get((int) index.asLong());
            for (Params.Entry e : shared.entries()) {
                if (!peer && e.value() == EventNode.PROC_NULL) {
                    throw bad(where + "/0", "a list without \"" + PROC_NULL + "\" (only a peer is MPI_PROC_NULL)", index);
                }
            }
            return shared;
        }

        private Params params(JsonNode v, String where, boolean peer, RankList ranks, int jobRanks)
                throws TraceFormatException {
            if (v.isIntegralNumber() || peer && PROC_NULL.equals(v.textValue())) {
                return Params.single(v.isIntegralNumber() ? v.asLong() : EventNode.PROC_NULL, ranks);
            }
            if (!v.isArray() || v.size() == 0) {
                throw bad(where, peer ? "an integer, \"" + PROC_NULL + "\", [[value, ranklist], ...] or [index]"
                        : "an integer, [[value, ranklist], ...] or [index]", v);
            }
            List<Params.Entry> entries = new ArrayList<>();
            for (int i = 0; i < v.size(); i++) {
                JsonNode pair = v.get(i);
                String pp = where + "/" + i;
                boolean procNull = peer && pair.isArray() && pair.size() == 2 && PROC_NULL.equals(pair.get(0).textValue());
                if (!pair.isArray() || pair.size() != 2 || !pair.get(0).isIntegralNumber() && !procNull) {
                    throw bad(pp, peer ? "[value or \"" + PROC_NULL + "\", ranklist]" : "[value, ranklist]", pair);
                }
                entries.add(new Params.Entry(procNull ? EventNode.PROC_NULL : pair.get(0).asLong(),
                        rankList(pair.get(1), pp + "/1", jobRanks)));
            }
            return Params.of(entries);
        }

        private DeltaTiming timing(JsonNode t, String p, RankList eventRanks, int jobRanks) throws TraceFormatException {
            if (t.isArray() && !t.isEmpty() && t.get(0).isArray()) {
                if (!packedAllowed) {
                    throw bad(p, "a timing object (array timings are eventspace.trace/3)", t);
                }
                List<DeltaTiming> groups = timingByRanks(t, p, true, eventRanks, jobRanks);
                DeltaTiming d;
                try {
                    d = DeltaTiming.ofGroups(config, groups);
                } catch (IllegalArgumentException e) {
                    // Each group's histograms were checked alone; merged, their bins must agree too.
                    throw bad(p, "rank groups whose histograms can be merged (" + e.getMessage() + ")", t);
                }
                d.restore(eventRanks, groups);
                return d;
            }
            DeltaTiming d = timing(t, p);
            List<DeltaTiming> groups = t.has("by_ranks")
                    ? timingByRanks(t.get("by_ranks"), p + "/by_ranks", false, eventRanks, jobRanks) : null;
            if (groups != null) {
                long samples = groups.stream().mapToLong(g -> g.stats().count()).sum();
                if (samples != d.stats().count()) {
                    throw bad(p + "/by_ranks", "groups whose n add up to the timing's n " + d.stats().count() + ", not "
                            + samples, t.get("by_ranks"));
                }
            }
            d.restore(eventRanks, groups);
            return d;
        }

        /**
         * A timing's rank groups at {@code pa}: the array form's {@code [ranks, merged_entries, n, ...]} ({@code array})
         * or the object form's {@code by_ranks}; at least two, each a timing whose ranks lie inside the event's, no rank
         * in two, every rank of the event in one, with its extremes' ranks among its own. (The object form's groups must
         * also add up to its timing's {@code n}: the caller checks that; the array form's timing is theirs merged.)
         */
        private List<DeltaTiming> timingByRanks(JsonNode a, String pa, boolean array, RankList eventRanks, int jobRanks)
                throws TraceFormatException {
            if (!a.isArray() || a.size() < 2) {
                throw bad(pa, array ? "an array of at least 2 rank groups' timings [ranks, merged_entries, n, mean, ...]"
                        : "an array of at least 2 rank groups' timings {\"ranks\", \"n\", \"mean\", ...}", a);
            }
            List<DeltaTiming> out = new ArrayList<>();
            java.util.BitSet seen = new java.util.BitSet();
            for (int i = 0; i < a.size(); i++) {
                String pg = pa + "/" + i;
                JsonNode g = a.get(i);
                if (array && (!g.isArray() || g.size() < 2 + COMPACT_TIMING_FIELDS
                        || g.size() > 3 + COMPACT_TIMING_FIELDS)) {
                    throw bad(pg, "a rank group's timing [ranks, merged_entries, n, mean, sd, min, min_rank, max, max_rank"
                            + "(, bins)]", g);
                }
                if (!array && g.has("by_ranks")) {
                    throw bad(pg + "/by_ranks", "no rank groups inside a rank group", g.get("by_ranks"));
                }
                JsonNode ranksNode = array ? g.get(0) : field(g, pg, "ranks");
                String pr = pg + (array ? "/0" : "/ranks");
                RankList r = rankList(ranksNode, pr, jobRanks);
                for (int rank : r.ranks()) {
                    if (!eventRanks.contains(rank)) {
                        throw bad(pr, "ranks of the event's " + eventRanks + " (rank " + rank + " is not)", ranksNode);
                    }
                    if (seen.get(rank)) {
                        throw bad(pr, "each rank in one group only (rank " + rank + " is in an earlier one)", ranksNode);
                    }
                    seen.set(rank);
                }
                DeltaTiming d;
                long merged;
                if (array) {
                    d = compactTiming(g, pg, 2);
                    JsonNode m = g.get(1);
                    if (!m.isIntegralNumber() || !m.canConvertToLong() || m.asLong() < 1) {
                        throw bad(pg + "/1", "merged_entries, an integer >= 1", m);
                    }
                    merged = m.asLong();
                } else {
                    d = timing(g, pg);
                    merged = g.has("merged_entries") ? integer(g, pg, "merged_entries", 2) : 1;
                }
                TimeStats s = d.stats();
                if (!r.contains(s.minRank()) || !r.contains(s.maxRank())) {
                    throw bad(pg, "min_rank and max_rank among the group's ranks " + r, g);
                }
                if (merged > r.size()) {
                    throw bad(pg + (array ? "/1" : "/merged_entries"), "at most the group's " + r.size()
                            + " ranks (each merged group held one at least)", array ? g.get(1) : g.get("merged_entries"));
                }
                d.restoreGroup(r, (int) merged);
                out.add(d);
            }
            if (seen.cardinality() != eventRanks.size()) {
                throw bad(pa, "groups naming every rank of the event's " + eventRanks + " (" + seen.cardinality() + " of "
                        + eventRanks.size() + " named)", a);
            }
            return out;
        }

        private DeltaTiming timing(JsonNode t, String p) throws TraceFormatException {
            if (t.isArray()) {
                return compactTiming(t, p);
            }
            if (!t.isObject()) {
                throw bad(p, "a timing: [n, mean, sd, min, min_rank, max, max_rank(, bins)] or an object", t);
            }
            DeltaTiming d = new DeltaTiming(config);
            long count = integer(t, p, "n", 1);
            long min = integer(t, p, "min", 0);
            long max = integer(t, p, "max", 0);
            d.stats.copy(TimeStats.of(count, mean(estimate(integer(t, p, "mean", 0), t.get("mean"), p + "/mean"), min, max),
                    estimate(integer(t, p, "sd", 0), t.get("sd"), p + "/sd"), min, (int) integer(t, p, "min_rank", 0), max,
                    (int) integer(t, p, "max_rank", 0)));
            if (t.has("hist")) {
                d.hist = bins(t.get("hist"), p + "/hist");
            }
            if (t.has("paths")) {
                JsonNode paths = t.get("paths");
                if (!paths.isObject() || d.paths == null) {
                    throw bad(p + "/paths", "an object of previous site -> bins, in a trace of time encoding path", paths);
                }
                Iterator<Map.Entry<String, JsonNode>> it = paths.fields();
                while (it.hasNext()) {
                    Map.Entry<String, JsonNode> e = it.next();
                    int site;
                    try {
                        site = Integer.parseInt(e.getKey());
                    } catch (NumberFormatException ex) {
                        throw bad(p + "/paths/" + e.getKey(), "an integer site id as key", paths);
                    }
                    if (d.path(site) != null) {
                        throw bad(p + "/paths/" + e.getKey(), "each previous site once (" + site + " appears twice)", paths);
                    }
                    d.putPath(site, bins(e.getValue(), p + "/paths/" + e.getKey()));
                }
            }
            return d;
        }

        /** {@code [n, mean, sd, min, min_rank, max, max_rank]} and, in a histogram encoding, the bins (version 3). */
        private DeltaTiming compactTiming(JsonNode t, String p) throws TraceFormatException {
            if (!packedAllowed) {
                throw bad(p, "a timing object (array timings are eventspace.trace/3)", t);
            }
            if (t.size() != COMPACT_TIMING_FIELDS && t.size() != COMPACT_TIMING_FIELDS + 1) {
                throw bad(p, "[n, mean, sd, min, min_rank, max, max_rank] with the bins after them in a histogram encoding,"
                        + " or the array of its rank groups' [ranks, merged_entries, n, mean, ...]", t);
            }
            return compactTiming(t, p, 0);
        }

        /**
         * The statistics and bins of an array timing that start at index {@code first} of the array {@code t} at
         * {@code p} (2 in a rank group's, after its ranks and merged entries); its length the caller has checked.
         */
        private DeltaTiming compactTiming(JsonNode t, String p, int first) throws TraceFormatException {
            long[] v = new long[COMPACT_TIMING_FIELDS];
            for (int i = 0; i < COMPACT_TIMING_FIELDS; i++) {
                JsonNode x = t.get(first + i);
                long min = i == 0 ? 1 : 0;
                if (!x.isIntegralNumber() || !x.canConvertToLong() || x.asLong() < min
                        || (i == 4 || i == 6) && x.asLong() > Integer.MAX_VALUE) {
                    throw bad(p + "/" + (i + first), "an integer >= " + min, x);
                }
                v[i] = x.asLong();
            }
            DeltaTiming d = new DeltaTiming(config);
            d.stats.copy(TimeStats.of(v[0], mean(estimate(v[1], t.get(first + 1), p + "/" + (first + 1)), v[3], v[5]),
                    estimate(v[2], t.get(first + 2), p + "/" + (first + 2)), v[3], (int) v[4], v[5], (int) v[6]));
            if (t.size() > first + COMPACT_TIMING_FIELDS) {
                d.hist = bins(t.get(first + COMPACT_TIMING_FIELDS), p + "/" + (first + COMPACT_TIMING_FIELDS));
            }
            return d;
        }

        /**
         * An estimate's nanoseconds from {@code raw}, the non-negative integer the caller read and checked at {@code p}
         * ({@code v}): its {@link ScaledEstimate} code decoded, or the integer itself in an older file.
         */
        private long estimate(long raw, JsonNode v, String p) throws TraceFormatException {
            if (!scaled) {
                return raw;
            }
            long ns = ScaledEstimate.decode(raw);
            if (ns < 0) {
                throw bad(p, "a scaled estimate e × 2048 + m of at most 2^63 ns", v);
            }
            return ns;
        }

        /** A mean read back within the extremes it was taken between (its code may round it just past one of them). */
        private static long mean(long mean, long min, long max) {
            return Math.max(min, Math.min(max, mean));
        }

        private DeltaHistogram bins(JsonNode a, String p) throws TraceFormatException {
            if (!a.isArray() || a.size() < 2) {
                throw bad(p, "an array of at least 2 bins [min, max, freq, avg, sd]", a);
            }
            int k = a.size();
            double[] lo = new double[k], hi = new double[k], avg = new double[k], sd = new double[k];
            long[] freq = new long[k];
            for (int i = 0; i < k; i++) {
                JsonNode b = a.get(i);
                if (!b.isArray() || b.size() != 5) {
                    throw bad(p + "/" + i, "a bin [min, max, freq, avg, sd]", b);
                }
                for (int j = 0; j < 5; j++) {
                    if (!b.get(j).isIntegralNumber() || !b.get(j).canConvertToLong() || b.get(j).asLong() < 0) {
                        throw bad(p + "/" + i + "/" + j, "a non-negative integer", b.get(j));
                    }
                }
                lo[i] = estimate(b.get(0).asLong(), b.get(0), p + "/" + i + "/0");
                hi[i] = estimate(b.get(1).asLong(), b.get(1), p + "/" + i + "/1");
                freq[i] = b.get(2).asLong();
                avg[i] = estimate(b.get(3).asLong(), b.get(3), p + "/" + i + "/3");
                sd[i] = estimate(b.get(4).asLong(), b.get(4), p + "/" + i + "/4");
                if (hi[i] < lo[i]) {
                    throw bad(p + "/" + i, "a bin with min <= max", b);
                }
            }
            return DeltaHistogram.restore(lo, hi, freq, avg, sd);
        }
    }
}
