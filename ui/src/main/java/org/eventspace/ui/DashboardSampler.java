package org.eventspace.ui;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;
import org.eventspace.monitor.model.RunModel;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The dashboard's one visualisation thread (EventSpace paper §4.3: front-end threads that read the newest state, never
 * the ranks): every period (or ten times the CPU the last frame took, if longer) it takes one frame from {@link DashboardFrames}, serialises it once, keeps it as the newest
 * and hands the text to the listeners (the server-sent-event clients). HTTP requests only read {@link #newest()}, so
 * fifty clients cost the job what one does: one snapshot per period.
 *
 * <p>Role {@code es-dashboard-sampler}; {@link #doWork()} runs on its own thread; {@link #newest()} and
 * {@link #onFrame} may be called from any thread.
 */
public final class DashboardSampler implements Agent {
    /**
     * A frame as served, serialised once: {@code text} is the whole frame (the first event a stream client gets) and
     * {@code bytes} its UTF-8 ({@code /api/v1/frame}); {@code delta} is what the stream sends every period: the frame without the full statistics
     * and with only the scope rounds that are new since the previous frame ({@code "delta": true}), so a page with 256
     * ranks gets tens of kilobytes a frame, not megabytes.
     */
    public record Frame(ObjectNode node, String text, byte[] bytes, String delta, long number) {
    }

    private final DashboardFrames frames;
    private final ObjectMapper json;
    private final long periodNanos;
    private final CopyOnWriteArrayList<Consumer<Frame>> listeners = new CopyOnWriteArrayList<>();
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private volatile Frame newest;
    private volatile JsonNode network;
    private volatile RunModel model;
    private volatile String error;
    private volatile long samplerThreadId = -1;
    private volatile boolean closed;
    private long nextNanos;
    private long lastCpuNanos = -1;
    private long lastWallNanos;

    public DashboardSampler(DashboardFrames frames, ObjectMapper json, long periodMillis) {
        if (periodMillis < 10 || periodMillis > 60_000) {
            throw new IllegalArgumentException("the sampling period must be 10..60000 ms, periodMillis=" + periodMillis);
        }
        this.frames = frames;
        this.json = json;
        this.periodNanos = periodMillis * 1_000_000L;
    }

    @Override
    public String roleName() {
        return "es-dashboard-sampler";
    }

    @Override
    public void onStart() {
        samplerThreadId = Thread.currentThread().getId();
    }

    @Override
    public int doWork() {
        if (closed) {
            throw new AgentTerminationException();
        }
        long now = System.nanoTime();
        if (newest != null && now - nextNanos < 0) {
            return 0;
        }
        long cpu = threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() : 0;
        sampleNow();
        // A frame of a large job costs more (256 ranks: tens of ms of CPU to merge the monitors' block and write it); keep
        // the sampler under a tenth of a core by waiting ten times the CPU the frame took when that is longer than the
        // period. CPU, not wall time: on a loaded machine the wall time is mostly waiting for a core.
        long took = threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() - cpu : 0;
        nextNanos = now + Math.max(periodNanos, 10 * took);
        return 1;
    }

    /**
     * Takes no more frames: its thread ends at its next step (after the frame it is taking, if any: a frame of a large job
     * on a loaded machine can take seconds of a lowered thread's time, which nobody should wait for).
     */
    void close() {
        closed = true;
    }

    /** Takes one frame now, on the caller's thread (the agent's, or a test's). */
    public Frame sampleNow() {
        try {
            JsonNode loads = frames.network().orElse(null);
            ObjectNode node = frames.next(ownCpuPct());
            // The page asks /api/v1/traffic only when there is something to answer (a 404 is an error in its console).
            node.put("traffic_available", loads != null);
            String text = json.writeValueAsString(node);
            Frame f = new Frame(node, text, text.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                    json.writeValueAsString(frames.delta(node)), node.path("frame").asLong());
            network = loads;
            newest = f;
            model = frames.model().orElse(null);
            error = null;
            for (Consumer<Frame> l : listeners) {
                l.accept(f);
            }
            return f;
        } catch (JsonProcessingException | RuntimeException e) {
            // A snapshot that failed (a job ending under us) costs one frame, not the dashboard.
            error = e.toString();
            return newest;
        }
    }

    /**
     * The sampler thread's CPU since the last frame, % of one core (0 until its thread started); the HTTP threads only
     * copy frames out.
     */
    private synchronized double ownCpuPct() {
        long wall = System.nanoTime();
        long id = samplerThreadId;
        long cpu = id >= 0 && threads.isThreadCpuTimeSupported() ? threads.getThreadCpuTime(id) : -1;
        double pct = 0;
        if (lastCpuNanos >= 0 && cpu >= 0 && wall > lastWallNanos) {
            pct = 100.0 * (cpu - lastCpuNanos) / (wall - lastWallNanos);
        }
        lastCpuNanos = cpu;
        lastWallNanos = wall;
        return pct;
    }

    /** The newest frame, or null before the first. */
    public Frame newest() {
        return newest;
    }

    /** The link loads taken with the newest frame ({@link DashboardSource#network()}), or null. */
    public JsonNode network() {
        return network;
    }

    /** The run model taken with the newest frame ({@link DashboardSource#model()}), or null; {@code /metrics} reads it. */
    public RunModel model() {
        return model;
    }

    /** Why the last sample failed, or null. */
    public String error() {
        return error;
    }

    public DashboardFrames frames() {
        return frames;
    }

    /** {@code listener} gets every frame from now on, on the sampler's thread; it must not block for long. */
    public void onFrame(Consumer<Frame> listener) {
        listeners.add(listener);
    }

    public void removeListener(Consumer<Frame> listener) {
        listeners.remove(listener);
    }
}
