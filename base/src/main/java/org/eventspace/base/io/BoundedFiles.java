package org.eventspace.base.io;

import java.io.BufferedReader;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.eventspace.base.json.Json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;

/**
 * The one way input files (traces, run reports, traffic matrices, topologies, pathmap files) are read: streamed, with
 * a size limit checked before reading. A regular file's size comes from the file system, so a 3 GiB file is refused
 * in microseconds at any heap; a pipe or device has no size, so its stream counts the bytes and stops at the limit.
 * Reading a whole file into an array first (as {@code Files.readAllBytes} does) took 2.2 GB resident for a 1 GiB
 * trace and ended in an {@code OutOfMemoryError} for 3 GiB; a tree is at least as large as its text, so a file over
 * the limit is refused rather than parsed.
 *
 * <p>The limit: {@value #DEFAULT_MAX_BYTES} bytes (512 MiB, more than any trace or report the tools write: a trace
 * does not grow with iterations, a report holds a few hundred bytes per rank), or the environment variable
 * {@value #MAX_BYTES_ENV} (bytes, or with a suffix {@code k}, {@code m}, {@code g}: {@code 2g}). Stateless;
 * thread-safe.
 */
public final class BoundedFiles {
    /** The default limit on one input file: 512 MiB. */
    public static final long DEFAULT_MAX_BYTES = 512L * 1024 * 1024;
    /** The environment variable that sets another limit. */
    public static final String MAX_BYTES_ENV = "ES_MAX_INPUT_BYTES";

    /**
     * What the JSON and CBOR parsers accept of one token, set here rather than left to Jackson's defaults (which
     * changed between versions): a string of 16 MiB (a site name, an error message; nothing we write comes near),
     * a key of 64 KiB, a number of 256 digits (a long has 19), nesting 1000 deep (a trace's loops nest two levels
     * each, a handful of loops deep).
     */
    public static final StreamReadConstraints CONSTRAINTS = StreamReadConstraints.builder()
            .maxStringLength(16 * 1024 * 1024)
            .maxNameLength(64 * 1024)
            .maxNumberLength(256)
            .maxNestingDepth(1000)
            .build();

    private static final JsonFactory JSON = JsonFactory.builder().streamReadConstraints(CONSTRAINTS).build();

    private BoundedFiles() {
    }

    /**
     * The limit in force: {@value #MAX_BYTES_ENV} if set, else {@link #DEFAULT_MAX_BYTES}.
     *
     * @throws InputLimitException if the variable is set but is not a positive size.
     */
    public static long maxBytes() throws InputLimitException {
        return maxBytes(System.getenv(MAX_BYTES_ENV));
    }

    /** {@link #maxBytes()} of the variable's value {@code setting} (null: not set). */
    static long maxBytes(String setting) throws InputLimitException {
        if (setting == null || setting.isBlank()) {
            return DEFAULT_MAX_BYTES;
        }
        String s = setting.trim().toLowerCase(Locale.ROOT);
        long unit = switch (s.charAt(s.length() - 1)) {
            case 'k' -> 1L << 10;
            case 'm' -> 1L << 20;
            case 'g' -> 1L << 30;
            default -> 1;
        };
        try {
            long n = Long.parseLong(unit == 1 ? s : s.substring(0, s.length() - 1));
            if (n >= 1) {
                return Math.multiplyExact(n, unit);
            }
        } catch (NumberFormatException | ArithmeticException e) {
            // refused below
        }
        throw new InputLimitException(MAX_BYTES_ENV + "=" + setting + ": expected a positive number of bytes, e.g. "
                + "1073741824 or 1g");
    }

    /** {@link #open(Path, long)} with {@link #maxBytes()}. */
    public static InputStream open(Path file) throws IOException {
        return open(file, maxBytes());
    }

    /**
     * A stream of {@code file} that never yields more than {@code limit} bytes: a regular file larger than that is
     * refused before it is opened; any file (a pipe, a device, a file that grows while read) fails as soon as byte
     * {@code limit + 1} is read.
     *
     * @throws InputLimitException naming the file, its size and the limit.
     */
    public static InputStream open(Path file, long limit) throws IOException {
        if (Files.isRegularFile(file)) {
            long size = Files.size(file);
            if (size > limit) {
                throw new InputLimitException(file + ": " + size(size) + " (" + size + " bytes), over the limit of "
                        + size(limit) + " on an input file" + raise());
            }
        }
        return new Counted(Files.newInputStream(file), file, limit);
    }

    /**
     * A JSON parser over {@code in} with {@link #CONSTRAINTS}; read trees or values from it with the shared mapper
     * ({@code Json.mapper().readTree(parser)}).
     */
    public static JsonParser jsonParser(InputStream in) throws IOException {
        return JSON.createParser(in);
    }

    /**
     * The JSON document in {@code file}, bounded; a file with no content is {@link MissingNode}, as Jackson's own
     * {@code readTree} of bytes returns.
     *
     * @throws com.fasterxml.jackson.core.JsonProcessingException if it is not JSON (its location says where).
     */
    public static JsonNode readTree(Path file) throws IOException {
        try (InputStream in = open(file); JsonParser parser = jsonParser(in)) {
            JsonNode root = Json.mapper().readTree(parser);
            return root == null ? MissingNode.getInstance() : root;
        }
    }

    /**
     * The text of {@code file}, bounded; like {@code Files.readString}, bytes that are not UTF-8 are an error
     * ({@link java.nio.charset.CharacterCodingException}), never replaced.
     */
    public static String readString(Path file) throws IOException {
        try (InputStream in = open(file)) {
            return utf8().decode(ByteBuffer.wrap(in.readAllBytes())).toString();
        }
    }

    /** The lines of {@code file}, bounded; like {@code Files.readAllLines}, bytes that are not UTF-8 are an error. */
    public static List<String> readAllLines(Path file) throws IOException {
        List<String> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(open(file), utf8()))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                lines.add(line);
            }
        }
        return lines;
    }

    private static CharsetDecoder utf8() {
        return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
    }

    /** {@code bytes} for people: 512 MiB, 3.0 GiB, 700 B. */
    static String size(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        double v = bytes;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return v == Math.rint(v) ? (long) v + " " + units[u] : String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }

    private static String raise() {
        return " (" + MAX_BYTES_ENV + " raises it)";
    }

    /** Counts what is read and fails past the limit: the bound for pipes and devices, which have no size. */
    private static final class Counted extends FilterInputStream {
        private final Path file;
        private final long limit;
        private long read;

        Counted(InputStream in, Path file, long limit) {
            super(in);
            this.file = file;
            this.limit = limit;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            // one byte past the limit is asked for, so a stream of exactly the limit ends cleanly and one longer fails
            int n = super.read(buffer, offset, (int) Math.min(length, Math.max(1, limit + 1 - read)));
            if (n > 0) {
                count(n);
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = super.skip(Math.min(n, Math.max(0, limit + 1 - read)));
            count(skipped);
            return skipped;
        }

        @Override
        public boolean markSupported() {
            return false;
        }

        private void count(long n) throws InputLimitException {
            read += n;
            if (read > limit) {
                throw new InputLimitException(file + ": more than " + size(limit) + " read, over the limit of "
                        + size(limit) + " on an input file" + raise());
            }
        }
    }
}
