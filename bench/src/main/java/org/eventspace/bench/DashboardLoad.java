package org.eventspace.bench;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.eventspace.bench.InterleavedOverhead;
import org.eventspace.base.os.ProcStat;
import org.eventspace.ui.DashboardServer;
import org.eventspace.ui.DemoJob;
import org.eventspace.base.os.LowestPriority;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code bench dashboard-load}: what HTTP clients polling the dashboard cost a monitored job. One job runs throughout —
 * the demo's compute-gsum (sort, then allreduce) on simulated hosts in this JVM with the load-balance and statistics
 * monitors, an event scope and its dashboard served on loopback, no fault injected — and the treatment alternates in
 * blocks: clients polling (each a thread that GETs one endpoint of the API after another every {@code pollMs}, on a
 * connection it keeps, staggered over the period and keeping their places from one polling block to the next) or idle
 * (the same threads, parked; an idle block is timed only once the polling block's last request has ended, and the
 * report counts requests that ended inside a timed idle block, {@code requests_in_idle_blocks}: zero). Blocks come in pairs, off-on then on-off (ABBA), so a drift
 * of the machine over a pair cancels; per pair the overhead is {@code (t_on − t_off) / t_off × 100} of the time per
 * iteration, and the figure is their mean with a 95 % confidence interval (Student's t), as the monitors' interleaved
 * overhead is measured. Bounded: warm-up plus {@code pairs × 2 × block}; every request has a 2 s timeout; every thread
 * is ended before {@link #run} returns. Not thread-safe: one run per instance.
 */
public final class DashboardLoad {
    public static final String SCHEMA = "eventspace.bench-dashboard-load/1";
    /** What a client asks for, in turn: what the page and a script read. */
    public static final List<String> ENDPOINTS = List.of("/api/v1/health", "/api/v1/loadbalance", "/api/v1/stats", "/api/v1/tree",
            "/api/v1/histograms?last=1", "/api/v1/timemap", "/api/v1/cost", "/api/v1/frame");
    private static final int REQUEST_TIMEOUT_MS = 2_000;

    public record Config(int clients, Duration duration, Duration block, Duration warmup, long pollMs, int ranks, int hosts,
                         boolean clientsAtLowestPriority, List<String> endpoints, FrontEndPlacement placement) {
        public Config {
            if (endpoints.isEmpty()) {
                throw new IllegalArgumentException("--endpoints must name at least one API path");
            }
            for (String e : endpoints) {
                if (!e.startsWith("/api/v1/")) {
                    throw new IllegalArgumentException("--endpoints takes API paths such as /api/v1/health, got '" + e + "'");
                }
            }
            endpoints = List.copyOf(endpoints);
            if (clients < 1 || clients > 1000) {
                throw new IllegalArgumentException("--clients must be 1..1000, got " + clients);
            }
            if (block.toMillis() < 100) {
                throw new IllegalArgumentException("--block-s must be >= 0.1 s, got " + block.toMillis() / 1000.0);
            }
            if (duration.compareTo(block.multipliedBy(4)) < 0) {
                throw new IllegalArgumentException("--duration must hold at least two pairs of blocks (4 × --block-s = "
                        + block.multipliedBy(4).toMillis() / 1000.0 + " s), got " + duration.toMillis() / 1000.0 + " s");
            }
            if (pollMs < 1 || pollMs > 60_000) {
                throw new IllegalArgumentException("--poll-ms must be 1..60000, got " + pollMs);
            }
        }

        public int pairs() {
            return (int) (duration.toMillis() / (2 * block.toMillis()));
        }
    }

    private final Config config;
    private final int cores = Runtime.getRuntime().availableProcessors();
    private final Object gate = new Object();
    private volatile boolean polling;
    private volatile boolean ending;
    /** Set when the warm-up ends: from then on requests are counted and timed. */
    private volatile boolean warm;
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    /** Requests that failed in the warm-up (the serving code still cold): reported apart, they do not fail the run. */
    private final AtomicLong warmupErrors = new AtomicLong();
    private final AtomicLong requestNanos = new AtomicLong();
    /** Requests a client has begun and not finished (it counts itself in before it looks at {@link #polling}). */
    private final java.util.concurrent.atomic.AtomicInteger inFlight = new java.util.concurrent.atomic.AtomicInteger();
    /** True while an idle block is being timed: a request that ends then is counted, and there must be none. */
    private volatile boolean timingIdle;
    private final AtomicLong requestsWhileIdle = new AtomicLong();
    private final java.util.concurrent.atomic.AtomicInteger clientsLowered = new java.util.concurrent.atomic.AtomicInteger();
    private volatile String clientsNotLowered;
    private volatile com.fasterxml.jackson.databind.JsonNode health;
    private volatile String lastError;

    public DashboardLoad(Config config) {
        this.config = config;
        // Each client keeps its connection, as a browser does: the JDK keeps 5 idle connections per server unless told
        // (read once, when the first HTTP connection of the process is made; the command's process makes none before).
        if (System.getProperty("http.maxConnections") == null) {
            System.setProperty("http.maxConnections", Integer.toString(Math.max(5, config.clients())));
        }
    }

    /** Runs the job, the blocks and the clients; the report ({@link #SCHEMA}). */
    public ObjectNode run(ObjectMapper json) throws InterruptedException {
        DemoJob.Settings settings = new DemoJob.Settings(config.ranks(), config.hosts(), "hier:2", 0, 0, 2000, 16, 200);
        List<Thread> clients = new ArrayList<>();
        double[] off = new double[config.pairs()];
        double[] on = new double[config.pairs()];
        String url;
        FrontEndPlacement placement = config.placement();
        if (placement != null) {
            placement.enterJob(); // before the job starts: its threads inherit the job's CPUs
        }
        try (DemoJob job = DemoJob.start(settings);
             DashboardServer server = DashboardServer.start(job.source(), DashboardServer.LOOPBACK, 0)) {
            url = server.url();
            for (int c = 0; c < config.clients(); c++) {
                Thread t = new Thread(client(url, c), "es-load-client-" + c);
                t.setDaemon(true);
                t.start();
                clients.add(t);
            }
            if (placement != null) {
                placement.placeFrontEnd();
            }
            // The clients poll through the warm-up: the JIT compiles the serving path (Jetty, Javalin, Jackson, the
            // clients' own HTTP code) before the first timed block. Without, that code ran interpreted in the polling
            // blocks while the compiler threads, at the ranks' priority, took cores from them there and only there.
            setPolling(true);
            sleep(config.warmup());
            if (placement != null) {
                placement.placeFrontEnd(); // the JVM may have started compiler threads since
            }
            warm = true;
            for (int p = 0; p < config.pairs(); p++) {
                boolean onFirst = p % 2 == 1;
                double first = block(job, onFirst);
                double second = block(job, !onFirst);
                on[p] = onFirst ? first : second;
                off[p] = onFirst ? second : first;
                if (job.failure() != null) {
                    throw new IllegalStateException("the job failed: " + job.failure());
                }
            }
            health = health(url, json);
            // The clients end before the server does, so no request meets a closed port.
            stopClients(clients);
        } finally {
            stopClients(clients);
            if (placement != null) {
                placement.restore();
            }
        }
        return report(json, off, on, url);
    }

    private void stopClients(List<Thread> clients) throws InterruptedException {
        ending = true;
        setPolling(false);
        for (Thread t : clients) {
            t.interrupt();
            t.join(REQUEST_TIMEOUT_MS * 2L);
        }
    }

    /** One block with the clients polling or idle: the job's mean time per iteration (µs) over it. */
    private double block(DemoJob job, boolean withClients) {
        setPolling(withClients);
        if (!withClients) {
            // An idle block starts once the polling block's last requests have ended: none may run into it.
            awaitNoRequestInFlight();
        }
        timingIdle = !withClients;
        long[] c0 = cpu();
        long i0 = job.iterations();
        long t0 = System.nanoTime();
        sleep(config.block());
        long i1 = job.iterations();
        long t1 = System.nanoTime();
        timingIdle = false;
        long[] c1 = cpu();
        int side = withClients ? 1 : 0;
        for (int k = 0; k < 2; k++) {
            cpuNanos[side][k] += c1[k] - c0[k];
        }
        wallNanos[side] += t1 - t0;
        // A block in which the job made no iteration (its threads got no core: the machine's other load) has no time
        // per iteration; its pair is left out and counted.
        return i1 == i0 ? Double.NaN : (t1 - t0) / 1e3 / (i1 - i0);
    }

    /** CPU time of the clients' threads and of the dashboard's (sampler, stream, HTTP pool), per block side. */
    private final long[][] cpuNanos = new long[2][2];
    private final long[] wallNanos = new long[2];
    private static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();

    /** {clients' CPU, the dashboard's CPU} now, ns (0 where the JVM does not measure thread CPU time). */
    private static long[] cpu() {
        long[] c = new long[2];
        if (!THREADS.isThreadCpuTimeSupported()) {
            return c;
        }
        // The thread group, not Thread.getAllStackTraces: no safepoint and no stack walk in the middle of the job.
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Thread[] all = new Thread[root.activeCount() + 64];
        int n = root.enumerate(all, true);
        for (int i = 0; i < n; i++) {
            Thread t = all[i];
            String name = t.getName();
            int k = name.startsWith("es-load-client-") ? 0 : name.startsWith("es-dashboard") ? 1 : -1;
            if (k >= 0) {
                c[k] += Math.max(0, THREADS.getThreadCpuTime(t.getId()));
            }
        }
        return c;
    }

    /** Waits (bounded by a request's timeout and a margin) until no client is inside a request. */
    private void awaitNoRequestInFlight() {
        long deadline = System.nanoTime() + (REQUEST_TIMEOUT_MS + 1_000) * 1_000_000L;
        while (inFlight.get() > 0 && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(1_000_000L);
        }
    }

    private void setPolling(boolean on) {
        synchronized (gate) {
            polling = on;
            gate.notifyAll();
        }
    }

    /** A client: while polling, one GET every pollMs (staggered), the next endpoint each time; parked otherwise. */
    private Runnable client(String base, int index) {
        return () -> {
            if (config.clientsAtLowestPriority()) {
                String why = LowestPriority.enter();
                if (why == null) {
                    clientsLowered.incrementAndGet();
                } else {
                    clientsNotLowered = why;
                }
            }
            long period = config.pollMs() * 1_000_000L;
            long next = System.nanoTime() + period * index / config.clients();
            int endpoint = index;
            while (!ending) {
                boolean idled = false;
                synchronized (gate) {
                    while (!polling && !ending) {
                        idled = true;
                        try {
                            gate.wait();
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }
                if (idled) {
                    // Back from an idle block: keep this client's place in the period (the clients stay staggered)
                    // instead of all firing at once as the polling block begins.
                    long now = System.nanoTime();
                    if (next < now) {
                        next += (now - next + period - 1) / period * period;
                    }
                }
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                    if (Thread.interrupted()) {
                        return;
                    }
                    continue;
                }
                next += period;
                if (next < System.nanoTime()) {
                    next = System.nanoTime() + period; // fell behind (the block was off): no burst to catch up
                }
                // In before looking at the flag: the block that turns polling off then either sees this request in
                // flight and waits for it, or this client sees polling off and sends nothing.
                inFlight.incrementAndGet();
                try {
                    if (polling) {
                        get(base, config.endpoints().get(endpoint++ % config.endpoints().size()));
                    }
                } finally {
                    inFlight.decrementAndGet();
                }
            }
        };
    }

    private void get(String base, String path) {
        long t0 = System.nanoTime();
        try {
            HttpURLConnection c = (HttpURLConnection) new URL(base + path.substring(1)).openConnection();
            c.setConnectTimeout(REQUEST_TIMEOUT_MS);
            c.setReadTimeout(REQUEST_TIMEOUT_MS);
            int status = c.getResponseCode();
            try (InputStream in = status < 400 ? c.getInputStream() : c.getErrorStream()) {
                if (in != null) {
                    in.readAllBytes(); // read to the end, so the connection is kept for the next request
                }
            }
            // 404 no_statistics before the statistics monitor joined a call is an answer, not a failure
            if (status >= 500) {
                (warm ? errors : warmupErrors).incrementAndGet();
                lastError = path + ": HTTP " + status;
            }
        } catch (IOException e) {
            (warm ? errors : warmupErrors).incrementAndGet();
            lastError = path + ": " + e;
        }
        if (!warm) {
            return; // a warm-up request: its errors are counted apart, its number and time not (the rates are the blocks')
        }
        requests.incrementAndGet();
        if (timingIdle) {
            requestsWhileIdle.incrementAndGet();
        }
        requestNanos.addAndGet(System.nanoTime() - t0);
    }

    /** The dashboard's health answer (its threads' priority), or null if it did not answer. */
    private static com.fasterxml.jackson.databind.JsonNode health(String base, ObjectMapper json) {
        try {
            HttpURLConnection c = (HttpURLConnection) new URL(base + "api/v1/health").openConnection();
            c.setConnectTimeout(REQUEST_TIMEOUT_MS);
            c.setReadTimeout(REQUEST_TIMEOUT_MS);
            try (InputStream in = c.getInputStream()) {
                return json.readTree(in);
            }
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * This process's scheduling policy and nice value from {@code /proc/self/stat} (fields 41 and 19): under
     * SCHED_IDLE ({@code chrt -i}) every thread weighs the same whatever its nice value, so the dashboard's nice 19
     * cannot show in the figure; the report must say so.
     */
    private static void scheduling(ObjectNode s) {
        try {
            String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/stat"));
            int policy = Integer.parseInt(ProcStat.field(stat, 41));
            s.put("process_policy", switch (policy) {
                case 0 -> "SCHED_OTHER";
                case 1 -> "SCHED_FIFO";
                case 2 -> "SCHED_RR";
                case 3 -> "SCHED_BATCH";
                case 5 -> "SCHED_IDLE";
                case 6 -> "SCHED_DEADLINE";
                default -> "policy " + policy;
            });
            s.put("process_nice", Integer.parseInt(ProcStat.field(stat, 19)));
            s.put("nice_has_effect", policy != 5);
        } catch (IOException | RuntimeException e) {
            s.put("process_policy", "unknown (" + e.getClass().getSimpleName() + ")");
        }
    }

    private static void sleep(Duration d) {
        long deadline = System.nanoTime() + d.toNanos();
        for (long left = d.toNanos(); left > 0; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    private ObjectNode report(ObjectMapper json, double[] allOff, double[] allOn, String url) {
        int usable = 0;
        for (int i = 0; i < allOff.length; i++) {
            usable += Double.isNaN(allOff[i]) || Double.isNaN(allOn[i]) ? 0 : 1;
        }
        if (usable < 2) {
            throw new IllegalStateException("only " + usable + " of " + allOff.length + " pairs of blocks had an iteration "
                    + "on both sides: the job got almost no CPU (is the machine overloaded?)");
        }
        double[] off = new double[usable];
        double[] on = new double[usable];
        for (int i = 0, k = 0; i < allOff.length; i++) {
            if (!Double.isNaN(allOff[i]) && !Double.isNaN(allOn[i])) {
                off[k] = allOff[i];
                on[k++] = allOn[i];
            }
        }
        double[] pct = new double[off.length];
        for (int i = 0; i < off.length; i++) {
            pct[i] = (on[i] - off[i]) / off[i] * 100;
        }
        double[] m = InterleavedOverhead.meanAndHalfWidth(pct);
        double offMean = 0;
        for (double v : off) {
            offMean += v;
        }
        offMean /= off.length;
        ObjectNode r = json.createObjectNode();
        r.put("schema", SCHEMA);
        r.put("job", "compute-gsum (demo, no fault), " + config.ranks() + " ranks on " + config.hosts()
                + " simulated hosts, hier:2, monitors loadbalance+stats, scope hist:16");
        r.put("clients", config.clients());
        r.put("poll_ms", config.pollMs());
        r.set("endpoints", json.valueToTree(config.endpoints()));
        r.put("block_s", config.block().toMillis() / 1000.0);
        r.put("warmup_s", config.warmup().toMillis() / 1000.0);
        r.put("pairs", off.length);
        r.put("pairs_starved", allOff.length - off.length);
        r.put("overhead_pct", round(m[0]));
        ArrayNode ci = r.putArray("overhead_pct_ci95");
        ci.add(round(m[0] - m[1]));
        ci.add(round(m[0] + m[1]));
        double[] sorted = pct.clone();
        java.util.Arrays.sort(sorted);
        // Robust beside the mean: a pair hit by the machine's own swings moves the mean, not the median.
        r.put("overhead_pct_median", round(sorted.length % 2 == 1 ? sorted[sorted.length / 2]
                : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2));
        r.put("off_us_per_iteration", round(offMean));
        long n = requests.get();
        r.put("requests", n);
        r.put("requests_per_s", round(n / (allOff.length * config.block().toMillis() / 1000.0)));
        r.put("request_errors", errors.get());
        r.put("warmup_request_errors", warmupErrors.get());
        // The method's own check: idle blocks had no request (none begun, none left over from a polling block).
        r.put("requests_in_idle_blocks", requestsWhileIdle.get());
        if (lastError != null) {
            r.put("last_error", lastError);
        }
        r.put("request_ms_mean", n == 0 ? 0 : round(requestNanos.get() / 1e6 / n));
        r.put("dashboard", url);
        FrontEndPlacement placement = config.placement();
        ObjectNode where = r.putObject("placement");
        where.put("front_end_cpus", placement == null ? "shared" : placement.frontEndCpus());
        where.put("job_cpus", placement == null ? "shared" : placement.jobCpus());
        if (placement != null) {
            where.put("front_end_threads", placement.frontEndThreads());
            where.put("compiler_threads", placement.compilerThreads());
        }
        ObjectNode s = r.putObject("scheduling");
        scheduling(s);
        if (health != null) {
            s.put("dashboard_threads", health.path("server_threads").asInt());
            s.put("dashboard_threads_at_nice_19", health.path("lowest_priority_threads").asInt());
        }
        s.put("clients_at_nice_19", clientsLowered.get());
        if (clientsNotLowered != null) {
            s.put("clients_not_lowered_because", clientsNotLowered);
        }
        // Where the time goes: on loopback the clients share the machine with the job, so their CPU counts as much as
        // the server's (the requests themselves never reach the job: they copy the newest frame).
        for (int side = 0; side < 2; side++) {
            ObjectNode c = r.putObject(side == 1 ? "cpu_with_clients" : "cpu_without_clients");
            double wall = Math.max(1, wallNanos[side]);
            c.put("clients_pct_of_a_core", round(100.0 * cpuNanos[side][0] / wall));
            c.put("dashboard_pct_of_a_core", round(100.0 * cpuNanos[side][1] / wall));
        }
        r.put("cores", cores); // the machine's, counted before any thread was bound to some of them
        // The dashboard's CPU a request adds: its threads' CPU over the polling blocks less over the idle ones (the
        // sampler runs in both), per request.
        double onCpu = cpuNanos[1][1] - (double) cpuNanos[0][1] * wallNanos[1] / Math.max(1, wallNanos[0]);
        r.put("dashboard_cpu_us_per_request", n == 0 ? 0 : round(onCpu / 1e3 / n));
        r.put("client_cpu_us_per_request", n == 0 ? 0 : round(cpuNanos[1][0] / 1e3 / n));
        ArrayNode pairs = r.putArray("pairs_us_per_iteration");
        for (int i = 0; i < off.length; i++) {
            ObjectNode p = pairs.addObject();
            p.put("off", round(off[i]));
            p.put("on", round(on[i]));
        }
        return r;
    }

    public static String summary(ObjectNode r) {
        return String.format(Locale.ROOT, "dashboard load: %d clients, a GET every %d ms each (%.1f requests/s, %.2f ms mean, "
                        + "%d errors, %d in idle blocks), %d pairs of %.1f s blocks (%d left out: no iteration)%n  job overhead with the clients: %+.2f %% (95 %% CI %+.2f … "
                        + "%+.2f; median %+.2f) on %.1f µs per iteration without%n  CPU while polling: clients %.1f %%, dashboard "
                        + "%.1f %% of a core (idle: %.1f %%, %.1f %%), %d cores; %.0f µs of the dashboard's CPU per request%n"
                        + "  scheduling: process %s nice %d%s; dashboard threads at nice 19: %d of %d; clients at nice 19: %d%n"
                        + "  placement: job on CPUs %s, dashboard, clients and JIT compilers on %s%n",
                r.path("clients").asInt(), r.path("poll_ms").asLong(),
                r.path("requests_per_s").asDouble(), r.path("request_ms_mean").asDouble(), r.path("request_errors").asLong(), r.path("requests_in_idle_blocks").asLong(),
                r.path("pairs").asInt(), r.path("block_s").asDouble(), r.path("pairs_starved").asInt(), r.path("overhead_pct").asDouble(),
                r.path("overhead_pct_ci95").get(0).asDouble(), r.path("overhead_pct_ci95").get(1).asDouble(),
                r.path("overhead_pct_median").asDouble(),
                r.path("off_us_per_iteration").asDouble(), r.at("/cpu_with_clients/clients_pct_of_a_core").asDouble(),
                r.at("/cpu_with_clients/dashboard_pct_of_a_core").asDouble(),
                r.at("/cpu_without_clients/clients_pct_of_a_core").asDouble(),
                r.at("/cpu_without_clients/dashboard_pct_of_a_core").asDouble(), r.path("cores").asInt(),
                r.path("dashboard_cpu_us_per_request").asDouble(), r.at("/scheduling/process_policy").asText(),
                r.at("/scheduling/process_nice").asInt(), r.at("/scheduling/nice_has_effect").asBoolean(true) ? ""
                        : " (nice values inside it have no effect)", r.at("/scheduling/dashboard_threads_at_nice_19").asInt(),
                r.at("/scheduling/dashboard_threads").asInt(), r.at("/scheduling/clients_at_nice_19").asInt(),
                r.at("/placement/job_cpus").asText(), r.at("/placement/front_end_cpus").asText());
    }

    private static double round(double x) {
        return Math.round(x * 1000.0) / 1000.0;
    }
}
