package org.eventspace.fuzz;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.eventspace.base.json.Json;
import org.eventspace.events.TraceBufferLayout;
import org.eventspace.events.dump.TraceDump;
import org.eventspace.events.dump.TraceDumpPrinter;
import org.eventspace.events.dump.WrapperLatencies;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Trace dumps ({@code eventspace trace dump DIR}, docs/RELIABILITY.md): each case copies a valid {@link PlacedDump},
 * applies one to three mutations (a random header or slot byte, a 64-bit extreme written over a header or slot word, a
 * truncated or deleted trace file, a deleted host directory, or an edit of {@code pathmap.json} by
 * {@link JsonMutator}) and reads it with {@link TraceDump#open}, then the latency analysis
 * ({@link WrapperLatencies}, text and JSON) and the tuple printer. Opening may only refuse with an
 * {@link IOException}; a dump it opens must analyse and print without throwing; every message, thrown or listed in
 * {@link TraceDump#errors()}, is at most {@link TraceDump#MAX_MESSAGE_CHARS} characters.
 *
 * <p>Not thread-safe; its cases share one directory under the work directory.
 */
final class TraceDumpFuzzer implements Fuzzer {
    private static final ObjectMapper JSON = Json.mapper();

    private final Path work;
    private final Map<Path, byte[]> original = new LinkedHashMap<>();
    private final List<JsonNode> pathmapTemplate;

    TraceDumpFuzzer(Path work) throws IOException {
        this.work = work;
        Path template = work.resolve("template");
        PlacedDump.write(template);
        try (var walk = Files.walk(template)) {
            for (Path p : walk.filter(Files::isRegularFile).sorted().toList()) {
                original.put(template.relativize(p), Files.readAllBytes(p));
            }
        }
        pathmapTemplate = List.of(JSON.readTree(template.resolve(TraceDump.PATHMAP_FILE).toFile()));
    }

    @Override
    public String format() {
        return "trace-dump";
    }

    @Override
    public void run(FuzzCase c) throws IOException {
        Path dir = work.resolve("case");
        deleteTree(dir);
        for (Map.Entry<Path, byte[]> e : original.entrySet()) {
            Path p = dir.resolve(e.getKey().toString());
            Files.createDirectories(p.getParent());
            Files.write(p, e.getValue());
        }
        int mutations = 1 + c.random().nextInt(3);
        for (int m = 0; m < mutations; m++) {
            mutate(c, dir);
        }
        read(c, dir);
    }

    private static void read(FuzzCase c, Path dir) {
        TraceDump dump;
        try {
            dump = TraceDump.open(dir);
        } catch (IOException e) {
            FuzzCase.checkRefusal(e, TraceDump.MAX_MESSAGE_CHARS);
            c.refused();
            return;
        }
        for (String error : dump.errors()) {
            FuzzCase.checkMessage("TraceDump.errors()", error, TraceDump.MAX_MESSAGE_CHARS);
        }
        WrapperLatencies report = WrapperLatencies.of(dump);
        report.toJson();
        report.printText(new PrintWriter(new StringWriter()));
        TraceDumpPrinter.printText(dump, new PrintWriter(new StringWriter()));
        c.accepted();
    }

    private void mutate(FuzzCase c, Path dir) throws IOException {
        SplittableRandom random = c.random();
        List<Path> traces = new ArrayList<>();
        for (Path p : original.keySet()) {
            Path inCase = dir.resolve(p.toString());
            if (p.toString().endsWith(TraceDump.TRACE_SUFFIX) && Files.exists(inCase)) {
                traces.add(inCase);
            }
        }
        if (traces.isEmpty()) {
            editPathmap(c, dir.resolve(TraceDump.PATHMAP_FILE));
            return;
        }
        Path trace = traces.get(random.nextInt(traces.size()));
        String name = dir.relativize(trace).toString();
        switch (random.nextInt(6)) {
            case 0 -> {
                int offset = random.nextInt(TraceBufferLayout.HEADER_LENGTH);
                c.note(overwrite(trace, offset, random) + " header byte " + offset + " of " + name);
            }
            case 1 -> {
                int length = (int) Files.size(trace);
                if (length <= TraceBufferLayout.HEADER_LENGTH) {
                    c.note("nothing (no slots in " + name + ")");
                    return;
                }
                int offset = TraceBufferLayout.HEADER_LENGTH + random.nextInt(length - TraceBufferLayout.HEADER_LENGTH);
                c.note(overwrite(trace, offset, random) + " slot byte " + offset + " of " + name);
            }
            case 2 -> {
                long to = random.nextLong(Files.size(trace) + 1);
                try (FileChannel ch = FileChannel.open(trace, StandardOpenOption.WRITE)) {
                    ch.truncate(to);
                }
                c.note("truncated " + name + " to " + to + " bytes");
            }
            case 3 -> {
                if (random.nextInt(4) == 0) {
                    deleteTree(trace.getParent());
                    c.note("deleted " + dir.relativize(trace.getParent()));
                } else {
                    Files.deleteIfExists(trace);
                    c.note("deleted " + name);
                }
            }
            default -> editPathmap(c, dir.resolve(TraceDump.PATHMAP_FILE));
        }
    }

    private static String overwrite(Path file, int offset, SplittableRandom random) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        if (offset >= bytes.length) {
            return "nothing (short file) at";
        }
        String what;
        int kind = random.nextInt(3);
        if (kind == 0 && offset + 8 <= bytes.length) {
            long[] extremes = {-1, Long.MAX_VALUE, Long.MIN_VALUE, 0, 1L << 40, random.nextLong()};
            long v = extremes[random.nextInt(extremes.length)];
            for (int i = 0; i < 8; i++) {
                bytes[offset + i] = (byte) (v >>> (8 * i));
            }
            what = "wrote " + v + " at";
        } else if (kind == 1) {
            int bit = random.nextInt(8);
            bytes[offset] ^= (byte) (1 << bit);
            what = "flipped bit " + bit + " of";
        } else {
            int v = random.nextInt(256);
            bytes[offset] = (byte) v;
            what = "wrote " + v + " to";
        }
        Files.write(file, bytes);
        return what;
    }

    private void editPathmap(FuzzCase c, Path file) throws IOException {
        if (!Files.exists(file)) {
            c.note("nothing (no pathmap.json)");
            return;
        }
        String text = Files.readString(file);
        c.note("pathmap.json:");
        // getBytes, not writeString: a lone surrogate an edit inserted becomes '?' instead of an exception.
        Files.write(file, new JsonMutator(c, pathmapTemplate).mutate(text).getBytes(StandardCharsets.UTF_8));
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @Override
    public void close() {
        try {
            deleteTree(work);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
