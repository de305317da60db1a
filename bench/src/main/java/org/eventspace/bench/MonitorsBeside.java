package org.eventspace.bench;

import java.util.List;

import org.eventspace.comm.path.Gred;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.job.MonitoredJob;
import org.eventspace.monitor.Coscheduler;
import org.eventspace.monitor.MonitorSnapshot;
import org.eventspace.monitor.Monitors;
import org.eventspace.wan.cluster.WanAllreduceBenchmark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The monitors of {@code --monitor}, run beside the multi-cluster workloads ({@code run noise-allreduce|sor
 * --allreduce MODE}), which run their own loop in the {@code wan} module and so outside {@link BenchmarkRunner}: the
 * same coscheduler on the job's greds, the same analysis threads started once the job is built, and the same
 * {@code monitors} block when the ranks are done, as a {@code run gsum --monitor} writes (its {@code live} section
 * from what the event scope gathered through the WAN's gateways). In one JVM; one use.
 */
public final class MonitorsBeside implements WanAllreduceBenchmark.Beside {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final RunConfig config;
    private Monitors monitors;
    private ObjectNode report;

    public MonitorsBeside(RunConfig config) {
        if (!config.monitoring().enabled()) {
            throw new IllegalArgumentException("no monitors asked for");
        }
        this.config = config;
    }

    @Override
    public Gred.ReleaseListener listener(Pathmap pathmap) {
        return Coscheduler.of(pathmap, config.monitoring().coschedule());
    }

    @Override
    public void started(MonitoredJob job) {
        monitors = Monitors.start(job, config.monitoring().kinds(), config.monitoring().analysis());
    }

    @Override
    public void ranksDone(MonitoredJob job) {
        try (Monitors m = monitors) {
            JsonNode part = m.finalPart(JSON);
            JsonNode live = !m.central() ? BenchmarkRunner.liveAtEnd(job) : null;
            report = MonitorSnapshot.report(List.of(part), job.pathmap(), JSON);
            if (live != null) {
                report.set("live", MonitorSnapshot.liveSection(live, report, JSON));
            }
        }
    }

    /** The {@code monitors} block, once the ranks are done; null before. */
    public ObjectNode report() {
        return report;
    }
}
