package org.eventspace.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

import org.eventspace.job.JobConfig;
import org.eventspace.run.RunConfig;
import org.eventspace.run.Workload;
import org.eventspace.monitor.MonitorSummary;
import org.eventspace.wan.cluster.AllreduceInput;
import org.eventspace.wan.cluster.ClusterAllreduce;
import org.eventspace.run.MultiClusterRun;
import org.eventspace.base.json.Json;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import picocli.CommandLine.Option;

/**
 * {@code run noise-allreduce|sor --allreduce sequential|magpie|conditional}: the multi-cluster allreduce workloads of
 * {@link MultiClusterRun}, in one JVM or over TCP; flags checked here, the report {@value MultiClusterRun#SCHEMA}.
 * With {@code --monitor} the run engine runs the monitors with them, as with any workload, and the report gains their
 * {@code monitors} block, gathered live through the WAN's gateways.
 */
final class WanAllreduceRun {
    @Option(names = "--allreduce", paramLabel = "MODE", description = "noise-allreduce and sor: how the clusters' trees "
            + "are joined: sequential (one hier tree over every cluster), magpie (each cluster root sends its partial "
            + "result to every other root) or conditional (magpie, and the convergence test decided as early as it can "
            + "be: dissertation appendix 7.3). Default for noise-allreduce: sequential.")
    String allreduce;

    @Option(names = "--input", paramLabel = "FILE", description = "noise-allreduce: the values per iteration and "
            + "epsilon (eventspace-allreduce-input 1, docs/MULTI-CLUSTER.md). Default: examples/wan/converging.input.")
    Path input;

    @Option(names = "--compute-us", paramLabel = "USEC", description = "noise-allreduce and sor with --allreduce: the "
            + "fixed compute time of every iteration, µs. Default: ${DEFAULT-VALUE}.", defaultValue = "10000")
    long computeMicros;

    @Option(names = "--epsilon", description = "sor with --allreduce: iterate while the sum of |change| over the grid "
            + "exceeds this. Default: ${DEFAULT-VALUE}.", defaultValue = "0.05")
    double epsilon;

    boolean wanted(String benchmark) {
        return benchmark.equals("noise-allreduce") || allreduce != null;
    }

    int run(String benchmark, RunOptions options) throws IOException {
        MultiClusterRun.Workload workload = switch (benchmark) {
            case "noise-allreduce" -> MultiClusterRun.Workload.NOISE_ALLREDUCE;
            case "sor" -> MultiClusterRun.Workload.SOR;
            default -> throw new UsageError("--allreduce is for noise-allreduce and sor, not " + benchmark);
        };
        ClusterAllreduce mode;
        try {
            mode = ClusterAllreduce.parse(allreduce == null ? "sequential" : allreduce);
        } catch (IllegalArgumentException e) {
            throw new UsageError("--allreduce: " + e.getMessage());
        }
        if (computeMicros < 0 || computeMicros > 10_000_000) {
            throw new UsageError("--compute-us must be 0..10000000, got " + computeMicros);
        }
        if (!(epsilon > 0) || !Double.isFinite(epsilon)) {
            throw new UsageError("--epsilon must be a finite number > 0, got " + epsilon);
        }
        AllreduceInput values = null;
        if (workload == MultiClusterRun.Workload.NOISE_ALLREDUCE) {
            try {
                values = AllreduceInput.read(input != null ? input : defaultInput());
            } catch (IllegalArgumentException e) {
                throw new UsageError("--input: " + e.getMessage());
            }
        }
        RunConfig runConfig = options.toConfig(Workload.SOR);
        JobConfig job = runConfig.job();
        if (mode != ClusterAllreduce.SEQUENTIAL && job.spec().topology().clusters().size() < 2) {
            throw new UsageError("--allreduce " + mode + " joins clusters and needs --clusters C >= 2");
        }
        MultiClusterRun.Result r;
        try {
            r = MultiClusterRun.run(runConfig, MultiClusterRun.Settings.of(workload, mode, values, epsilon, computeMicros,
                    options.iterations), Duration.ofHours(1));
        } catch (IllegalArgumentException e) {
            throw new UsageError("--allreduce " + mode + ": " + e.getMessage());
        }
        System.out.print(r.summary(job.extension() == null ? null : job.extension().describe()));
        if (r.monitors() != null) {
            System.out.print(MonitorSummary.of(r.monitors(), job.pathmap(), 40));
        }
        if (options.json != null) {
            ObjectMapper json = Json.mapper();
            ObjectNode doc = r.toJson(json, job.extension() == null ? null : job.extension().argument(), computeMicros);
            OutputFiles.write(options.json, "--json", file -> Json.pretty().writeValue(file.toFile(), doc));
        }
        return r.wrongAnswers() == 0 ? EventSpaceCommand.EXIT_OK : EventSpaceCommand.EXIT_FAILURE;
    }

    private static Path defaultInput() {
        String input = "examples/wan/converging.input";
        return ConfigFiles.folderHolding(input).map(p -> p.resolve(input)).orElseThrow(() -> new UsageError(
                "noise-allreduce needs --input FILE (no " + input + " above " + Path.of("").toAbsolutePath() + ")"));
    }
}
