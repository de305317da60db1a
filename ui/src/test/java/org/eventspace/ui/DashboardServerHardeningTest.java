package org.eventspace.ui;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import org.eventspace.base.json.Json;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The served dashboard against a hostile client, over raw sockets (so nothing between the test and the server tidies a
 * request): the security headers on every answer, the Host check on loopback, the token beyond it, JSON for every error
 * — Jetty's own 400, 414 and 431 too — and echoed input cut at 40 characters.
 */
@Timeout(60)
class DashboardServerHardeningTest {
    private static DashboardServer loopback;
    private static DashboardServer open;
    private static String warning;

    /** The crafted run, while "running" (its wall time unknown yet). */
    private static DashboardSource source() {
        return new RunningFileSource("run.json", CraftedRuns.mpiRun()) {
            @Override
            public RunInfo info() {
                RunInfo i = file.info();
                return new RunInfo(i.name(), i.description(), i.ranks(), i.hosts(), i.tree(), i.trees(), i.filter(), 3,
                        Double.NaN);
            }
        };
    }

    @BeforeAll
    static void start() {
        loopback = DashboardServer.start(source(), DashboardServer.LOOPBACK, 0, 250);
        PrintStream err = System.err;
        ByteArrayOutputStream said = new ByteArrayOutputStream();
        System.setErr(new PrintStream(said, true, StandardCharsets.UTF_8));
        try {
            open = DashboardServer.start(source(), "0.0.0.0", 0, 250);
        } finally {
            System.setErr(err);
        }
        warning = said.toString(StandardCharsets.UTF_8);
    }

    @AfterAll
    static void stop() {
        if (loopback != null) {
            loopback.close();
        }
        if (open != null) {
            open.close();
        }
    }

    /** An answer as it came off the socket. */
    record Answer(int status, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        JsonNode json() throws IOException {
            assertThat(header("Content-Type")).as("content type of %s", body).startsWith("application/json");
            return Json.mapper().readTree(body);
        }
    }

    /** Sends {@code request} as it is (CRLF line ends, the blank line added) and reads the answer to the end. */
    static Answer raw(int port, String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write((request + "\r\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] all = in.readAllBytes();
            String text = new String(all, StandardCharsets.UTF_8);
            int end = text.indexOf("\r\n\r\n");
            assertThat(end).as("an HTTP answer: %s", text).isPositive();
            String[] lines = text.substring(0, end).split("\r\n");
            int status = Integer.parseInt(lines[0].split(" ")[1]);
            Map<String, String> headers = new LinkedHashMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                headers.merge(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim(),
                        (a, b) -> a + "\n" + b);
            }
            return new Answer(status, headers, text.substring(end + 4));
        }
    }

    static Answer get(int port, String target, String host, String... headers) throws IOException {
        StringBuilder r = new StringBuilder("GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n");
        for (String h : headers) {
            r.append(h).append("\r\n");
        }
        return raw(port, r.toString());
    }

    private static Answer get(DashboardServer server, String target, String... headers) throws IOException {
        return get(server.port(), target, "127.0.0.1:" + server.port(), headers);
    }

    private static void assertSecurityHeaders(Answer a) {
        assertThat(a.header("Content-Security-Policy")).as("CSP of a %d", a.status()).contains("script-src 'self'")
                .contains("frame-ancestors 'none'").contains("default-src 'none'").doesNotContain("unsafe-eval");
        assertThat(a.header("X-Content-Type-Options")).isEqualTo("nosniff");
        assertThat(a.header("X-Frame-Options")).isEqualTo("DENY");
        assertThat(a.header("Referrer-Policy")).isEqualTo("no-referrer");
    }

    private static void assertError(Answer a, int status, String code) throws IOException {
        assertThat(a.status()).as(a.body()).isEqualTo(status);
        JsonNode e = a.json();
        assertThat(e.path("error").asText()).isEqualTo(code);
        assertThat(e.path("status").asInt()).isEqualTo(status);
        assertThat(e.path("message").asText()).isNotBlank();
        assertSecurityHeaders(a);
    }

    @Test
    void everyAnswerCarriesTheSecurityHeaders() throws IOException {
        Answer page = get(loopback, "/");
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.body()).contains("<script src=\"/assets/dashboard.js\"></script>");
        assertSecurityHeaders(page);
        assertSecurityHeaders(get(loopback, "/assets/dashboard.js"));
        assertSecurityHeaders(get(loopback, "/api/v1/health"));
        assertSecurityHeaders(get(loopback, "/metrics"));
        assertError(get(loopback, "/nothing-here"), 404, "not_found");
        assertError(get(loopback, "/api/v1/tree?tree=x"), 400, "bad_request");
    }

    @Test
    void onLoopbackOnlyItsOwnNamesAndPortAreAnswered() throws IOException {
        int port = loopback.port();
        for (String host : new String[] {"localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port, "LOCALHOST:" + port}) {
            assertThat(get(port, "/api/v1/health", host).status()).as(host).isEqualTo(200);
        }
        // DNS rebinding: a name of the attacker's that resolves to 127.0.0.1; and the right name with another port.
        for (String host : new String[] {"evil.example:" + port, "evil.example", "localhost.evil.example:" + port,
                "127.0.0.1:" + (port == 1 ? 2 : port - 1), "127.0.0.1", "127.0.0.2:" + port}) {
            Answer a = get(port, "/api/v1/health", host);
            assertError(a, 421, "misdirected_request");
            assertThat(a.body()).doesNotContain("\"status\":\"ok\"");
        }
        assertError(get(port, "/", "rebound.example:" + port), 421, "misdirected_request");
        // A Host Jetty cannot read at all is its own 400, as JSON.
        assertError(get(port, "/api/v1/health", "[::1]x:" + port), 400, "bad_request");
    }

    @Test
    void beyondLoopbackEveryRequestNeedsTheTokenAndTheStartSaysSo() throws IOException {
        String token = open.token();
        assertThat(token).hasSizeGreaterThanOrEqualTo(22);
        assertThat(open.url()).endsWith("/?token=" + token);
        assertThat(loopback.token()).isNull();
        assertThat(loopback.url()).doesNotContain("token");
        assertThat(warning).startsWith("warning: the dashboard listens on 0.0.0.0:" + open.port()).contains(open.url());

        for (String target : new String[] {"/", "/api/v1/health", "/metrics", "/api/v1/frame", "/assets/dashboard.js"}) {
            Answer a = get(open, target);
            assertError(a, 401, "unauthorized");
            assertThat(a.header("WWW-Authenticate")).startsWith("Bearer");
        }
        assertError(get(open, "/api/v1/health?token=" + token + "x"), 401, "unauthorized");
        assertError(get(open, "/api/v1/health", "Authorization: Bearer nope"), 401, "unauthorized");

        // The printed address: the page, and a cookie its own requests carry from then on.
        Answer page = get(open, "/?token=" + token);
        assertThat(page.status()).isEqualTo(200);
        String cookie = DashboardAccess.cookieName(open.port()) + "=" + token;
        assertThat(page.header("Set-Cookie")).startsWith(cookie).contains("HttpOnly").contains("SameSite=Strict");
        assertThat(get(open, "/api/v1/health", "Cookie: " + cookie).status()).isEqualTo(200);
        assertThat(get(open, "/api/v1/frame", "Cookie: other=1; " + cookie).status()).isEqualTo(200);
        // A query parameter the endpoint does not take is refused, but the token is every endpoint's.
        assertThat(get(open, "/api/v1/tree?tree=0&token=" + token).status()).isEqualTo(200);
        // Prometheus: the bearer header.
        Answer metrics = get(open, "/metrics", "Authorization: Bearer " + token);
        assertThat(metrics.status()).isEqualTo(200);
        assertThat(metrics.body()).contains("eventspace_");
        // No Host check beyond loopback: the token decides (a rebinding page cannot know it).
        assertThat(get(open.port(), "/api/v1/health", "dashboard.cluster.example:" + open.port(),
                "Authorization: Bearer " + token).status()).isEqualTo(200);
    }

    @Test
    void jettysOwnErrorsAreJsonWithNothingOfTheRequestInThem() throws IOException {
        int port = loopback.port();
        String host = "127.0.0.1:" + port;
        Answer uri = get(port, "/api/v1/" + "a".repeat(9_000), host);
        assertError(uri, 414, "uri_too_long");
        assertThat(uri.body()).doesNotContain("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa").hasSizeLessThan(400);
        Answer headers = get(port, "/api/v1/health", host, "X-Filler: " + "b".repeat(10_000));
        assertError(headers, 431, "headers_too_large");
        assertThat(headers.body()).doesNotContain("bbbbbbbbbb").hasSizeLessThan(400);
        Answer garbage = raw(port, "NOT HTTP AT ALL " + "c".repeat(100) + "\r\n");
        assertError(garbage, 400, "bad_request");
        assertThat(garbage.body()).doesNotContain("c".repeat(41)).hasSizeLessThan(400);
        Answer noHost = raw(port, "GET /api/v1/health HTTP/1.1\r\nConnection: close\r\n");
        assertError(noHost, 400, "bad_request");
    }

    @Test
    void echoedInputIsCutAt40CharactersInEveryError() throws IOException {
        String longName = "q".repeat(8_000);
        Answer param = get(loopback, "/api/v1/health?" + longName + "=1");
        assertError(param, 400, "bad_request");
        assertThat(param.json().path("message").asText()).contains("'" + "q".repeat(40) + "…'").doesNotContain("q".repeat(41));
        Answer event = get(loopback, "/api/v1/histograms?event=" + "e".repeat(5_000));
        assertError(event, 404, "no_such_event");
        assertThat(event.json().path("message").asText()).contains("e".repeat(40) + "…").doesNotContain("e".repeat(41));
        Answer gred = get(loopback, "/api/v1/stats?gred=" + "g".repeat(5_000));
        assertError(gred, 404, "no_such_gred");
        assertThat(gred.json().path("message").asText()).doesNotContain("g".repeat(41));
        Answer path = get(loopback, "/" + "p".repeat(7_000));
        assertError(path, 404, "not_found");
        assertThat(path.json().path("message").asText()).contains("p".repeat(39) + "…").doesNotContain("p".repeat(41));
        Answer number = get(loopback, "/api/v1/tree?tree=" + "9".repeat(3_000));
        assertError(number, 400, "bad_request");
        assertThat(number.body()).doesNotContain("9".repeat(41));
        Answer host = get(loopback.port(), "/api/v1/health", "h".repeat(3_000) + ":" + loopback.port());
        assertError(host, 421, "misdirected_request");
        assertThat(host.body()).doesNotContain("h".repeat(41));
    }

    @Test
    void theEchoHelperKeepsFortyCharactersAndNeverSplitsOne() {
        assertThat(DashboardServer.echo("x".repeat(40))).isEqualTo("x".repeat(40));
        assertThat(DashboardServer.echo("x".repeat(41))).isEqualTo("x".repeat(40) + "…");
        assertThat(DashboardServer.echo("😀".repeat(50))).isEqualTo("😀".repeat(40) + "…");
        assertThat(DashboardServer.echo(null)).isEmpty();
    }

    @Test
    void theRunIsInSnakeCaseWithItsWallTimeNullWhileItRuns() throws IOException {
        JsonNode run = get(loopback, "/api/v1/run").json();
        assertThat(run.has("wall_s")).isTrue();
        assertThat(run.get("wall_s").isNull()).isTrue();
        assertThat(run.path("injected_slow_rank").asInt()).isEqualTo(3);
        assertThat(run.has("wallSeconds")).isFalse();
        assertThat(run.has("injectedSlowRank")).isFalse();
    }
}
