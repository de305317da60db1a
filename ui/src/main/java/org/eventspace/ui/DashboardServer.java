package org.eventspace.ui;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import org.agrona.concurrent.AgentRunner;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.ServerConnector;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.eventspace.base.json.Json;
import org.eventspace.comm.transport.AgentThreads;
import org.eventspace.net.NetworkSvg;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.sse.SseClient;

/**
 * The dashboard's HTTP server (Javalin on Jetty): the page at {@code /}, its assets from the jar, and the JSON API under
 * {@code /api/v1} (docs/API.md), every answer read from the sampler's newest frame, so requests never reach the job.
 * Binds 127.0.0.1 unless told otherwise. Start with {@link #start}, end with {@link #close} (idempotent); any thread.
 *
 * <p>Hardened for a hostile client and a hostile page in the same browser: who may read it is {@link DashboardAccess}'s
 * (a Host check on loopback, a token beyond it, with a warning on standard error), every answer carries a
 * Content-Security-Policy that runs no script but the page's own file and forbids framing, every error is JSON —
 * Jetty's own 400/414/431 too ({@link DashboardErrorPage}) — with what a client sent echoed at most 40 characters
 * ({@link #echo}), and the listening socket's accept backlog is {@link #ACCEPT_QUEUE}, so a flood of connections does
 * not make a normal request wait for a SYN to be sent again.
 */
public final class DashboardServer implements AutoCloseable {
    /** The loopback address the server binds unless told otherwise. */
    public static final String LOOPBACK = "127.0.0.1";
    /** The frame period: what "live" means here. */
    public static final long DEFAULT_PERIOD_MS = 500;
    /** How long {@link #close} waits for the sampler's thread to end. */
    private static final Duration SAMPLER_CLOSE_BOUND = Duration.ofSeconds(2);

    /**
     * Connections the kernel queues for accept. Jetty's default, 50, overflowed during a flood of 2 000 connections and a
     * normal request waited a second for its dropped SYN to be sent again; 1024 still overflowed on a loaded machine.
     * 4096 is Linux's default net.core.somaxconn, which caps it (as Netty does); a queued connection costs the kernel a
     * few hundred bytes.
     */
    static final int ACCEPT_QUEUE = 4096;
    /** Echoed input, at most this many characters in any error message. */
    static final int ECHO_CHARS = 40;

    /** Request attribute: this request's error was written already (the 404 page must not overwrite it). */
    private static final String ANSWERED = "es-answered";

    private final ObjectMapper json;
    private final DashboardSampler sampler;
    private final AgentRunner runner;
    private final Javalin app;
    private final List<SseClient> clients = new CopyOnWriteArrayList<>();
    private final Consumer<DashboardSampler.Frame> push;
    private final AtomicReference<DashboardSampler.Frame> pending = new AtomicReference<>();
    private final Thread streamer;
    private volatile boolean skipped;
    private final String bind;
    private final DashboardThreads threads = new DashboardThreads();
    private final RunMetrics metrics = new RunMetrics();
    private final DashboardAccess access;
    private volatile boolean closed;

    private DashboardServer(DashboardSource source, String bind, int port, long periodMs) {
        this.json = Json.mapper();
        this.bind = bind;
        DashboardFrames frames = new DashboardFrames(source, json);
        this.sampler = new DashboardSampler(frames, json, periodMs);
        sampler.sampleNow();
        // The sampler hands frames over and goes on; the streamer thread writes them. A client that stops reading can
        // then hold up only the stream (not the sampler, nor the answers to requests); frames that pile up meanwhile are
        // dropped, and the next one goes out whole so no client misses a round of history.
        this.streamer = new Thread(threads.lowered(this::stream), "es-dashboard-stream");
        streamer.setDaemon(true);
        this.push = f -> {
            if (pending.getAndSet(f) != null) {
                skipped = true;
            }
            LockSupport.unpark(streamer);
        };
        sampler.onFrame(push);
        streamer.start();
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
        this.access = DashboardAccess.of(bind);
        DashboardErrorPage errorPage = new DashboardErrorPage(json);
        this.app = Javalin.create(config -> {
            config.showJavalinBanner = false;
            config.startupWatcherEnabled = false;
            config.jetty.threadPool = threads.httpPool();
            config.jetty.modifyServer(server -> server.setErrorHandler(errorPage));
            config.jetty.modifyServletContextHandler(context -> context.setErrorHandler(errorPage));
            config.jetty.addConnector((server, http) -> {
                http.setSendServerVersion(false);
                ServerConnector c = new ServerConnector(server, new HttpConnectionFactory(http));
                c.setHost(bind);
                c.setPort(port);
                c.setAcceptQueueSize(ACCEPT_QUEUE);
                return c;
            });
        });
        routes();
        this.runner = AgentThreads.runner(sampler, new SleepingMillisIdleStrategy(Math.max(5, periodMs / 10)));
        AgentRunner.startOnThread(runner, r -> {
            Thread t = new Thread(threads.lowered(r), sampler.roleName());
            t.setDaemon(true);
            return t;
        });
        try {
            app.start();
        } catch (RuntimeException e) {
            AgentThreads.awaitEnd(runner, Duration.ofSeconds(2));
            throw new IllegalStateException("the dashboard could not listen on " + bind + ":" + port + ": "
                    + rootMessage(e), e);
        }
        if (!access.loopback()) {
            System.err.println("warning: the dashboard listens on " + bind + ":" + port() + ", beyond this machine: anyone "
                    + "who can reach it and has the token in its address (" + url() + ") reads the run, in clear text (no "
                    + "TLS); on an untrusted network bind 127.0.0.1 and use ssh -L " + port() + ":127.0.0.1:" + port());
        }
    }

    /**
     * Serves the dashboard of {@code source} on {@code bind}:{@code port} (0: any free port).
     *
     * @throws IllegalStateException if it cannot listen there (the port is taken, the address is not this machine's).
     */
    public static DashboardServer start(DashboardSource source, String bind, int port) {
        return start(source, bind, port, DEFAULT_PERIOD_MS);
    }

    public static DashboardServer start(DashboardSource source, String bind, int port, long periodMs) {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("the port must be 0..65535 (0: any free port), port=" + port);
        }
        return new DashboardServer(source, bind, port, periodMs);
    }

    /** The port it listens on. */
    public int port() {
        return app.port();
    }

    /**
     * The page's address; beyond loopback with the token ({@code ?token=…}) every request needs, which the page then
     * keeps in a cookie.
     */
    public String url() {
        String host = bind.contains(":") ? "[" + bind + "]" : bind.equals("0.0.0.0") ? LOOPBACK : bind;
        return "http://" + host + ":" + port() + "/" + (access.token() == null ? "" : "?" + DashboardAccess.TOKEN + "="
                + access.token());
    }

    /** The token every request needs (beyond loopback), or null when bound to loopback. */
    public String token() {
        return access.token();
    }

    public DashboardSampler sampler() {
        return sampler;
    }

    /**
     * The run ended thus: every frame from the next one on carries {@code outcome}, so a page opened while the server
     * keeps serving the final state ({@code --linger}) shows the run's result. Any thread.
     */
    public void ended(DashboardFrames.Outcome outcome) {
        sampler.frames().ended(outcome);
    }

    /**
     * Waits until a frame that carries the run's end ({@code running} false, and the outcome once {@link #ended} was
     * called) has been sampled, or {@code bound} passed: what a client reads from then on is the final state.
     *
     * @return whether that frame is the newest now.
     */
    public boolean awaitFinalFrame(Duration bound, boolean withOutcome) throws InterruptedException {
        long end = System.nanoTime() + bound.toNanos();
        while (System.nanoTime() - end < 0) {
            DashboardSampler.Frame f = sampler.newest();
            if (f != null && !f.node().path("running").asBoolean(true) && (!withOutcome || f.node().has("outcome"))) {
                return true;
            }
            Thread.sleep(20);
        }
        return false;
    }

    /** Server-sent-event clients connected now. */
    public int streamClients() {
        return clients.size();
    }

    private void routes() {
        // Before every route, 404 and 405 included: the security headers, then who may ask.
        app.before(ctx -> {
            DashboardAccess.HEADERS.forEach(ctx::header);
            if (!access.hostAllowed(ctx.header("Host"), port())) {
                throw new Refused(421, "misdirected_request", "this dashboard answers requests to localhost, 127.0.0.1 or "
                        + "[::1] with port " + port() + " only (it listens on loopback), not to Host '"
                        + echo(String.valueOf(ctx.header("Host"))) + "'");
            }
            String query = ctx.queryParam(DashboardAccess.TOKEN);
            if (!access.tokenPresented(query, ctx.cookie(DashboardAccess.cookieName(port())), ctx.header("Authorization"))) {
                ctx.header("WWW-Authenticate", "Bearer realm=\"eventspace\"");
                throw new Refused(401, "unauthorized", "this dashboard listens beyond loopback: open the address it "
                        + "printed (with ?token=…), or send the token as 'Authorization: Bearer TOKEN'");
            }
            if (query != null && access.token() != null) {
                // The page's own requests (assets, API, event stream) carry it from now on; other sites' do not.
                ctx.res().addHeader("Set-Cookie", DashboardAccess.cookieName(port()) + "=" + access.token()
                        + "; Path=/; HttpOnly; SameSite=Strict");
            }
        });
        app.get("/", ctx -> asset(ctx, "index.html"));
        app.get("/assets/{name}", ctx -> asset(ctx, ctx.pathParam("name")));
        app.get("/api/v1/health", ctx -> {
            only(ctx);
            DashboardSampler.Frame f = frame();
            // Whether the dashboard's own threads run at nice 19, as monitors.analysis.lowest_priority_threads says of
            // the analysis threads: a request must never take a core from a rank at equal weight.
            send(ctx, json.valueToTree(new Health(sampler.error() == null ? "ok" : "degraded", DashboardFrames.SCHEMA, "v1",
                    f.node().path("running").asBoolean(), f.number(), f.node().path("uptime_s").asDouble(), clients.size(),
                    threads.threads(), threads.lowestPriorityThreads(), threads.problem(), sampler.error())));
        });
        app.get("/api/v1/traffic", ctx -> {
            only(ctx);
            JsonNode loads = sampler.network();
            if (loads == null) {
                error(ctx, 404, "no_traffic", "the job counts no network traffic or runs on no topology");
                return;
            }
            ObjectNode o = loads.deepCopy();
            o.put("svg", NetworkSvg.render(loads));
            send(ctx, o);
        });
        app.get("/api/v1/run", ctx -> {
            only(ctx);
            sendCached(ctx, f -> f.node().get("run"));
        });
        app.get("/api/v1/frame", ctx -> {
            only(ctx);
            sendBytes(ctx, frame().bytes());
        });
        app.get("/api/v1/tree", ctx -> {
            only(ctx, "tree");
            int tree = intParam(ctx, "tree", 0, 0, sampler.frames().trees() - 1);
            sendCached(ctx, f -> {
                ObjectNode o = sampler.frames().tree(tree).toJson(json);
                for (JsonNode t : f.node().path("loadbalance").path("trees")) {
                    if (t.path("tree").asInt() == tree) {
                        o.set("heaviest_path", t.path("heaviest_path"));
                        o.set("slowest_rank", t.path("slowest_rank"));
                    }
                }
                return o;
            });
        });
        app.get("/api/v1/loadbalance", ctx -> {
            only(ctx);
            sendCached(ctx, f -> {
                JsonNode lb = f.node().path("loadbalance");
                if (lb.isNull() || lb.isMissingNode()) {
                    error(ctx, 404, "no_monitor", "the job runs no load-balance monitor (run it with --monitor loadbalance)");
                    return null;
                }
                return lb;
            });
        });
        app.get("/api/v1/stats", ctx -> {
            only(ctx, "gred");
            String gred = ctx.queryParam("gred");
            sendCached(ctx, f -> {
                JsonNode stats = f.node().path("stats");
                if (gred == null) {
                    ObjectNode o = json.createObjectNode();
                    o.set("wrappers", stats);
                    o.set("ranks", f.node().path("ranks"));
                    return o;
                } else if (stats.has(gred)) {
                    return stats.get(gred);
                }
                error(ctx, 404, "no_such_gred", "no monitored gred named '" + echo(gred) + "'; expected one of " + names(stats, 12));
                return null;
            });
        });
        app.get("/api/v1/histograms", ctx -> {
            only(ctx, "event", "last");
            int last = intParam(ctx, "last", DashboardFrames.HISTORY, 1, DashboardFrames.HISTORY);
            String event = ctx.queryParam("event");
            sendCached(ctx, f -> {
                JsonNode hist = f.node().path("histograms");
                ObjectNode o = json.createObjectNode();
                o.put("filter", f.node().path("scope").path("filter").asText(""));
                ObjectNode events = o.putObject("events");
                if (event != null && !hist.has(event)) {
                    error(ctx, 404, "no_such_event", "no scope event named '" + echo(event) + "'; expected one of " + names(hist, 12));
                    return null;
                }
                hist.fields().forEachRemaining(e -> {
                    if (event == null || event.equals(e.getKey())) {
                        var rounds = events.putArray(e.getKey());
                        int n = e.getValue().size();
                        for (int i = Math.max(0, n - last); i < n; i++) {
                            rounds.add(e.getValue().get(i));
                        }
                    }
                });
                return o;
            });
        });
        app.get("/api/v1/timemap", ctx -> {
            only(ctx, "tree");
            int tree = intParam(ctx, "tree", 0, 0, sampler.frames().trees() - 1);
            sendCached(ctx, f -> {
                for (JsonNode t : f.node().path("timemap")) {
                    if (t.path("tree").asInt() == tree) {
                        return t;
                    }
                }
                error(ctx, 404, "no_statistics", "no timemap yet: it needs the statistics monitor (--monitor stats) and a call joined");
                return null;
            });
        });
        // Prometheus' scrape (docs/DASHBOARD.md): the model the sampler took with the newest frame, never the job.
        app.get("/metrics", ctx -> {
            only(ctx);
            RunMetrics.Exposition e = metrics.answer(ctx.header("Accept"), frame().node().path("running").asBoolean(),
                    sampler.model());
            ctx.res().setContentType(e.contentType());
            ctx.res().setContentLength(e.bytes().length);
            ctx.res().getOutputStream().write(e.bytes());
        });
        app.get("/api/v1/cost", ctx -> {
            only(ctx);
            sendCached(ctx, f -> f.node().path("cost"));
        });
        // Javalin streams only to a request that accepts an event stream (as EventSource does); say so to others.
        app.before("/api/v1/events", ctx -> {
            String accept = ctx.header("Accept");
            if (accept == null || !accept.contains("text/event-stream")) {
                throw new Refused(406, "not_acceptable", "/api/v1/events is a server-sent event stream: send "
                        + "'Accept: text/event-stream' (EventSource does; curl needs -H)");
            }
        });
        app.sse("/api/v1/events", client -> {
            client.keepAlive();
            client.onClose(() -> clients.remove(client));
            // The newest frame, whole, at once (a page draws without waiting a period), before the streamer may write
            // to this client: one writer at a time.
            client.sendEvent("frame", frame().text());
            clients.add(client);
        });
        app.exception(BadRequest.class, (e, ctx) -> error(ctx, 400, "bad_request", e.getMessage()));
        app.exception(Refused.class, (e, ctx) -> error(ctx, e.status, e.code, e.getMessage()));
        app.exception(Exception.class, (e, ctx) -> error(ctx, 500, "internal", "the dashboard failed to answer: "
                + e.getClass().getSimpleName()));
        app.error(404, ctx -> {
            if (ctx.attribute(ANSWERED) == null && !ctx.method().name().equals("GET")) {
                error(ctx, 405, "method_not_allowed", "the dashboard's API is read-only: use GET, not " + echo(ctx.method().name()));
            } else if (ctx.attribute(ANSWERED) == null) {
                error(ctx, 404, "not_found", "no such page or API path '" + echo(ctx.path()) + "'; the API is under /api/v1 "
                        + "(health, run, frame, tree, loadbalance, stats, histograms, timemap, cost, events); metrics at /metrics");
            }
        });
        app.error(405, ctx -> error(ctx, 405, "method_not_allowed", "the dashboard's API is read-only: use GET"));
    }

    /** The streamer's loop: the newest frame handed over, to every stream client; a delta unless frames were dropped. */
    private void stream() {
        while (!closed) {
            DashboardSampler.Frame f = pending.getAndSet(null);
            if (f == null) {
                LockSupport.parkNanos(100_000_000L);
                continue;
            }
            boolean whole = skipped;
            skipped = false;
            for (SseClient c : clients) {
                if (c.terminated()) {
                    clients.remove(c);
                } else {
                    try {
                        c.sendEvent("frame", whole ? f.text() : f.delta());
                    } catch (RuntimeException e) {
                        clients.remove(c); // gone mid-write
                    }
                }
            }
        }
    }

    private DashboardSampler.Frame frame() {
        return sampler.newest();
    }

    /**
     * Refuses query parameters the endpoint does not take (a misspelt one would be ignored silently); the token is
     * every endpoint's ({@link DashboardAccess}).
     */
    private static void only(Context ctx, String... allowed) {
        Set<String> ok = Set.of(allowed);
        for (String key : ctx.queryParamMap().keySet()) {
            if (!ok.contains(key) && !key.equals(DashboardAccess.TOKEN)) {
                throw new BadRequest("unknown query parameter '" + echo(key) + "' for " + ctx.path() + "; expected "
                        + (allowed.length == 0 ? "none" : String.join(", ", allowed)));
            }
        }
    }

    private static int intParam(Context ctx, String name, int absent, int min, int max) {
        String text = ctx.queryParam(name);
        if (text == null) {
            return absent;
        }
        try {
            int v = Integer.parseInt(text.trim());
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // Falls through to the message below.
        }
        throw new BadRequest(name + " must be an integer " + min + ".." + max + ", got '" + echo(text) + "'");
    }

    private static String names(JsonNode object, int most) {
        StringBuilder b = new StringBuilder();
        var it = object.fieldNames();
        int n = 0;
        while (it.hasNext()) {
            String name = it.next();
            if (n++ == most) {
                b.append(", …");
                break;
            }
            b.append(n > 1 ? ", " : "").append('\'').append(echo(name)).append('\'');
        }
        return n == 0 ? "(none yet)" : b.toString();
    }

    /**
     * Echoed input, bounded: an error message never grows with what a client sent (docs/API.md: cut at
     * {@value #ECHO_CHARS} characters, then "…"). Every error that quotes a request goes through here.
     */
    static String echo(String text) {
        if (text == null) {
            return "";
        }
        return text.codePointCount(0, text.length()) <= ECHO_CHARS ? text
                : text.substring(0, text.offsetByCodePoints(0, ECHO_CHARS)) + "…";
    }

    /** An answer serialised once for one frame: its frame's number and its bytes. */
    private record Answer(long frame, byte[] bytes) {
    }

    /** Distinct requests (path and query) whose answers are kept; beyond, answers are made per request. */
    private static final int MAX_ANSWERS = 256;
    private final java.util.concurrent.ConcurrentHashMap<String, Answer> answers = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Answers with what {@code make} derives from the newest frame, serialised once per frame and request (path and
     * query): fifty clients polling an endpoint cost one serialisation per frame, then a copy of bytes each (the answer
     * is the same for all of them until the next frame). {@code make} returns null after it answered an error itself.
     */
    private void sendCached(Context ctx, java.util.function.Function<DashboardSampler.Frame, JsonNode> make) throws Exception {
        DashboardSampler.Frame f = frame();
        String key = ctx.path() + "?" + (ctx.queryString() == null ? "" : ctx.queryString());
        Answer a = answers.get(key);
        if (a == null || a.frame() != f.number()) {
            JsonNode node = make.apply(f);
            if (node == null) {
                return;
            }
            a = new Answer(f.number(), json.writeValueAsBytes(node));
            if (answers.size() < MAX_ANSWERS || answers.containsKey(key)) {
                answers.put(key, a);
            }
        }
        sendBytes(ctx, a.bytes());
    }

    /**
     * Writes an answer already serialised straight to Jetty's response with its length known: no copy into Javalin's
     * result stream, no chunking, no compression (a per-request gzip of a 270 KB frame cost more CPU than the rest of
     * the request; the dashboard is read on loopback or a LAN), so a kept connection answers with one write.
     */
    private static void sendBytes(Context ctx, byte[] bytes) throws java.io.IOException {
        jakarta.servlet.http.HttpServletResponse res = ctx.res();
        res.setContentType("application/json");
        res.setContentLength(bytes.length);
        res.getOutputStream().write(bytes);
    }

    /** An answer made for this request (health, traffic), written as {@link #sendBytes} writes a cached one. */
    private void send(Context ctx, JsonNode node) throws Exception {
        sendBytes(ctx, json.writeValueAsBytes(node));
    }

    private void error(Context ctx, int status, String code, String message) {
        ApiError o = new ApiError(code, message, status);
        ctx.attribute(ANSWERED, Boolean.TRUE);
        try {
            ctx.status(status).contentType("application/json").result(json.writeValueAsString(o));
        } catch (Exception e) {
            ctx.status(status).result("{\"error\":\"" + code + "\"}");
        }
    }

    /** {@code /api/v1/health}: {@code lowest_priority_error} and {@code error} only when there is one. */
    @JsonPropertyOrder({"status", "schema", "api", "running", "frame", "uptime_s", "stream_clients", "server_threads",
            "lowest_priority_threads", "lowest_priority_error", "error"})
    record Health(String status, String schema, String api, boolean running, long frame,
                  @JsonProperty("uptime_s") double uptimeS, @JsonProperty("stream_clients") int streamClients,
                  @JsonProperty("server_threads") int serverThreads,
                  @JsonProperty("lowest_priority_threads") int lowestPriorityThreads,
                  @JsonProperty("lowest_priority_error") @JsonInclude(JsonInclude.Include.NON_NULL) String lowestPriorityError,
                  @JsonInclude(JsonInclude.Include.NON_NULL) String error) {
    }

    /** Every error answer of the API: a code for programs, a message for people, the HTTP status. */
    @JsonPropertyOrder({"error", "message", "status"})
    record ApiError(String error, String message, int status) {
    }

    private static final Map<String, String> TYPES = Map.of("html", "text/html; charset=utf-8",
            "css", "text/css; charset=utf-8", "js", "text/javascript; charset=utf-8", "svg", "image/svg+xml");

    /** One of the page's files from the jar ({@link DashboardAssets#NAMES}); anything else is 404. */
    private void asset(Context ctx, String name) {
        byte[] bytes = DashboardAssets.NAMES.contains(name) ? DashboardAssets.bytes(name) : null;
        if (bytes == null) {
            error(ctx, 404, "not_found", "no asset named '" + echo(name) + "'");
            return;
        }
        String ext = name.substring(name.lastIndexOf('.') + 1);
        ctx.header("Cache-Control", "no-cache").contentType(TYPES.getOrDefault(ext, "application/octet-stream")).result(bytes);
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() != null ? t.getMessage() : t.toString();
    }

    /** Stops serving: closes the event streams, the HTTP server and the sampler (bounded). Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        sampler.removeListener(push);
        LockSupport.unpark(streamer);
        try {
            streamer.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (SseClient c : clients) {
            try {
                c.close();
            } catch (RuntimeException e) {
                // The client went away already.
            }
        }
        clients.clear();
        app.stop();
        // Bounded: Agrona's AgentRunner.close() waits for the agent's step however long it takes, and a frame of a large
        // job on a loaded machine takes the sampler's lowered thread seconds. A frame still being taken is not waited
        // for: its thread ends after it, and nobody is listening any more.
        sampler.close();
        AgentThreads.awaitEnd(runner, SAMPLER_CLOSE_BOUND);
    }

    /** A request refused with {@code status} and {@code code}. */
    static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final int status;
        final String code;

        Refused(int status, String code, String message) {
            super(message);
            this.status = status;
            this.code = code;
        }
    }

    /** A query the API cannot answer as asked: 400 with the message. */
    static final class BadRequest extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BadRequest(String message) {
            super(message);
        }
    }
}
