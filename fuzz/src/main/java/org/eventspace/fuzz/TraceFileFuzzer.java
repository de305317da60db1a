package org.eventspace.fuzz;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import org.eventspace.base.json.Json;
import org.eventspace.trace.Trace;
import org.eventspace.trace.TraceFile;
import org.eventspace.trace.TraceFormatException;
import org.eventspace.trace.TracePrinter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.cbor.CBORFactory;
import com.fasterxml.jackson.dataformat.cbor.CBORGenerator;

/**
 * ScalaTrace-style trace files ({@code eventspace.trace/1} and {@code /2}, docs/TRACE-FORMAT.md), in both encodings:
 * each case takes one of the traces {@link RecordedRuns} recorded in this JVM (gsum with histograms, SOR with
 * path-sensitive histograms, a halo exchange whose sizes change, packed into {@code words_runs_table} and
 * {@code params_table}; each as JSON and as CBOR) and damages it. A JSON file gets {@link JsonMutator}'s edits (a
 * quarter of the cases: plausible values only, which often stay valid); a CBOR file gets the same edits of its tree,
 * encoded again, or (half its cases) edits of its bytes: bits flipped, bytes overwritten, the file cut short, a head
 * announcing a string, array or map of up to 2^63 - 1 items, nesting 10 000 deep, random bytes, the magic damaged.
 * Then {@link TraceFile#read}; a trace it reads is printed ({@link TracePrinter}, what {@code trace show} does) and
 * turned back into its document.
 *
 * <p>Passes if reading refuses only with a {@link TraceFormatException} whose message starts with the file's name, has at
 * most {@link FuzzCase#MAX_MESSAGE_CHARS} characters and wraps no programming error, and a trace it reads prints and
 * writes without throwing. Not thread-safe; a folder per case.
 */
final class TraceFileFuzzer implements Fuzzer {
    private static final ObjectMapper JSON = Json.mapper();
    private static final ObjectMapper CBOR = new ObjectMapper(CBORFactory.builder()
            .enable(CBORGenerator.Feature.WRITE_TYPE_HEADER).build());
    /** CBOR heads that announce more than any file holds: byte and text strings, arrays and maps of 2^31..2^63 - 1. */
    private static final long[] HUGE_LENGTHS = {Integer.MAX_VALUE, 1L << 32, Long.MAX_VALUE, -1L};

    private final Path work;
    private final List<RecordedRuns.TraceBytes> templates;
    private final List<JsonNode> trees = new ArrayList<>();

    TraceFileFuzzer(Path work) throws IOException {
        this.work = work;
        this.templates = RecordedRuns.get().traces();
        for (RecordedRuns.TraceBytes t : templates) {
            trees.add(cbor(t.bytes()) ? CBOR.readTree(t.bytes()) : JSON.readTree(t.bytes()));
        }
    }

    @Override
    public String format() {
        return "trace-file";
    }

    @Override
    public void run(FuzzCase c) throws IOException {
        SplittableRandom random = c.random();
        int t = random.nextInt(templates.size());
        RecordedRuns.TraceBytes template = templates.get(t);
        c.note("template " + template.name());
        byte[] bytes;
        if (!cbor(template.bytes())) {
            bytes = mutateJson(c, new String(template.bytes(), StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8);
        } else if (random.nextBoolean()) {
            bytes = mutateTree(c, trees.get(t));
        } else {
            bytes = mutateBytes(c, template.bytes());
        }
        Path dir = Files.createDirectories(work.resolve("trace-" + Long.toHexString(c.seed())));
        Path file = dir.resolve(template.name());
        try {
            Files.write(file, bytes);
            c.input(template.name(), bytes);
            read(c, file);
        } finally {
            Files.deleteIfExists(file);
            Files.deleteIfExists(dir);
        }
    }

    private String mutateJson(FuzzCase c, String text) {
        JsonMutator m = new JsonMutator(c, trees);
        return c.random().nextInt(4) == 0 ? m.mutatePlausibly(text) : m.mutate(text);
    }

    /** The tree's JSON edited as a JSON file's would be, encoded as CBOR again if it still parses. */
    private byte[] mutateTree(FuzzCase c, JsonNode tree) throws IOException {
        String text = mutateJson(c, JSON.writeValueAsString(tree));
        try {
            return CBOR.writeValueAsBytes(JSON.readTree(text));
        } catch (IOException | RuntimeException e) {
            // Not JSON any more, or a string CBOR cannot hold (a lone surrogate an edit inserted).
            c.note("(no longer JSON or CBOR: written as text after the CBOR magic)");
            byte[] body = text.getBytes(StandardCharsets.UTF_8);
            byte[] out = new byte[3 + body.length];
            out[0] = (byte) 0xd9;
            out[1] = (byte) 0xd9;
            out[2] = (byte) 0xf7;
            System.arraycopy(body, 0, out, 3, body.length);
            return out;
        }
    }

    private static byte[] mutateBytes(FuzzCase c, byte[] template) {
        SplittableRandom random = c.random();
        byte[] b = template.clone();
        int edits = 1 + random.nextInt(3);
        for (int e = 0; e < edits; e++) {
            int at = b.length == 0 ? 0 : random.nextInt(b.length);
            switch (random.nextInt(8)) {
                case 0 -> {
                    if (b.length > 0) {
                        int bit = random.nextInt(8);
                        b[at] ^= (byte) (1 << bit);
                        c.note("CBOR: flipped bit " + bit + " of byte " + at);
                    }
                }
                case 1 -> {
                    if (b.length > 0) {
                        int v = random.nextInt(256);
                        b[at] = (byte) v;
                        c.note("CBOR: byte " + at + " = " + v);
                    }
                }
                case 2 -> {
                    b = Arrays.copyOf(b, at);
                    c.note("CBOR: cut to " + at + " bytes");
                }
                case 3 -> {
                    // Major types 2 (bytes), 3 (text), 4 (array), 5 (map) with an 8-byte length.
                    int major = 2 + random.nextInt(4);
                    long length = HUGE_LENGTHS[random.nextInt(HUGE_LENGTHS.length)];
                    byte[] head = new byte[9];
                    head[0] = (byte) (major << 5 | 27);
                    for (int i = 0; i < 8; i++) {
                        head[1 + i] = (byte) (length >>> (8 * (7 - i)));
                    }
                    b = insert(b, at, head);
                    c.note("CBOR: at byte " + at + " a head of major type " + major + " announcing " + Long.toUnsignedString(length));
                }
                case 4 -> {
                    int depth = new int[] {10, 1000, 10_000}[random.nextInt(3)];
                    byte[] deep = new byte[depth];
                    Arrays.fill(deep, (byte) (random.nextBoolean() ? 0x81 : 0x9f));
                    b = insert(b, at, deep);
                    c.note("CBOR: at byte " + at + " " + depth + " nested arrays");
                }
                case 5 -> {
                    byte[] junk = new byte[1 + random.nextInt(64)];
                    random.nextBytes(junk);
                    b = insert(b, at, junk);
                    c.note("CBOR: " + junk.length + " random bytes inserted at byte " + at);
                }
                case 6 -> {
                    if (b.length >= 3) {
                        int i = random.nextInt(3);
                        b[i] = (byte) random.nextInt(256);
                        c.note("CBOR: magic byte " + i + " = " + (b[i] & 0xff));
                    }
                }
                default -> {
                    int from = b.length == 0 ? 0 : random.nextInt(b.length);
                    int to = Math.min(b.length, from + 1 + random.nextInt(32));
                    byte[] cut = new byte[b.length - (to - from)];
                    System.arraycopy(b, 0, cut, 0, from);
                    System.arraycopy(b, to, cut, from, b.length - to);
                    b = cut;
                    c.note("CBOR: bytes " + from + ".." + to + " deleted");
                }
            }
        }
        return b;
    }

    private static byte[] insert(byte[] b, int at, byte[] what) {
        byte[] out = new byte[b.length + what.length];
        System.arraycopy(b, 0, out, 0, at);
        System.arraycopy(what, 0, out, at, what.length);
        System.arraycopy(b, at, out, at + what.length, b.length - at);
        return out;
    }

    private static void read(FuzzCase c, Path file) throws IOException {
        Trace trace;
        try {
            trace = TraceFile.read(file);
        } catch (TraceFormatException e) {
            FuzzCase.checkRefusal(e, FuzzCase.MAX_MESSAGE_CHARS);
            FuzzCase.check(e.getMessage().startsWith(file.toString()), "TraceFormatException does not start with the "
                    + "file's name: " + FuzzCase.cut(e.getMessage(), 200));
            c.refused();
            return;
        }
        StringWriter printed = new StringWriter();
        TracePrinter.print(trace, new PrintWriter(printed), true);
        TraceFile.toJson(trace);
        c.accepted();
    }

    private static boolean cbor(byte[] bytes) {
        return bytes.length >= 3 && (bytes[0] & 0xff) == 0xd9 && (bytes[1] & 0xff) == 0xd9 && (bytes[2] & 0xff) == 0xf7;
    }
}
