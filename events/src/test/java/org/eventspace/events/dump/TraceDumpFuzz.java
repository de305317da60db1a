package org.eventspace.events.dump;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.eventspace.events.TraceBufferLayout;

/**
 * A seeded fuzzer of the dump readers: each case copies a valid {@link PlacedDump}, applies one to three random
 * mutations (bytes of a trace file's header or slots, a truncated or deleted file, a random edit of
 * pathmap.json: a field replaced by an extreme number, a wrong type, a 10 MB string, or removed) and reads it
 * with {@link TraceDump#open}, the latency analysis and the text printer. A case passes if it ends within
 * {@link #CASE_TIMEOUT_S} seconds, throws nothing but {@link IOException} from {@code open}, and every message
 * it produces is at most {@link TraceDump#MAX_MESSAGE_CHARS} characters. Case i uses seed {@code seed + i}, so a
 * failure is replayed by its case number.
 *
 * <p>Run many cases: {@code java -cp <test classpath> org.eventspace.events.dump.TraceDumpFuzz CASES [SEED]}.
 */
final class TraceDumpFuzz implements AutoCloseable {
    static final long CASE_TIMEOUT_S = 60;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path work;
    private final Map<Path, byte[]> original = new LinkedHashMap<>();
    private final ExecutorService runner = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "trace-dump-fuzz");
        t.setDaemon(true);
        return t;
    });
    /** Cases whose dump opened, and whose pathmap was refused: both kinds must be exercised. */
    long opened;
    long refused;

    TraceDumpFuzz(Path work) throws IOException {
        this.work = work;
        Path template = work.resolve("template");
        new PlacedDump().write(template);
        try (var walk = Files.walk(template)) {
            for (Path p : walk.filter(Files::isRegularFile).sorted().toList()) {
                original.put(template.relativize(p), Files.readAllBytes(p));
            }
        }
    }

    /** Runs cases seed..seed+count-1; returns the first failure's description, or null if all passed. */
    String run(long seed, long count) throws Exception {
        for (long i = 0; i < count; i++) {
            String failure = runCase(seed + i);
            if (failure != null) {
                return "case seed=" + (seed + i) + ": " + failure;
            }
        }
        return null;
    }

    String runCase(long seed) throws Exception {
        Path dir = work.resolve("case");
        if (Files.exists(dir)) {
            TraceDumpCorruptionTest.deleteTree(dir);
        }
        for (Map.Entry<Path, byte[]> e : original.entrySet()) {
            Path p = dir.resolve(e.getKey().toString());
            Files.createDirectories(p.getParent());
            Files.write(p, e.getValue());
        }
        SplittableRandom random = new SplittableRandom(seed);
        List<String> applied = new ArrayList<>();
        int mutations = 1 + random.nextInt(3);
        for (int m = 0; m < mutations; m++) {
            applied.add(mutate(dir, random));
        }
        Future<String> result = runner.submit(() -> read(dir));
        try {
            String failure = result.get(CASE_TIMEOUT_S, TimeUnit.SECONDS);
            return failure == null ? null : failure + " after " + applied;
        } catch (TimeoutException e) {
            result.cancel(true);
            return "did not end within " + CASE_TIMEOUT_S + " s after " + applied;
        }
    }

    private String read(Path dir) {
        TraceDump dump;
        try {
            dump = TraceDump.open(dir);
        } catch (IOException e) {
            refused++;
            return tooLong(e.getMessage());
        } catch (Throwable t) {
            StringWriter s = new StringWriter();
            t.printStackTrace(new PrintWriter(s));
            return "open threw " + s.toString().substring(0, Math.min(2000, s.toString().length()));
        }
        opened++;
        try {
            for (String error : dump.errors()) {
                String bad = tooLong(error);
                if (bad != null) {
                    return bad;
                }
            }
            WrapperLatencies report = WrapperLatencies.of(dump);
            report.toJson();
            report.printText(new PrintWriter(new StringWriter()));
            TraceDumpPrinter.printText(dump, new PrintWriter(new StringWriter()));
            return null;
        } catch (Throwable t) {
            StringWriter s = new StringWriter();
            t.printStackTrace(new PrintWriter(s));
            return "analysis threw " + s.toString().substring(0, Math.min(2000, s.toString().length()));
        }
    }

    private static String tooLong(String message) {
        if (message == null) {
            return "a message is null";
        }
        return message.length() <= TraceDump.MAX_MESSAGE_CHARS ? null
                : "a message has " + message.length() + " chars: " + message.substring(0, 200);
    }

    private String mutate(Path dir, SplittableRandom random) throws IOException {
        List<Path> traces = new ArrayList<>();
        for (Path p : original.keySet()) {
            Path inCase = dir.resolve(p.toString());
            if (p.toString().endsWith(TraceDump.TRACE_SUFFIX) && Files.exists(inCase)) {
                traces.add(inCase);
            }
        }
        if (traces.isEmpty()) {
            return editPathmap(dir.resolve(TraceDump.PATHMAP_FILE), random);
        }
        Path trace = traces.get(random.nextInt(traces.size()));
        switch (random.nextInt(6)) {
            case 0: { // header bytes
                int offset = random.nextInt(TraceBufferLayout.HEADER_LENGTH);
                return overwrite(trace, offset, random) + " header byte " + offset + " of " + trace.getFileName();
            }
            case 1: { // slot bytes
                int length = (int) Files.size(trace);
                if (length <= TraceBufferLayout.HEADER_LENGTH) {
                    return "nothing (no slots)";
                }
                int offset = TraceBufferLayout.HEADER_LENGTH + random.nextInt(length - TraceBufferLayout.HEADER_LENGTH);
                return overwrite(trace, offset, random) + " slot byte " + offset + " of " + trace.getFileName();
            }
            case 2: { // truncate
                long size = Files.size(trace);
                long to = random.nextLong(size + 1);
                try (FileChannel ch = FileChannel.open(trace, StandardOpenOption.WRITE)) {
                    ch.truncate(to);
                }
                return "truncated " + trace.getFileName() + " to " + to;
            }
            case 3:
                if (random.nextInt(4) == 0) {
                    Path host = trace.getParent();
                    if (Files.exists(host)) {
                        TraceDumpCorruptionTest.deleteTree(host);
                    }
                    return "deleted " + host.getFileName();
                }
                Files.deleteIfExists(trace);
                return "deleted " + trace.getFileName();
            default:
                return editPathmap(dir.resolve(TraceDump.PATHMAP_FILE), random);
        }
    }

    private static String overwrite(Path file, int offset, SplittableRandom random) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        if (offset >= bytes.length) {
            return "nothing (short file)";
        }
        int kind = random.nextInt(3);
        if (kind == 0 && offset + 8 <= bytes.length) {
            long[] extremes = {-1, Long.MAX_VALUE, Long.MIN_VALUE, 0, 1L << 40, random.nextLong()};
            long v = extremes[random.nextInt(extremes.length)];
            for (int i = 0; i < 8; i++) {
                bytes[offset + i] = (byte) (v >>> (8 * i));
            }
        } else if (kind == 1) {
            bytes[offset] ^= (byte) (1 << random.nextInt(8));
        } else {
            bytes[offset] = (byte) random.nextInt(256);
        }
        Files.write(file, bytes);
        return "overwrote";
    }

    private static String editPathmap(Path file, SplittableRandom random) throws IOException {
        if (!Files.exists(file)) {
            return "nothing (no pathmap.json)";
        }
        String text = Files.readString(file);
        if (random.nextInt(10) == 0) {
            int cut = random.nextInt(text.length() + 1);
            Files.writeString(file, text.substring(0, cut));
            return "cut pathmap.json at " + cut;
        }
        JsonNode root;
        try {
            root = JSON.readTree(text);
        } catch (IOException e) {
            return "nothing (pathmap.json already invalid)";
        }
        List<JsonNode> containers = new ArrayList<>();
        collect(root, containers);
        if (containers.isEmpty()) {
            return "nothing (no container)";
        }
        JsonNode target = containers.get(random.nextInt(containers.size()));
        String what;
        if (target instanceof ObjectNode o) {
            List<String> fields = new ArrayList<>();
            for (Iterator<String> it = o.fieldNames(); it.hasNext(); ) {
                fields.add(it.next());
            }
            String field = fields.isEmpty() ? "extra" : fields.get(random.nextInt(fields.size()));
            if (random.nextInt(5) == 0) {
                o.remove(field);
                what = "removed " + field;
            } else {
                o.set(field, randomValue(random));
                what = "replaced " + field;
            }
        } else {
            ArrayNode a = (ArrayNode) target;
            if (a.isEmpty() || random.nextInt(3) == 0) {
                a.add(randomValue(random));
                what = "appended to an array";
            } else {
                int i = random.nextInt(a.size());
                a.set(i, randomValue(random));
                what = "replaced array element " + i;
            }
        }
        Files.writeString(file, JSON.writeValueAsString(root));
        return what + " in pathmap.json";
    }

    private static void collect(JsonNode node, List<JsonNode> into) {
        if (node.isContainerNode()) {
            into.add(node);
            for (JsonNode child : node) {
                collect(child, into);
            }
        }
    }

    private static JsonNode randomValue(SplittableRandom random) {
        var f = JSON.getNodeFactory();
        switch (random.nextInt(12)) {
            case 0: return f.numberNode(-1);
            case 1: return f.numberNode(Integer.MAX_VALUE);
            case 2: return f.numberNode(Integer.MIN_VALUE);
            case 3: return f.numberNode(Long.MAX_VALUE);
            case 4: return f.numberNode(random.nextInt(40) - 5);
            case 5: return f.numberNode(1.5);
            case 6: return f.textNode(random.nextInt(50) == 0 ? "y".repeat(10 << 20) : "s" + random.nextInt(100));
            case 7: return f.nullNode();
            case 8: return f.arrayNode().add(1);
            case 9: return f.objectNode().put("a", 1);
            case 10: return f.booleanNode(true);
            default: return f.numberNode(99999);
        }
    }

    @Override
    public void close() {
        runner.shutdownNow();
    }

    /** {@code TraceDumpFuzz CASES [SEED]}: prints the cases run, their time, and the first failure if any. */
    public static void main(String[] args) throws Exception {
        long cases = args.length > 0 ? Long.parseLong(args[0]) : 100_000;
        long seed = args.length > 1 ? Long.parseLong(args[1]) : 1;
        Path work = Files.createTempDirectory("trace-dump-fuzz");
        try (TraceDumpFuzz fuzz = new TraceDumpFuzz(work)) {
            long start = System.nanoTime();
            String failure = fuzz.run(seed, cases);
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("%d cases from seed %d in %.1f s (%d opened, %d refused)%n", cases, seed, seconds,
                    fuzz.opened, fuzz.refused);
            if (failure != null) {
                System.out.println("FAILED " + failure);
                System.exit(1);
            }
        } finally {
            TraceDumpCorruptionTest.deleteTree(work);
        }
    }
}
