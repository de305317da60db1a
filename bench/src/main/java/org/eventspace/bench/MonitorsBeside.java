package org.eventspace.bench;

import java.util.Arrays;
import java.util.List;

import org.eventspace.base.json.Json;
import org.eventspace.comm.path.Gred;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.job.JobLauncher;
import org.eventspace.job.MonitoredJob;
import org.eventspace.monitor.Coscheduler;
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
    private static final ObjectMapper JSON = Json.mapper();
    private final RunConfig config;
    /** This process's share, once its ranks are done (as {@code BenchmarkRunner} writes a host's). */
    private final ObjectNode share = JSON.createObjectNode();
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
        monitors = BenchmarkRunner.startMonitors(job, config);
    }

    @Override
    public void ranksDone(MonitoredJob job) {
        try (Monitors m = monitors) {
            BenchmarkRunner.putHostMonitors(share, m, job);
        }
        report = BenchmarkRunner.monitorsReport(List.of(share), job.pathmap());
    }

    @Override
    public String hostMain() {
        return MonitorsBeside.class.getName();
    }

    @Override
    public List<String> hostArguments() {
        return List.of(RunConfigCodec.encode(config));
    }

    /** This host's share of the monitors ({@code monitors}, and on the scope's front-end {@code monitors_live}). */
    @Override
    public JsonNode hostReport() {
        return share;
    }

    @Override
    public void merged(List<JsonNode> reports, Pathmap pathmap) {
        report = BenchmarkRunner.monitorsReport(reports, pathmap);
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
