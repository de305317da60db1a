package org.eventspace.ui;

import java.util.Optional;

import org.eventspace.base.json.Json;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.job.MonitoredJob;
import org.eventspace.monitor.Monitors;
import org.eventspace.monitor.model.RunModel;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A {@link DashboardSource} on the process that runs a job's event-scope front-end (host 0), for a job whose other
 * hosts are other processes: the {@code monitors} block is what the scope has gathered of every host's published
 * results ({@link Monitors#live}: the EventSpace paper §4.3's front-end reading the newest state the hosts'
 * analysis threads sent up), the {@code scope} block the front-end's own snapshot. Neither reaches a rank: both read
 * what the front-end already holds. Thread-safe: the sampler reads, the job's thread calls {@link #finishing()}.
 */
public final class GatheredJobSource implements DashboardSource {
    private static final ObjectMapper JSON = Json.mapper();

    private final MonitoredJob job;
    private final RunInfo info;
    private volatile boolean running = true;
    private volatile JsonNode finalMonitors;
    private volatile JsonNode finalScope;
    private volatile JsonNode lastMonitors;

    public GatheredJobSource(MonitoredJob job, RunInfo info) {
        if (!job.runsFrontEnd() && job.config().scope() != null) {
            throw new IllegalArgumentException("host " + job.host() + " does not run the event scope's front-end; host 0 does");
        }
        this.job = job;
        this.info = info;
    }

    @Override
    public RunInfo info() {
        return info;
    }

    @Override
    public Pathmap pathmap() {
        return job.pathmap();
    }

    @Override
    public Optional<JsonNode> monitors() {
        JsonNode frozen = finalMonitors;
        if (frozen != null) {
            return Optional.of(frozen);
        }
        Optional<JsonNode> block = Monitors.live(job, JSON).map(m -> m);
        lastMonitors = block.orElse(null);
        return block;
    }

    @Override
    public Optional<JsonNode> scope() {
        JsonNode frozen = finalScope;
        return frozen != null ? Optional.of(frozen) : job.snapshot().map(s -> s.toJson(JSON));
    }

    @Override
    public boolean running() {
        return running;
    }

    /**
     * The live model of what the scope gathered: of the block {@link #monitors()} made last (the sampler asks for it
     * with each frame, then for the model), else of a new one; read from the front-end, never a rank.
     */
    @Override
    public Optional<RunModel> model() {
        JsonNode block = finalMonitors != null ? finalMonitors : lastMonitors;
        return Optional.of(LiveJobSource.liveModel(job, info, block != null ? block : monitors().orElse(null)));
    }

    /**
     * The job is finishing (its ranks returned; the monitors' last sets are in, or no longer coming): keep what the
     * scope holds now and serve it from now on.
     */
    public void finishing() {
        finalMonitors = Monitors.live(job, JSON).orElse(null);
        finalScope = job.snapshot().map(s -> (JsonNode) s.toJson(JSON)).orElse(null);
        running = false;
    }
}
