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
 * The trace file, {@code eventspace.trace/1}: one document per job, documented field by field in
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
    public static final String SCHEMA = "eventspace.trace/1";
    /**
     * The same layout plus {@code words_runs}, counts that change between a call's occurrences: written only by a trace
     * that holds such a call, so every other trace stays readable by readers of version 1.
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
        ObjectMapper mapper = Encoding.of(file) == Encoding.CBOR ? CBOR : JSON;
        byte[] bytes = mapper.writeValueAsBytes(toJson(trace));
        try (OutputStream out = Files.newOutputStream(file)) {
            out.write(bytes);
        }
        return bytes.length;
    }

    public static ObjectNode toJson(Trace trace) {
        ObjectNode root = JSON.createObjectNode();
        root.put("schema", SCHEMA);
        root.put("ranks", trace.ranks());
        root.put("time_encoding", trace.encoding().fileName());
        root.put("bins", trace.bins());
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
        for (Trace.Group g : trace.groups) {
            ObjectNode o = groups.addObject();
            o.set("ranks", ranks(g.ranks()));
            nodes(g.nodes(), o.putArray("trace"), g.ranks());
        }
        if (holdsRuns(trace.nodes())) {
            root.put("schema", SCHEMA_RUNS); // keeps its place, first
        }
        return root;
    }

    private static boolean holdsRuns(List<Node> nodes) {
        for (Node n : nodes) {
            if (n instanceof LoopNode l ? holdsRuns(l.body) : ((EventNode) n).countRuns() != null) {
                return true;
            }
        }
        return false;
    }

    private static ArrayNode ranks(RankList r) {
        ArrayNode a = JSON.createArrayNode();
        for (int v : r.runs()) {
            a.add(v);
        }
        return a;
    }

    private static void nodes(List<Node> nodes, ArrayNode out, RankList groupRanks) {
        for (Node n : nodes) {
            ObjectNode o = out.addObject();
            if (n instanceof LoopNode l) {
                o.put("loop", l.iterations());
                nodes(l.body, o.putArray("body"), groupRanks);
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

    /** How a peer that is MPI_PROC_NULL is written. */
    static final String PROC_NULL = "proc_null";

    private static ObjectNode timing(DeltaTiming t) {
        ObjectNode o = JSON.createObjectNode();
        TimeStats s = t.stats();
        o.put("n", s.count());
        o.put("mean", Math.round(s.mean()));
        o.put("sd", Math.round(s.sd()));
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
        return o;
    }

    private static ArrayNode bins(DeltaHistogram h) {
        ArrayNode a = JSON.createArrayNode();
        for (int i = 0; i < h.bins(); i++) {
            ArrayNode b = a.addArray();
            b.add(Math.round(h.binMin(i)));
            b.add(Math.round(h.binMax(i)));
            b.add(h.binFreq(i));
            b.add(Math.round(h.binAvg(i)));
            b.add(Math.round(h.binSd(i)));
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
        return new Reader(file).trace(root);
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
        /** Whether the file's schema has {@code words_runs} ({@link #SCHEMA_RUNS}). */
        private boolean runsAllowed;

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
            if (!v.isIntegralNumber() || v.asLong() < min) {
                throw bad(pointer + "/" + name, "an integer >= " + min, v);
            }
            return v.asLong();
        }

        Trace trace(JsonNode root) throws TraceFormatException {
            JsonNode schema = field(root, "", "schema");
            if (!SCHEMA.equals(schema.asText()) && !SCHEMA_RUNS.equals(schema.asText())) {
                throw bad("/schema", "\"" + SCHEMA + "\" or \"" + SCHEMA_RUNS + "\"", schema);
            }
            runsAllowed = SCHEMA_RUNS.equals(schema.asText());
            int ranks = (int) integer(root, "", "ranks", 1);
            JsonNode enc = field(root, "", "time_encoding");
            TimeEncoding encoding;
            try {
                encoding = TimeEncoding.parse(enc.asText());
            } catch (IllegalArgumentException e) {
                throw bad("/time_encoding", "stats, hist or path", enc);
            }
            int bins = (int) integer(root, "", "bins", 2);
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
            for (int g = 0; g < groupsNode.size(); g++) {
                String p = "/groups/" + g;
                JsonNode gn = groupsNode.get(g);
                RankList r = rankList(field(gn, p, "ranks"), p + "/ranks", ranks);
                groups.add(new Trace.Group(r, nodes(field(gn, p, "trace"), p + "/trace", r, ranks)));
            }
            Trace trace = new Trace(ranks, encoding, bins, groups, events, lost, sites);
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
                if (!n.isObject()) {
                    throw bad(p, "an event {\"op\": ...} or a loop {\"loop\": ...}", n);
                }
                if (n.has("loop")) {
                    long iters = integer(n, p, "loop", 1);
                    long inner;
                    try {
                        inner = Math.multiplyExact(occurrences, iters);
                    } catch (ArithmeticException e) {
                        throw bad(p + "/loop", "loops whose iterations multiplied stay below 2^63", n.get("loop"));
                    }
                    out.add(new LoopNode(ranks, iters, nodes(field(n, p, "body"), p + "/body", ranks, jobRanks, inner)));
                } else if (n.has("op")) {
                    out.add(event(n, p, ranks, jobRanks, occurrences));
                } else {
                    throw bad(p, "an event {\"op\": ...} or a loop {\"loop\": ...}", n);
                }
            }
            return out;
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
                throw bad(p + "/words_runs", "no words_runs in an " + SCHEMA + " file (they came with " + SCHEMA_RUNS + ")",
                        n.get("words_runs"));
            }
            if (n.has("words") && n.has("words_runs")) {
                throw bad(p + "/words_runs", "either words or words_runs, not both", n.get("words_runs"));
            }
            Params words = n.has("words") ? params(n, p, "words", ranks, jobRanks) : null;
            List<EventNode.RunsEntry> runs = n.has("words_runs") ? runs(n.get("words_runs"), p + "/words_runs", jobRanks,
                    occurrences) : null;
            Params root = op.rooted() ? params(n, p, "root", ranks, jobRanks) : null;
            EventNode e = EventNode.restored(ranks, op, site, reduce, peer, words, root, runs, occurrences,
                    timing(field(n, p, "compute"), p + "/compute"), timing(field(n, p, "comm"), p + "/comm"));
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
        private List<EventNode.RunsEntry> runs(JsonNode v, String p, int jobRanks, long occurrences)
                throws TraceFormatException {
            if (!v.isArray() || v.size() == 0) {
                throw bad(p, "[[[value, length, ...], ranklist], ...]", v);
            }
            List<EventNode.RunsEntry> out = new ArrayList<>();
            for (int i = 0; i < v.size(); i++) {
                JsonNode pair = v.get(i);
                String pp = p + "/" + i;
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

        private Params params(JsonNode n, String p, String name, RankList ranks, int jobRanks) throws TraceFormatException {
            JsonNode v = field(n, p, name);
            boolean peer = name.equals("peer");
            if (v.isIntegralNumber() || peer && PROC_NULL.equals(v.textValue())) {
                return Params.single(v.isIntegralNumber() ? v.asLong() : EventNode.PROC_NULL, ranks);
            }
            if (!v.isArray() || v.size() == 0) {
                throw bad(p + "/" + name, peer ? "an integer, \"" + PROC_NULL + "\" or [[value, ranklist], ...]"
                        : "an integer or [[value, ranklist], ...]", v);
            }
            List<Params.Entry> entries = new ArrayList<>();
            for (int i = 0; i < v.size(); i++) {
                JsonNode pair = v.get(i);
                String pp = p + "/" + name + "/" + i;
                boolean procNull = peer && pair.isArray() && pair.size() == 2 && PROC_NULL.equals(pair.get(0).textValue());
                if (!pair.isArray() || pair.size() != 2 || !pair.get(0).isIntegralNumber() && !procNull) {
                    throw bad(pp, peer ? "[value or \"" + PROC_NULL + "\", ranklist]" : "[value, ranklist]", pair);
                }
                entries.add(new Params.Entry(procNull ? EventNode.PROC_NULL : pair.get(0).asLong(),
                        rankList(pair.get(1), pp + "/1", jobRanks)));
            }
            return Params.of(entries);
        }

        private DeltaTiming timing(JsonNode t, String p) throws TraceFormatException {
            DeltaTiming d = new DeltaTiming(config);
            long count = integer(t, p, "n", 1);
            d.stats.copy(TimeStats.of(count, integer(t, p, "mean", 0), integer(t, p, "sd", 0), integer(t, p, "min", 0),
                    (int) integer(t, p, "min_rank", 0), integer(t, p, "max", 0), (int) integer(t, p, "max_rank", 0)));
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
                    if (!b.get(j).isIntegralNumber() || b.get(j).asLong() < 0) {
                        throw bad(p + "/" + i + "/" + j, "a non-negative integer", b.get(j));
                    }
                }
                lo[i] = b.get(0).asLong();
                hi[i] = b.get(1).asLong();
                freq[i] = b.get(2).asLong();
                avg[i] = b.get(3).asLong();
                sd[i] = b.get(4).asLong();
                if (hi[i] < lo[i]) {
                    throw bad(p + "/" + i, "a bin with min <= max", b);
                }
            }
            return DeltaHistogram.restore(lo, hi, freq, avg, sd);
        }
    }
}
