package org.eventspace.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

import org.eventspace.run.MonitorsBeside;
import org.eventspace.job.JobConfig;
import org.eventspace.monitor.MonitorSummary;
import org.eventspace.wan.cluster.AllreduceInput;
import org.eventspace.wan.cluster.ClusterAllreduce;
import org.eventspace.run.WanAllreduceBenchmark;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;

import picocli.CommandLine.Option;

/**
 * {@code run noise-allreduce|sor --allreduce sequential|magpie|conditional}: the multi-cluster allreduce workloads of
 * {@link WanAllreduceBenchmark}, in one JVM or over TCP; flags checked here, the report {@value WanAllreduceBenchmark#SCHEMA}.
 * With {@code --monitor} the monitors run beside them ({@link MonitorsBeside}) and the report gains their
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
        WanAllreduceBenchmark.Workload workload = switch (benchmark) {
            case "noise-allreduce" -> WanAllreduceBenchmark.Workload.NOISE_ALLREDUCE;
            case "sor" -> WanAllreduceBenchmark.Workload.SOR;
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
        if (workload == WanAllreduceBenchmark.Workload.NOISE_ALLREDUCE) {
            try {
                values = AllreduceInput.read(input != null ? input : defaultInput());
            } catch (IllegalArgumentException e) {
                throw new UsageError("--input: " + e.getMessage());
            }
        }
        org.eventspace.run.RunConfig runConfig = options.toConfig(org.eventspace.run.Benchmark.SOR);
        JobConfig job = runConfig.job();
        MonitorsBeside monitors = null;
        if (runConfig.monitoring().enabled()) {
            monitors = new MonitorsBeside(runConfig);
        }
        if (mode != ClusterAllreduce.SEQUENTIAL && job.spec().topology().clusters().size() < 2) {
            throw new UsageError("--allreduce " + mode + " joins clusters and needs --clusters C >= 2");
        }
        WanAllreduceBenchmark.Result r;
        try {
            r = WanAllreduceBenchmark.run(job, workload, mode, values, epsilon, computeMicros, options.iterations,
                    Duration.ofHours(1), monitors != null ? monitors : WanAllreduceBenchmark.Beside.NONE);
        } catch (IllegalArgumentException e) {
            throw new UsageError("--allreduce " + mode + ": " + e.getMessage());
        }
        System.out.printf(Locale.ROOT, "%s, allreduce %s, %d ranks in %d clusters%s: %d iterations, %.1f µs per iteration, "
                        + "%d WAN messages; conditional calls decided on local values %d, by a cached remote value %d, "
                        + "by the sequence-number rule %d, by the full exchange %d (summed over the clusters)%s%n",
                workload.label(), mode, r.ranks(), r.clusters(), job.extension() == null ? "" : ", " + job.extension().describe(),
                r.iterations(), r.usPerIteration(), r.wanMessages(), r.decided()[0], r.decided()[1], r.decided()[2],
                r.decided()[3], r.wrongAnswers() == 0 ? "" : "; " + r.wrongAnswers() + " WRONG ANSWERS");
        ObjectNode monitorsReport = monitors != null ? monitors.report() : null;
        if (monitorsReport != null) {
            System.out.print(MonitorSummary.of(monitorsReport, job.pathmap(), 40));
        }
        if (options.json != null) {
            ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
            ObjectNode doc = json.createObjectNode();
            doc.put("schema", WanAllreduceBenchmark.SCHEMA);
            doc.put("benchmark", workload.label());
            doc.put("allreduce", mode.toString());
            doc.put("ranks", r.ranks());
            doc.put("clusters", r.clusters());
            doc.put("wan", job.extension() == null ? null : job.extension().argument());
            doc.put("compute_us", computeMicros);
            doc.put("iterations", r.iterations());
            doc.put("us_per_iteration", r.usPerIteration());
            doc.put("wan_messages", r.wanMessages());
            doc.put("iterations_decided_locally", r.iterationsDecidedLocally());
            ObjectNode decided = doc.putObject("decided");
            decided.put("local", r.decided()[0]);
            decided.put("cache", r.decided()[1]);
            decided.put("rule", r.decided()[2]);
            decided.put("full_exchange", r.decided()[3]);
            doc.put("wrong_answers", r.wrongAnswers());
            doc.put("checksum", r.checksum());
            if (monitorsReport != null) {
                doc.set("monitors", monitorsReport);
            }
            json.writeValue(options.json.toFile(), doc);
        }
        return r.wrongAnswers() == 0 ? EventSpaceCommand.EXIT_OK : EventSpaceCommand.EXIT_FAILURE;
    }

    private static Path defaultInput() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            Path candidate = p.resolve("examples/wan/converging.input");
            if (java.nio.file.Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        throw new UsageError("noise-allreduce needs --input FILE (no examples/wan/converging.input above "
                + Path.of("").toAbsolutePath() + ")");
    }
}
