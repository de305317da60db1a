package org.eventspace.trace;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;

import org.eventspace.base.io.BoundedFiles;
import org.eventspace.base.json.Json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.cbor.CBORFactory;

/**
 * How many bytes of a trace file each of its parts takes: the loop/event structure, ranklists, each kind of parameter,
 * the counts kept as runs, the timings (statistics, histograms, path histograms), the call sites and the rest — what
 * tells which part a more compact encoding should go after (ScalaTrace's inter-node compression, Ratn et al. §3.2–3.3,
 * leaves the sizes that differ by rank and over time as what is left once the structure is shared).
 *
 * <p>Measured, not estimated: every part of the file's own tree is encoded on its own with the file's codec (JSON or
 * CBOR), and what the containers themselves take (brackets, commas and colons; CBOR's array and map heads) goes to the
 * part that holds them, so the parts add up to the encoded document exactly; a difference from the file's length (a
 * file written with another layout of white space or another integer width) is reported as {@code unaccounted}.
 * Immutable.
 */
public record TraceSizes(Path file, TraceFile.Encoding encoding, long fileBytes, long flatBytes, long eventsRecorded,
                         Map<Part, Long> parts) {
    /** The version of the {@code --json} document ({@link #toJson}). */
    public static final String SCHEMA = "eventspace.trace-sizes/1";
    /** Bytes of a flat record, as the run report counts them (docs/TRACE-FORMAT.md, {@code events_recorded}). */
    public static final long FLAT_RECORD_BYTES = 40;

    /** The parts a trace file is divided into, in the order they are printed. */
    public enum Part {
        /** Loops, events (op, site, reduce, the node objects), groups: what is shared by ranks and iterations. */
        STRUCTURE("structure", "loops, events, groups (op, site, reduce, iterations)"),
        /** Every ranklist: of groups, of (value, ranklist) pairs, of runs, of the timed phase. */
        RANKLISTS("ranklists", "ranklists of groups, parameter pairs, runs and timing rank groups"),
        PEER("peer", "peer parameters (values; their ranklists under ranklists; shared lists by their first use)"),
        COUNT("count", "count parameters, words (values)"),
        ROOT("root", "root parameters (values)"),
        COUNT_RUNS("count_runs", "counts that change over time: words_runs and words_runs_table"),
        TIMING_STATS("timing_stats", "delta-time statistics (n, mean, sd, min, max)"),
        HISTOGRAMS("histograms", "delta-time histograms (hist)"),
        PATH_HISTOGRAMS("path_histograms", "path-sensitive histograms (paths)"),
        SITES("sites", "call-site names"),
        OTHER("other", "header, lost calls, timed phase, the CBOR tag");

        private final String fileName;
        private final String description;

        Part(String fileName, String description) {
            this.fileName = fileName;
            this.description = description;
        }

        public String fileName() {
            return fileName;
        }

        public String description() {
            return description;
        }
    }

    private static final ObjectMapper JSON = Json.mapper();
    /** The file's CBOR codec without its self-described tag: parts are measured untagged, the tag counted once. */
    private static final ObjectMapper CBOR = new ObjectMapper(CBORFactory.builder()
            .streamReadConstraints(BoundedFiles.CONSTRAINTS).build());
    private static final byte[] CBOR_MAGIC = {(byte) 0xd9, (byte) 0xd9, (byte) 0xf7};

    public TraceSizes {
        parts = java.util.Collections.unmodifiableMap(new EnumMap<>(parts));
    }

    /** Bytes of the parts together: the document as its codec encodes it. */
    public long accountedBytes() {
        long n = 0;
        for (long v : parts.values()) {
            n += v;
        }
        return n;
    }

    /** How many times smaller than flat the file is. */
    public double ratio() {
        return fileBytes == 0 ? 0 : (double) flatBytes / fileBytes;
    }

    /**
     * Reads {@code file} once (validated as a trace, so a file that is not one fails as {@code trace show} would) and
     * measures its parts.
     */
    public static TraceSizes of(Path file) throws IOException, TraceFormatException {
        TraceFile.Document document = TraceFile.readDocument(file);
        return of(document.root(), document.encoding(), file, Files.size(file), document.trace().eventsRecorded());
    }

    /** Measures a trace's document as {@link TraceFile#toJson} makes it, as {@code encoding} would write it. */
    public static TraceSizes of(Trace trace, TraceFile.Encoding encoding) {
        JsonNode root = TraceFile.toJson(trace);
        TraceSizes s = of(root, encoding, null, 0, trace.eventsRecorded());
        return new TraceSizes(null, encoding, s.accountedBytes(), s.flatBytes, s.eventsRecorded, s.parts);
    }

    private static TraceSizes of(JsonNode root, TraceFile.Encoding encoding, Path file, long fileBytes, long events) {
        Accounting a = new Accounting(encoding == TraceFile.Encoding.CBOR ? CBOR : JSON);
        a.document(root);
        if (encoding == TraceFile.Encoding.CBOR) {
            a.add(Part.OTHER, CBOR_MAGIC.length);
        }
        return new TraceSizes(file, encoding, fileBytes, events * FLAT_RECORD_BYTES, events, a.parts);
    }

    /** Walks the document, giving every byte of its encoding to one part. */
    private static final class Accounting {
        private final ObjectMapper codec;
        final Map<Part, Long> parts = new EnumMap<>(Part.class);

        Accounting(ObjectMapper codec) {
            this.codec = codec;
            for (Part p : Part.values()) {
                parts.put(p, 0L);
            }
        }

        void add(Part p, long bytes) {
            parts.merge(p, bytes, Long::sum);
        }

        long size(JsonNode n) {
            try {
                return codec.writeValueAsBytes(n).length;
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("a parsed tree did not encode again", e);
            }
        }

        /** Which kind of parameter first names each shared list of {@link ParamsTable}: the part its values go to. */
        private final Map<Integer, Part> sharedKinds = new java.util.HashMap<>();

        /** The top level: header fields and the rest to other, groups and sites to theirs. */
        void document(JsonNode root) {
            JsonNode groups = root.path("groups");
            for (JsonNode g : groups) {
                findSharedKinds(g.path("trace"));
            }
            walk(root, Part.OTHER, Context.TOP);
        }

        private void findSharedKinds(JsonNode nodes) {
            for (JsonNode n : nodes) {
                findSharedKinds(n.path("body"));
                for (String name : new String[] {"peer", "words", "root"}) {
                    if (ParamsTable.isReference(n.path(name))) {
                        sharedKinds.putIfAbsent(n.path(name).get(0).asInt(), fieldPart(Context.NODE, name, Part.OTHER));
                    }
                }
            }
        }

        /** Where in the document a container is, which decides its children's parts. */
        private enum Context {
            TOP, GROUPS, GROUP, NODES, NODE, PARAM, PARAM_PAIR, RUNS, RUNS_PAIR, TIMING, TIMING_GROUPS, TIMING_GROUP, TIMED,
            TIMED_FROM, SHARED, PLAIN
        }

        /**
         * Gives {@code n} to {@code part}, its children to theirs; a container's own bytes (its encoding minus its
         * children's and their keys') to {@code part}.
         */
        void walk(JsonNode n, Part part, Context context) {
            if (!n.isContainerNode()) {
                add(part, size(n));
                return;
            }
            long own = size(n);
            if (n.isObject()) {
                Iterator<Map.Entry<String, JsonNode>> it = n.fields();
                while (it.hasNext()) {
                    Map.Entry<String, JsonNode> f = it.next();
                    Part childPart = fieldPart(context, f.getKey(), part);
                    Context childContext = fieldContext(context, f.getKey(), f.getValue());
                    long key = size(TextNode.valueOf(f.getKey()));
                    add(childPart, key);
                    own -= key;
                    own -= walkSized(f.getValue(), childPart, childContext);
                }
            } else {
                for (int i = 0; i < n.size(); i++) {
                    JsonNode c = n.get(i);
                    Part childPart = part;
                    Context childContext = Context.PLAIN;
                    switch (context) {
                        case GROUPS -> childContext = Context.GROUP;
                        case NODES -> childContext = Context.NODE;
                        case PARAM -> childContext = Context.PARAM_PAIR;
                        case RUNS -> childContext = Context.RUNS_PAIR;
                        case TIMED_FROM -> childContext = Context.TIMED;
                        case TIMING -> {
                            if (n.get(0).isArray()) {
                                // a timing written as its rank groups' arrays
                                childContext = Context.TIMING_GROUP;
                            } else if (i == 7) {
                                // a compact timing: the statistics, then the bins
                                childPart = Part.HISTOGRAMS;
                            }
                        }
                        case TIMING_GROUPS -> childContext = c.isArray() ? Context.TIMING_GROUP : Context.TIMING;
                        case TIMING_GROUP -> {
                            // [ranks, merged_entries, n, mean, sd, min, min_rank, max, max_rank(, bins)]
                            if (i == 0) {
                                childPart = Part.RANKLISTS;
                            } else if (i == 9) {
                                childPart = Part.HISTOGRAMS;
                            }
                        }
                        case SHARED -> {
                            childPart = sharedKinds.getOrDefault(i, Part.PEER);
                            childContext = Context.PARAM;
                        }
                        case PARAM_PAIR, RUNS_PAIR -> {
                            if (i == 1) {
                                childPart = Part.RANKLISTS;
                            }
                        }
                        default -> {
                        }
                    }
                    own -= walkSized(c, childPart, childContext);
                }
            }
            add(part, own);
        }

        private long walkSized(JsonNode n, Part part, Context context) {
            long before = total();
            walk(n, part, context);
            return total() - before;
        }

        private long total() {
            long t = 0;
            for (long v : parts.values()) {
                t += v;
            }
            return t;
        }

        private static Part fieldPart(Context context, String key, Part parent) {
            switch (context) {
                case TOP:
                    return switch (key) {
                        case "groups" -> Part.STRUCTURE;
                        case "sites" -> Part.SITES;
                        case CountRunsTable.FIELD -> Part.COUNT_RUNS;
                        case ParamsTable.FIELD -> Part.PEER;
                        default -> Part.OTHER;
                    };
                case GROUP:
                    return key.equals("ranks") ? Part.RANKLISTS : Part.STRUCTURE;
                case NODE:
                    return switch (key) {
                        case "peer" -> Part.PEER;
                        case "words" -> Part.COUNT;
                        case "root" -> Part.ROOT;
                        case "words_runs" -> Part.COUNT_RUNS;
                        case "compute", "comm" -> Part.TIMING_STATS;
                        default -> Part.STRUCTURE;
                    };
                case TIMING:
                    return switch (key) {
                        case "hist" -> Part.HISTOGRAMS;
                        case "paths" -> Part.PATH_HISTOGRAMS;
                        case "ranks" -> Part.RANKLISTS;
                        default -> Part.TIMING_STATS;
                    };
                case TIMED:
                    return key.equals("ranks") ? Part.RANKLISTS : parent;
                default:
                    return parent;
            }
        }

        private static Context fieldContext(Context context, String key, JsonNode value) {
            switch (context) {
                case TOP:
                    return switch (key) {
                        case "groups" -> Context.GROUPS;
                        case "timed" -> Context.TIMED;
                        case ParamsTable.FIELD -> Context.SHARED;
                        default -> Context.PLAIN;
                    };
                case GROUP:
                    return key.equals("trace") ? Context.NODES : Context.PLAIN;
                case NODE:
                    return switch (key) {
                        case "body" -> Context.NODES;
                        case "peer", "words", "root" -> value.isArray() ? Context.PARAM : Context.PLAIN;
                        case "words_runs" -> Context.RUNS;
                        case "compute", "comm" -> Context.TIMING;
                        default -> Context.PLAIN;
                    };
                case TIMED:
                    return key.equals("from") ? Context.TIMED_FROM : Context.PLAIN;
                case TIMING:
                    return key.equals("by_ranks") ? Context.TIMING_GROUPS : Context.PLAIN;
                default:
                    return Context.PLAIN;
            }
        }
    }

    /** The {@code --json} document, {@value #SCHEMA}. */
    public com.fasterxml.jackson.databind.node.ObjectNode toJson() {
        com.fasterxml.jackson.databind.node.ObjectNode o = JSON.createObjectNode();
        o.put("schema", SCHEMA);
        o.put("file", file == null ? null : file.toString());
        o.put("encoding", encoding.label());
        o.put("file_bytes", fileBytes);
        o.put("events_recorded", eventsRecorded);
        o.put("flat_bytes", flatBytes);
        o.put("ratio", Math.round(ratio() * 10) / 10.0);
        com.fasterxml.jackson.databind.node.ObjectNode p = o.putObject("parts_bytes");
        parts.forEach((part, bytes) -> p.put(part.fileName(), bytes));
        o.put("unaccounted_bytes", fileBytes - accountedBytes());
        return o;
    }

    /** The text table: one line a part, bytes and share of the file. */
    public String toText() {
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "%s (%s): %,d bytes; flat %,d bytes (%,d events × %d B): %.1f× smaller%n",
                file == null ? "trace" : file, encoding.label(), fileBytes, flatBytes, eventsRecorded, FLAT_RECORD_BYTES,
                ratio()));
        for (Part part : Part.values()) {
            long b = parts.get(part);
            s.append(String.format(Locale.ROOT, "  %-16s %,12d B %5.1f %%  %s%n", part.fileName(), b,
                    fileBytes == 0 ? 0.0 : 100.0 * b / fileBytes, part.description()));
        }
        long un = fileBytes - accountedBytes();
        if (un != 0) {
            s.append(String.format(Locale.ROOT, "  %-16s %,12d B          the file's length less the parts encoded again "
                    + "(another white space or integer width)%n", "unaccounted", un));
        }
        return s.toString();
    }
}
