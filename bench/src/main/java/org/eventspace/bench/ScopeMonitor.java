package org.eventspace.bench;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.eventspace.comm.runtime.HostRuntime;
import org.eventspace.scope.EventScope;
import org.eventspace.scope.ScopeRound;
import org.eventspace.scope.filter.FilterResult;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A run's event-scope front-end (issue 4): on the front-end host, one thread pulls rounds through the scope back
 * to back while the ranks run — the EventSpace paper's front-end gathering continuously, so that whether the scope
 * keeps up with the collectors shows as its gather rate (§6, Table 2) — then drains what is left and closes the
 * stream. {@link #start} and {@link #stop} are called from one thread; the pulling thread is ended by
 * {@link #stop} within a bounded time.
 */
public final class ScopeMonitor {
    /**
     * Pulls after the ranks ended: one reads what they wrote last, one more completes a pipelined filter's last
     * round (ToM's histogram carries round r's bounds in round r+1).
     */
    static final int FINAL_PULLS = 2;
    /**
     * Pause after a pull that gathered nothing, when pulling back to back: an idle scope (a one-host job between
     * calls, a job that stopped) would otherwise spin a core the ranks need, a million empty rounds a second.
     */
    static final long IDLE_PAUSE_NANOS = 20_000;

    private final RunScope spec;
    private final EventScope scope;
    private final AtomicBoolean running = new AtomicBoolean();
    private Thread thread;
    private volatile Throwable failure;
    // Written by the pulling thread until it ends, read after join (happens-before through join).
    private long rounds;
    private long produced;
    private long gathered;
    private long dropped;
    private long rawBytes;
    private long roundNanos;
    private long[] bytesPerLevel = new long[0];
    /** Records gathered by each round, kept for the pipeline's depth: a result may describe an earlier round. */
    private final Map<Long, Long> gatheredByRound = new java.util.HashMap<>();
    private FilterResult lastResult = FilterResult.none();
    private long lastResultRound = -1;

    private ScopeMonitor(RunScope spec, EventScope scope) {
        this.spec = spec;
        this.scope = scope;
    }

    /** Opens the scope on {@code frontEnd} (INIT reaches every node) and starts pulling. */
    public static ScopeMonitor start(RunScope spec, HostRuntime frontEnd) {
        ScopeMonitor monitor = new ScopeMonitor(spec, EventScope.on(frontEnd));
        monitor.scope.open();
        monitor.running.set(true);
        monitor.thread = new Thread(monitor::pullWhileRunning, "es-scope-front-end");
        monitor.thread.setDaemon(true);
        monitor.thread.start();
        return monitor;
    }

    private void pullWhileRunning() {
        try {
            long interval = TimeUnit.MILLISECONDS.toNanos(spec.intervalMs());
            while (running.get()) {
                long gatheredBefore = gathered;
                pullOnce();
                if (interval == 0 && gathered == gatheredBefore) {
                    java.util.concurrent.locks.LockSupport.parkNanos(this, IDLE_PAUSE_NANOS);
                }
                long until = System.nanoTime() + interval;
                for (long left = interval; left > 0 && running.get(); left = until - System.nanoTime()) {
                    java.util.concurrent.locks.LockSupport.parkNanos(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(10)));
                }
            }
        } catch (Throwable t) {
            failure = t;
        }
    }

    private void pullOnce() {
        ScopeRound r = scope.pull();
        rounds++;
        produced += r.recordsProduced();
        gathered += r.recordsGathered();
        dropped += r.recordsDropped();
        rawBytes += r.rawBytes();
        roundNanos += r.roundNanos();
        long[] levels = r.bytesPerLevel();
        if (levels.length > bytesPerLevel.length) {
            bytesPerLevel = java.util.Arrays.copyOf(bytesPerLevel, levels.length);
        }
        for (int i = 0; i < levels.length; i++) {
            bytesPerLevel[i] += levels[i];
        }
        // Keep the last result that describes a round with data. Every filter names the round its result is of: a
        // pipelined filter's (ToM's histogram, the classes with their histograms) is an earlier round's.
        gatheredByRound.put(r.round(), r.recordsGathered());
        gatheredByRound.remove(r.round() - 4);
        long round = r.result().round();
        if (!r.result().isEmpty() && gatheredByRound.getOrDefault(round, 0L) > 0) {
            lastResult = r.result();
            lastResultRound = round;
        }
    }

    /**
     * Stops pulling, drains with {@link #FINAL_PULLS} more rounds and closes the stream (FIN/FINACK). Call once
     * every rank of the job returned and before any host closes.
     *
     * @return the {@code scope} block of the run report.
     */
    public ObjectNode stop(ObjectMapper json, long timeoutMillis) {
        running.set(false);
        try {
            thread.join(TimeUnit.MILLISECONDS.toMillis(timeoutMillis));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        ObjectNode node = json.createObjectNode();
        String error = null;
        if (thread.isAlive()) {
            thread.interrupt();
            error = "the scope front-end did not finish its round within " + timeoutMillis + " ms";
        } else if (failure != null) {
            error = "scope round failed: " + failure.getMessage();
        } else {
            try {
                for (int i = 0; i < FINAL_PULLS; i++) {
                    pullOnce();
                }
            } catch (RuntimeException e) {
                error = "final scope round failed: " + e.getMessage();
            }
        }
        try {
            scope.close();
        } catch (RuntimeException e) {
            error = error != null ? error : "closing the scope failed: " + e.getMessage();
        }
        node.put("shape", spec.shape());
        node.put("gather", spec.gather());
        node.put("filter", spec.filter());
        node.put("interval_ms", spec.intervalMs());
        node.put("rounds", rounds);
        node.put("records_produced", produced);
        node.put("records_gathered", gathered);
        node.put("records_dropped", dropped);
        node.put("gather_rate", produced == 0 ? 1.0 : (double) gathered / produced);
        node.put("raw_bytes", rawBytes);
        ArrayNode levels = node.putArray("bytes_per_level");
        for (long b : bytesPerLevel) {
            levels.add(b);
        }
        node.put("round_us_mean", rounds == 0 ? 0 : roundNanos / 1e3 / rounds);
        node.put("result_round", lastResultRound);
        node.set("result", json.valueToTree(lastResult));
        if (error != null) {
            node.put("error", error);
        }
        return node;
    }

    /**
     * A {@code stats} result as a table for people: per event (op and path shape) the tuples and the mean, sd, min
     * and max of t_up − t_down in µs across ranks, a rank's whole allreduce first; empty for other filters.
     */
    public static String statsTable(JsonNode scope) {
        if (scope == null || !scope.path("result").has("events") || !scope.path("filter").asText().equals("stats")) {
            return "";
        }
        StringBuilder out = new StringBuilder(String.format(java.util.Locale.ROOT,
                "What the event scope saw in its last round with data (round %d): t_up - t_down per collector role, "
                        + "statistics across ranks%n  %-52s %8s %9s %9s %9s %9s%n", scope.path("result_round").asLong(),
                "event (op, path from the collector down)", "tuples", "mean µs", "sd µs", "min µs", "max µs"));
        java.util.List<Map.Entry<String, JsonNode>> events = new java.util.ArrayList<>();
        scope.path("result").path("events").fields().forEachRemaining(events::add);
        events.sort(java.util.Comparator.comparing((Map.Entry<String, JsonNode> e) -> !e.getKey().contains(" rank>"))
                .thenComparing(Map.Entry::getKey));
        for (Map.Entry<String, JsonNode> e : events) {
            JsonNode v = e.getValue();
            out.append(String.format(java.util.Locale.ROOT, "  %-52s %8d %9.2f %9.2f %9.2f %9.2f%n", e.getKey(),
                    v.path("count").asLong(), v.path("mean").asDouble(), v.path("sd").asDouble(), v.path("min").asDouble(),
                    v.path("max").asDouble()));
        }
        out.append("(rank>… is a rank's whole allreduce; gred>… and proxy>… are the parts below a gred or a hop)\n");
        return out.toString();
    }

    private static String fieldNames(JsonNode object) {
        List<String> names = new java.util.ArrayList<>();
        object.fieldNames().forEachRemaining(names::add);
        return names.toString();
    }

    /** The people's summary of a {@code scope} block — its counts, then the filter's last result — units on every number. */
    public static String summary(JsonNode scope) {
        StringBuilder out = new StringBuilder(String.format(java.util.Locale.ROOT,
                "  scope %s, gather %s, filter %s: %d rounds of %.1f µs; %d records produced, %d gathered, %d dropped "
                        + "(gather rate %.2f %%); bytes per level %s%n",
                scope.path("shape").asText(), scope.path("gather").asText(), scope.path("filter").asText(),
                scope.path("rounds").asLong(), scope.path("round_us_mean").asDouble(), scope.path("records_produced").asLong(),
                scope.path("records_gathered").asLong(), scope.path("records_dropped").asLong(),
                100 * scope.path("gather_rate").asDouble(), scope.path("bytes_per_level")));
        JsonNode result = scope.path("result");
        if (result.has("classes")) {
            out.append(String.format(java.util.Locale.ROOT, "  classes (round %d): %d, reduction factor %.2f%n",
                    scope.path("result_round").asLong(), result.path("classes").asInt(), result.path("reduction_factor").asDouble()));
            for (JsonNode c : result.path("class_list")) {
                out.append(String.format(java.util.Locale.ROOT, "    class %s: %d ranks %s, events %s%n", c.path("id").asText(),
                        c.path("rank_count").asInt(), c.path("members"), fieldNames(c.path("events"))));
            }
        }
        String filter = scope.path("filter").asText();
        if (filter.equals("stats")) {
            out.append(statsTable(scope));
        } else if (filter.startsWith("hist:") && result.has("events")) {
            out.append(String.format(java.util.Locale.ROOT, "  histograms (round %d), equal-width bins of t_up - t_down:%n",
                    scope.path("result_round").asLong()));
            result.path("events").fields().forEachRemaining(e -> out.append(String.format(java.util.Locale.ROOT,
                    "    %-52s %9.2f … %9.2f µs: %s%n", e.getKey(), e.getValue().path("min").asDouble(),
                    e.getValue().path("max").asDouble(), e.getValue().path("bins"))));
        }
        if (scope.has("error")) {
            out.append("  scope error: ").append(scope.path("error").asText()).append('\n');
        }
        return out.toString();
    }
}
