package org.eventspace.ui;

import java.util.List;
import java.util.Optional;

import org.eventspace.base.json.Json;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.job.MonitoredJob;
import org.eventspace.monitor.JobModel;
import org.eventspace.monitor.MonitorSnapshot;
import org.eventspace.monitor.Monitors;
import org.eventspace.monitor.model.RunModel;
import org.eventspace.net.Fabric;
import org.eventspace.net.HostMapping;
import org.eventspace.net.LinkLoads;
import org.eventspace.net.TrafficMatrix;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A {@link DashboardSource} over a job running in this process: {@link MonitoredJob#snapshot()} for the scope and
 * {@link Monitors#snapshot()} merged by {@link MonitorSnapshot#report} for the monitors block. Both are snapshots any
 * thread may take while the ranks run; neither blocks a rank. Thread-safe; {@link #finished()} may be called from any
 * thread.
 */
public final class LiveJobSource implements DashboardSource {
    private static final ObjectMapper JSON = Json.mapper();

    private final MonitoredJob job;
    private final Monitors monitors;
    private final RunInfo info;
    private volatile boolean running = true;
    private volatile JsonNode finalMonitors;
    private volatile JsonNode finalScope;
    private volatile Fabric fabric;
    private volatile RunModel finalModel;
    private volatile JsonNode lastMonitors;

    /** @param monitors the job's monitors, or null when it runs none. */
    public LiveJobSource(MonitoredJob job, Monitors monitors, RunInfo info) {
        this.job = job;
        this.monitors = monitors;
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
        if (finalMonitors != null) {
            return Optional.of(finalMonitors);
        }
        if (monitors == null) {
            return Optional.empty();
        }
        JsonNode block = MonitorSnapshot.report(List.of(monitors.snapshot().toJson(JSON)), job.pathmap(), JSON);
        lastMonitors = block;
        return Optional.of(block);
    }

    @Override
    public Optional<JsonNode> scope() {
        if (finalScope != null) {
            return Optional.of(finalScope);
        }
        return job.snapshot().map(s -> s.toJson(JSON));
    }

    /**
     * Routes the job's traffic over {@code topology} in {@link #network()} from now on (the job must count traffic:
     * {@code JobConfig.withTraffic}); its hosts go onto the topology's nodes in order.
     */
    public LiveJobSource withNetwork(Fabric topology) {
        this.fabric = topology;
        return this;
    }

    @Override
    public Optional<JsonNode> network() {
        Fabric f = fabric;
        if (f == null || job.config().traffic() == null) {
            return Optional.empty();
        }
        TrafficMatrix m = TrafficMatrix.of(job.trafficCounters(), job.config().spec());
        LinkLoads loads = LinkLoads.route(f, m.hostMatrix(-1, 0),
                HostMapping.inOrder(m.hostNames(), f));
        return Optional.of(loads.toJson(JSON, f.description(), "live: " + info.name(), "total"));
    }

    @Override
    public boolean running() {
        return running;
    }

    /**
     * The final model once {@link #finalModel} gave it; before, the live model of the monitors block {@link #monitors()}
     * made last (the sampler asks for the block with each frame, then for the model: the frame and the model then agree,
     * and the monitors are merged once a frame, not twice), or of a new block when none was made yet.
     */
    @Override
    public Optional<RunModel> model() {
        RunModel done = finalModel;
        if (done != null) {
            return Optional.of(done);
        }
        JsonNode block = finalMonitors != null ? finalMonitors : lastMonitors;
        return Optional.of(liveModel(job, info, block != null ? block : monitors().orElse(null)));
    }

    /** The live model of {@code job} from its {@code monitors} block (null without monitors): no outcomes yet. */
    static RunModel liveModel(MonitoredJob job, RunInfo info, JsonNode monitors) {
        int[] hostOf = new int[job.config().spec().ranks()];
        for (int r = 0; r < hostOf.length; r++) {
            hostOf[r] = job.config().spec().hostOf(r);
        }
        return JobModel.of(new JobModel.Job(info.name(), hostOf, info.hosts(), job.config().transport().label(), null),
                monitors, null, List.of(), 0, 0);
    }

    /** The run's final model, once its report exists: served from now on. */
    public void finalModel(RunModel model) {
        this.finalModel = model;
    }

    /**
     * The job's ranks returned: keep {@code monitors} (the final {@code monitors} block, or null) and {@code scope} (the
     * final scope block, or null) and serve them from now on, since the job's snapshots end with it.
     */
    public void finished(JsonNode finalMonitorsBlock, JsonNode finalScopeBlock) {
        this.finalMonitors = finalMonitorsBlock;
        this.finalScope = finalScopeBlock;
        running = false;
    }
}
