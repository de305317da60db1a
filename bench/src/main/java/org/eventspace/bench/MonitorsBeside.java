package org.eventspace.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.eventspace.comm.path.Gred;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.job.JobLauncher;
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
 * from what the event scope gathered through the WAN's gateways). In one JVM, or over TCP in every host process
 * ({@link #main}), whose parts the launcher merges as {@code BenchmarkRunner} merges a TCP run's. One use.
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
            part = m.finalPart(JSON);
            live = !m.central() ? BenchmarkRunner.liveAtEnd(job) : null;
        }
        merge(List.of(part), live, job.pathmap());
    }

    private JsonNode part;
    private JsonNode live;

    private void merge(List<JsonNode> parts, JsonNode liveView, Pathmap pathmap) {
        report = MonitorSnapshot.report(parts, pathmap, JSON);
        if (liveView != null) {
            report.set("live", MonitorSnapshot.liveSection(liveView, report, JSON));
        }
    }

    @Override
    public String hostMain() {
        return MonitorsBeside.class.getName();
    }

    @Override
    public List<String> hostArguments() {
        return List.of(RunConfigCodec.encode(config));
    }

    /** This host's monitors ({@code monitors}) and, on the scope's front-end, what it gathered live ({@code monitors_live}). */
    @Override
    public JsonNode hostReport() {
        ObjectNode o = JSON.createObjectNode();
        o.set("monitors", part);
        if (live != null) {
            o.set("monitors_live", live);
        }
        return o;
    }

    @Override
    public void merged(List<JsonNode> reports, Pathmap pathmap) {
        List<JsonNode> parts = new ArrayList<>();
        JsonNode liveView = null;
        for (JsonNode r : reports) {
            if (r != null && r.has("monitors")) {
                parts.add(r.get("monitors"));
            }
            if (r != null && r.has("monitors_live")) {
                liveView = r.get("monitors_live");
            }
        }
        if (!parts.isEmpty()) {
            merge(parts, liveView, pathmap);
        }
    }

    /** The {@code monitors} block, once the ranks are done (over TCP, once every host reported); null before. */
    public ObjectNode report() {
        return report;
    }

    @Override
    public String toString() {
        return "the monitors " + config.monitoring().kinds();
    }

    /**
     * A host process of a TCP run of a multi-cluster workload with monitors: its last argument is the run's
     * configuration ({@link RunConfigCodec}), the rest the workload's ({@link WanAllreduceBenchmark#host(String[], Beside)}).
     */
    public static void main(String[] args) {
        MonitorsBeside beside;
        try {
            if (args.length < 2) {
                throw new IllegalArgumentException("expected the workload's arguments and the run configuration last");
            }
            beside = new MonitorsBeside(RunConfigCodec.decode(args[args.length - 1]).withJob(JobLauncher.config(args)));
        } catch (IllegalArgumentException e) {
            System.err.println("MonitorsBeside: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.exit(WanAllreduceBenchmark.host(Arrays.copyOf(args, args.length - 1), beside));
    }
}
