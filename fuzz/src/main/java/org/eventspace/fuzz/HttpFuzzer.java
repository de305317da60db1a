package org.eventspace.fuzz;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.eventspace.base.json.Json;
import org.eventspace.ui.DashboardServer;
import org.eventspace.ui.RunFileSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The dashboard's HTTP API (docs/API.md) over raw sockets: one live {@link DashboardServer} in this JVM, serving the
 * dashboard of a run report {@link RecordedRuns} made, for all cases. Each case writes one request built from a valid one
 * (a GET of the page, an asset, an API path with its query, {@code /metrics} or the event stream, with the headers a
 * browser sends) with one to three edits: the method (other verbs, lower case, empty, 10 000 characters, a NUL), the path
 * (dot segments, bad or overlong percent-encodings, raw UTF-8 and control bytes, 100 000 characters, the absolute form,
 * none), the query (numbers out of range or not numbers, empty and repeated keys, unknown keys, bad encodings, a 100 000
 * character value), the version (HTTP/2.0, 0.9, 9.9, none, junk), headers added (Host missing, doubled or foreign, a
 * negative, huge or unmet Content-Length, chunked bodies that are not, Expect, Upgrade, Range, 200 headers, a header
 * without a colon, folded, with a NUL or Latin-1 bytes, a value of up to 1 MB) or removed, a body; and in a quarter of
 * the cases edits of its bytes (a bit flipped, cut short, bare LF line ends, random bytes, the request sent twice,
 * junk after it). The client then half-closes its side, or (a complete request without a body, one case in eight)
 * keeps it open as a browser would.
 *
 * <p>Passes if: the server answers with a complete HTTP/1.x response (status line, headers, the body its
 * Content-Length or chunks announce, or up to the close) within {@value #ANSWER_MILLIS} ms, or closes a request that
 * was cut short without answering; the status is not 5xx (but for 505, HTTP's answer to a version it does not speak,
 * when the case damaged the version or the request's bytes); no body holds a stack trace; an API error's message has at
 * most {@link FuzzCase#MAX_MESSAGE_CHARS} characters; and then a normal request ({@code GET /api/v1/health}) on a new
 * connection is answered 200 with the health document. After the batch, the JVM's threads have not grown by more than
 * {@value #THREADS_ALLOWED}. Not thread-safe; owns its server until closed.
 */
final class HttpFuzzer implements Fuzzer {
    /** How long the server may take to answer or close, counted from the client's last byte, on a loaded machine. */
    static final long ANSWER_MILLIS = 10_000;
    /** The most bytes of a response read: more than the largest answer (a frame of this run, the page's script). */
    static final int MAX_RESPONSE_BYTES = 16 << 20;
    /** Threads the JVM may have beyond those at the start, after the batch: pooled server threads idling out. */
    static final int THREADS_ALLOWED = 32;
    /** A line of a Java stack trace, or its cause: what must never reach a client. */
    private static final Pattern STACK_TRACE = Pattern.compile(
            "(?m)(^\\s*at [\\w$.]+\\([\\w$.]*(\\.java:\\d+)?\\))|(^Caused by: )|(\\.java:\\d+\\))");
    private static final ObjectMapper JSON = Json.mapper();

    private static final String[] TARGETS = {"/", "/assets/index.html", "/assets/dashboard.js", "/assets/dashboard.css",
        "/api/v1/health", "/api/v1/run", "/api/v1/frame", "/api/v1/tree", "/api/v1/tree?tree=0", "/api/v1/tree?tree=1",
        "/api/v1/loadbalance", "/api/v1/stats", "/api/v1/histograms", "/api/v1/histograms?last=3",
        "/api/v1/timemap?tree=0", "/api/v1/cost", "/api/v1/traffic", "/metrics", "/api/v1/events"};
    private static final String[] METHODS = {"POST", "PUT", "DELETE", "HEAD", "OPTIONS", "TRACE", "CONNECT", "PATCH",
        "PRI", "get", "Get", "", "G ET", "XYZZY", "GET\u0000", "\u00c4\u00d6", "M".repeat(10_000)};
    private static final String[] PATH_JUNK = {"..", "%2e%2e/%2e%2e/etc/passwd", "../../../../etc/passwd", "%00", "%zz",
        "%", "%C0%AE", "%FF%FE", "%u0041", "//", "/./", "\u00e9t\u00e9", "\u0001", "*", "~", ";jsessionid=1", "a b",
        "%20", "index.html%00.js", "%2fapi%2fv1", "\\..\\", "{name}", "\u202e"};
    private static final String[] QUERY_JUNK = {"tree=-1", "tree=99999999999", "tree=abc", "tree=", "tree", "=", "&&&",
        "tree=0&tree=1", "last=0", "last=-5", "last=2147483648", "last=1e3", "gred=%ff", "gred=%", "gred=", "event=",
        "event=%00", "unknown=1", "tree=0%00", "tree=%2B0", "tree=%20%200", "tree=0x1", "tree=\u0661", "a=b=c", "?",
        "%3D=%3D", "tree[]=1"};
    private static final String[] VERSIONS = {"HTTP/1.0", "HTTP/2.0", "HTTP/0.9", "HTTP/9.9", "HTTP/1.1x", "http/1.1",
        "", "HTTP/", "HTTP/1.1 extra", "HTTP/1.10", "HTTP/1", "HTTP/-1.1", "HTTP/1.1\u0000"};
    private static final String[] HEADERS = {"Host: ", "Host: evil.example", "Host: 127.0.0.1:1", "Host: [::1",
        "Host: a b", "Content-Length: -1", "Content-Length: 99999999999999999999", "Content-Length: 10",
        "Content-Length: 0", "Content-Length: 1, 2", "Content-Length: x", "Transfer-Encoding: chunked",
        "Transfer-Encoding: gzip, chunked", "Transfer-Encoding: identity", "Transfer-Encoding: x",
        "Expect: 100-continue", "Expect: 999-x", "Accept: text/event-stream", "Accept: application/json",
        "Accept: application/openmetrics-text; version=1.0.0", "Accept: text/plain; version=0.0.4", "Accept: ;;;",
        "Accept: text/event-stream;q=-1", "Range: bytes=0-10", "Range: bytes=99999999999-", "Range: x",
        "If-None-Match: *", "If-Modified-Since: yesterday", "Connection: keep-alive", "Connection: close",
        "Connection: Upgrade\r\nUpgrade: websocket", "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA",
        "Origin: http://evil.example", "Authorization: Bearer x", "Authorization: Basic !!!", "Accept-Encoding: gzip, br",
        "Accept-Encoding: x;q=2", "Accept-Charset: utf-32", "Accept-Language: ;", "NoColonHeader", ": no name",
        " folded continuation", "X-Nul: a\u0000b", "X-Latin: \u00ff\u00fe", "X-Empty:", "Cookie: a=b; ; c",
        "X-Forwarded-For: 1.2.3.4", "Content-Type: application/json; charset=x"};

    private final DashboardServer server;
    private final int baselineThreads;

    HttpFuzzer() throws IOException {
        JsonNode report = JSON.readTree(RecordedRuns.get().reports().get(0));
        server = DashboardServer.start(new RunFileSource("fuzz-run.json", report), DashboardServer.LOOPBACK, 0);
        baselineThreads = ManagementFactory.getThreadMXBean().getThreadCount();
    }

    @Override
    public String format() {
        return "http";
    }

    @Override
    public Duration caseTimeout() {
        return Duration.ofSeconds(45);
    }

    /** A request as a model: edited field by field before it becomes bytes. */
    private static final class Request {
        String method = "GET";
        String target;
        String version = "HTTP/1.1";
        final List<String> headers = new ArrayList<>();
        byte[] body = new byte[0];
        /** Whether the request is whole and awaits no body: a client may then keep its side open for the answer. */
        boolean whole = true;
        /** Whether its HTTP version (or any byte of it) was damaged: 505 is then the answer HTTP prescribes. */
        boolean versionDamaged;

        byte[] bytes() {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            String head = method + " " + target + (version.isEmpty() ? "" : " " + version) + "\r\n"
                    + String.join("", headers.stream().map(h -> h + "\r\n").toList()) + "\r\n";
            out.writeBytes(head.getBytes(StandardCharsets.UTF_8));
            out.writeBytes(body);
            return out.toByteArray();
        }
    }

    @Override
    public void run(FuzzCase c) throws Exception {
        SplittableRandom random = c.random();
        Request r = new Request();
        r.target = TARGETS[random.nextInt(TARGETS.length)];
        r.headers.add("Host: 127.0.0.1:" + server.port());
        r.headers.add("User-Agent: eventspace-fuzz");
        r.headers.add(r.target.equals("/api/v1/events") && random.nextBoolean() ? "Accept: text/event-stream" : "Accept: */*");
        if (random.nextBoolean()) {
            r.headers.add("Connection: close");
        }
        c.note(r.method + " " + r.target);
        int edits = 1 + random.nextInt(3);
        for (int e = 0; e < edits; e++) {
            edit(c, r);
        }
        byte[] bytes = r.bytes();
        boolean cut = false;
        if (random.nextInt(4) == 0) {
            int length = bytes.length;
            bytes = mutateBytes(c, bytes);
            cut = bytes.length < length || !endsWithBlankLine(bytes);
            r.whole = false;
            r.versionDamaged = true;
        }
        c.input("request.http", bytes);
        boolean keepOpen = r.whole && r.body.length == 0 && random.nextInt(8) == 0;
        if (keepOpen) {
            c.note("socket kept open");
        }
        boolean head = startsWith(bytes, "HEAD ");
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(DashboardServer.LOOPBACK, server.port()), (int) ANSWER_MILLIS);
            socket.setTcpNoDelay(true);
            boolean sent = true;
            try {
                OutputStream out = socket.getOutputStream();
                out.write(bytes);
                out.flush();
                if (!keepOpen) {
                    socket.shutdownOutput();
                }
            } catch (SocketException e) {
                // The server may refuse and close while a large request is still being written; its answer is read below.
                sent = false;
                c.note("the server closed while the request was written (" + e.getMessage() + ")");
            }
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ANSWER_MILLIS);
            Response response = Response.read(socket, deadline, head);
            if (response == null) {
                FuzzCase.check(cut || !sent || bytes.length == 0, "the server closed the connection without an answer to "
                        + "a request that was not cut short");
                c.refused();
            } else {
                check(c, response, r.versionDamaged, head);
            }
        }
        checkAlive();
    }

    private void edit(FuzzCase c, Request r) {
        SplittableRandom random = c.random();
        switch (random.nextInt(9)) {
            case 0 -> {
                r.method = METHODS[random.nextInt(METHODS.length)];
                c.note("method " + FuzzCase.cut(r.method, 20));
            }
            case 1 -> {
                String junk = random.nextInt(6) == 0 ? "a".repeat(new int[] {2_000, 5_000, 10_000, 100_000}[random.nextInt(4)])
                        : PATH_JUNK[random.nextInt(PATH_JUNK.length)];
                int q = r.target.indexOf('?');
                String path = q < 0 ? r.target : r.target.substring(0, q);
                String query = q < 0 ? "" : r.target.substring(q);
                path = switch (random.nextInt(4)) {
                    case 0 -> path + "/" + junk;
                    case 1 -> "/api/v1/" + junk;
                    case 2 -> junk + path;
                    default -> path.toUpperCase(Locale.ROOT);
                };
                r.target = path + query;
                c.note("path " + FuzzCase.cut(path, 60));
            }
            case 2 -> {
                String junk = random.nextInt(20) == 0 ? (random.nextBoolean() ? "tree=" : "x=") + "y".repeat(random.nextBoolean() ? 2_000 : 100_000)
                        : QUERY_JUNK[random.nextInt(QUERY_JUNK.length)];
                r.target = r.target + (r.target.contains("?") ? "&" : "?") + junk;
                c.note("query " + FuzzCase.cut(junk, 60));
            }
            case 3 -> {
                r.version = VERSIONS[random.nextInt(VERSIONS.length)];
                r.versionDamaged = true;
                c.note("version '" + r.version + "'");
            }
            case 4, 5 -> {
                String h = HEADERS[random.nextInt(HEADERS.length)];
                if (h.startsWith("Content-Length") || h.startsWith("Transfer-Encoding") || h.startsWith("Expect")
                        || h.startsWith(" ") || h.startsWith("Connection: Upgrade") || h.startsWith("Upgrade")) {
                    r.whole = false;
                }
                r.headers.add(random.nextInt(r.headers.size() + 1), h);
                c.note("header " + h.replace("\r\n", " / "));
            }
            case 6 -> {
                if (random.nextBoolean()) {
                    int i = random.nextInt(r.headers.size());
                    c.note("header removed: " + FuzzCase.cut(r.headers.get(i), 40));
                    r.headers.remove(i);
                } else {
                    int n = new int[] {50, 200, 2000}[random.nextInt(3)];
                    for (int i = 0; i < n; i++) {
                        r.headers.add("X-Fuzz-" + i + ": " + i);
                    }
                    c.note(n + " headers added");
                }
            }
            case 7 -> {
                int length = new int[] {1000, 10_000, 100_000, 1 << 20}[random.nextInt(4)];
                String name = random.nextBoolean() ? "X-Huge" : random.nextBoolean() ? "Host" : "Cookie";
                r.headers.add(name + ": " + "v".repeat(length));
                c.note("header " + name + " of " + length + " characters");
            }
            default -> {
                int length = new int[] {0, 10, 100_000}[random.nextInt(3)];
                r.body = new byte[length];
                random.nextBytes(r.body);
                String declared = switch (random.nextInt(3)) {
                    case 0 -> Integer.toString(length);
                    case 1 -> Integer.toString(length / 2);
                    default -> null;
                };
                if (declared != null) {
                    r.headers.add("Content-Length: " + declared);
                }
                r.whole = false;
                c.note("a body of " + length + " bytes" + (declared == null ? ", no Content-Length"
                        : ", Content-Length: " + declared));
            }
        }
    }

    private static byte[] mutateBytes(FuzzCase c, byte[] b) {
        SplittableRandom random = c.random();
        switch (random.nextInt(6)) {
            case 0 -> {
                int at = random.nextInt(b.length);
                int bit = random.nextInt(8);
                b[at] ^= (byte) (1 << bit);
                c.note("bytes: flipped bit " + bit + " of byte " + at);
                return b;
            }
            case 1 -> {
                int to = random.nextInt(b.length);
                c.note("bytes: cut to " + to);
                return java.util.Arrays.copyOf(b, to);
            }
            case 2 -> {
                c.note("bytes: bare LF line ends");
                return new String(b, StandardCharsets.ISO_8859_1).replace("\r\n", "\n").getBytes(StandardCharsets.ISO_8859_1);
            }
            case 3 -> {
                byte[] junk = new byte[1 + random.nextInt(32)];
                random.nextBytes(junk);
                int at = random.nextInt(b.length + 1);
                byte[] out = new byte[b.length + junk.length];
                System.arraycopy(b, 0, out, 0, at);
                System.arraycopy(junk, 0, out, at, junk.length);
                System.arraycopy(b, at, out, at + junk.length, b.length - at);
                c.note("bytes: " + junk.length + " random bytes at " + at);
                return out;
            }
            case 4 -> {
                byte[] out = new byte[2 * b.length];
                System.arraycopy(b, 0, out, 0, b.length);
                System.arraycopy(b, 0, out, b.length, b.length);
                c.note("bytes: the request twice");
                return out;
            }
            default -> {
                byte[] junk = new byte[1 + random.nextInt(256)];
                random.nextBytes(junk);
                byte[] out = new byte[b.length + junk.length];
                System.arraycopy(b, 0, out, 0, b.length);
                System.arraycopy(junk, 0, out, b.length, junk.length);
                c.note("bytes: " + junk.length + " random bytes after the request");
                return out;
            }
        }
    }

    private static void check(FuzzCase c, Response response, boolean versionDamaged, boolean head) {
        // 505 is HTTP's answer to a version the server does not speak (RFC 9110 §15.6.6), Jetty's before the API sees it.
        FuzzCase.check(response.status < 500 || response.status == 505 && versionDamaged, "answered "
                + response.statusLine + ": " + FuzzCase.cut(response.text(), 300));
        String body = response.text();
        FuzzCase.check(!STACK_TRACE.matcher(body).find(), "the answer's body holds a stack trace: " + FuzzCase.cut(body, 500));
        if (response.status >= 400 && !head && response.contentType().startsWith("application/json")) {
            JsonNode error;
            try {
                error = JSON.readTree(response.body);
            } catch (IOException e) {
                throw new FuzzCase.CheckFailed(response.statusLine + " with a JSON type but no JSON body: "
                        + FuzzCase.cut(body, 200));
            }
            FuzzCase.checkMessage("the API error's message", error.path("message").asText(null), FuzzCase.MAX_MESSAGE_CHARS);
        }
        if (response.status >= 400) {
            c.refused();
        } else {
            c.accepted();
        }
    }

    /** A normal request on a new connection is answered. */
    private void checkAlive() throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(DashboardServer.LOOPBACK, server.port()), (int) ANSWER_MILLIS);
            socket.getOutputStream().write(("GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1:" + server.port()
                    + "\r\nAccept: application/json\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            Response r = Response.read(socket, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ANSWER_MILLIS), false);
            FuzzCase.check(r != null, "after the case, the server closed a normal request's connection without an answer");
            FuzzCase.check(r.status == 200 && JSON.readTree(r.body).has("status"), "after the case, a normal request was "
                    + "answered " + r.statusLine + ": " + FuzzCase.cut(r.text(), 200));
        }
    }

    @Override
    public void afterBatch() throws Exception {
        checkAlive();
        int threads = ManagementFactory.getThreadMXBean().getThreadCount();
        FuzzCase.check(threads <= baselineThreads + THREADS_ALLOWED, "the JVM's threads grew from " + baselineThreads
                + " to " + threads);
    }

    @Override
    public void close() {
        server.close();
    }

    private static boolean startsWith(byte[] b, String prefix) {
        byte[] p = prefix.getBytes(StandardCharsets.US_ASCII);
        return b.length >= p.length && java.util.Arrays.equals(b, 0, p.length, p, 0, p.length);
    }

    private static boolean endsWithBlankLine(byte[] b) {
        String s = new String(b, StandardCharsets.ISO_8859_1);
        return s.endsWith("\r\n\r\n") || s.endsWith("\n\n");
    }

    /** One HTTP/1.x response as read off a socket, within a deadline. */
    private record Response(String statusLine, int status, Map<String, String> headers, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        String contentType() {
            return headers.getOrDefault("content-type", "");
        }

        /**
         * Reads a response: null if the connection ends before its first byte; fails the case if the response is
         * malformed, incomplete or late. Skips interim (1xx) responses. An event stream is read to its first event.
         */
        static Response read(Socket socket, long deadline, boolean head) throws IOException {
            Bytes in = new Bytes(socket, deadline);
            while (true) {
                String statusLine = in.line(true);
                if (statusLine == null) {
                    return null;
                }
                FuzzCase.check(statusLine.matches("HTTP/1\\.[01] \\d{3}( .*)?"), "not an HTTP/1.x status line: '"
                        + FuzzCase.cut(statusLine, 120) + "'");
                int status = Integer.parseInt(statusLine.substring(9, 12));
                Map<String, String> headers = new LinkedHashMap<>();
                int headerBytes = 0;
                for (String line = in.line(false); !line.isEmpty(); line = in.line(false)) {
                    headerBytes += line.length();
                    FuzzCase.check(headerBytes < 65_536, "the answer's headers exceed 64 KiB");
                    int colon = line.indexOf(':');
                    FuzzCase.check(colon > 0, "a header line without a name: '" + FuzzCase.cut(line, 120) + "'");
                    headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
                }
                if (status >= 100 && status < 200) {
                    continue;
                }
                byte[] body;
                if (headers.getOrDefault("content-type", "").startsWith("text/event-stream")) {
                    body = in.untilBlankLine();
                } else if (head || status == 204 || status == 304) {
                    body = new byte[0];
                } else if (headers.getOrDefault("transfer-encoding", "").toLowerCase(Locale.ROOT).contains("chunked")) {
                    body = in.chunked();
                } else if (headers.containsKey("content-length")) {
                    long length;
                    try {
                        length = Long.parseLong(headers.get("content-length"));
                    } catch (NumberFormatException e) {
                        throw new FuzzCase.CheckFailed("Content-Length '" + headers.get("content-length") + "'");
                    }
                    FuzzCase.check(length >= 0 && length <= MAX_RESPONSE_BYTES, "Content-Length " + length);
                    body = in.exactly((int) length);
                } else {
                    body = in.toEnd();
                }
                return new Response(statusLine, status, headers, body);
            }
        }
    }

    /** A socket's bytes, read with one deadline for the whole response. */
    private static final class Bytes {
        private final Socket socket;
        private final InputStream in;
        private final long deadline;
        private int total;

        Bytes(Socket socket, long deadline) throws IOException {
            this.socket = socket;
            this.in = new java.io.BufferedInputStream(socket.getInputStream());
            this.deadline = deadline;
        }

        /** The next byte, -1 at the end of the connection (a reset included). */
        int next() throws IOException {
            while (true) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                FuzzCase.check(left > 0, "no complete answer within " + ANSWER_MILLIS + " ms (" + total + " bytes came)");
                socket.setSoTimeout((int) left);
                try {
                    int b = in.read();
                    if (b >= 0) {
                        total++;
                        FuzzCase.check(total <= MAX_RESPONSE_BYTES, "an answer of more than " + MAX_RESPONSE_BYTES + " bytes");
                    }
                    return b;
                } catch (SocketTimeoutException e) {
                    // Checked against the deadline above.
                } catch (SocketException e) {
                    return -1;
                }
            }
        }

        /** A line without its CRLF; null at the end of the connection before the first byte if {@code first}. */
        String line(boolean first) throws IOException {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            while (true) {
                int b = next();
                if (b < 0) {
                    if (first && line.size() == 0) {
                        return null;
                    }
                    throw new FuzzCase.CheckFailed("the answer ends within a line: '"
                            + FuzzCase.cut(line.toString(StandardCharsets.ISO_8859_1), 120) + "'");
                }
                if (b == '\n') {
                    String s = line.toString(StandardCharsets.ISO_8859_1);
                    return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
                }
                line.write(b);
            }
        }

        byte[] exactly(int n) throws IOException {
            byte[] out = new byte[n];
            for (int i = 0; i < n; i++) {
                int b = next();
                FuzzCase.check(b >= 0, "the answer's body ends after " + i + " of its " + n + " bytes");
                out[i] = (byte) b;
            }
            return out;
        }

        byte[] chunked() throws IOException {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            while (true) {
                String size = line(false);
                int length;
                try {
                    length = Integer.parseInt(size.split(";", 2)[0].trim(), 16);
                } catch (NumberFormatException e) {
                    throw new FuzzCase.CheckFailed("a chunk size '" + FuzzCase.cut(size, 40) + "'");
                }
                if (length == 0) {
                    for (String trailer = line(false); !trailer.isEmpty(); trailer = line(false)) {
                        // Trailers are allowed and ignored.
                    }
                    return out.toByteArray();
                }
                out.writeBytes(exactly(length));
                FuzzCase.check(line(false).isEmpty(), "a chunk not followed by CRLF");
            }
        }

        byte[] toEnd() throws IOException {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (int b = next(); b >= 0; b = next()) {
                out.write(b);
            }
            return out.toByteArray();
        }

        byte[] untilBlankLine() throws IOException {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            while (true) {
                String line = line(false);
                out.writeBytes((line + "\n").getBytes(StandardCharsets.ISO_8859_1));
                if (line.isEmpty() && out.size() > 1) {
                    return out.toByteArray();
                }
            }
        }
    }
}
