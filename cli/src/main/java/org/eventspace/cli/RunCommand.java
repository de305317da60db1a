package org.eventspace.cli;

import java.io.IOException;
import java.util.concurrent.Callable;

import org.eventspace.run.Workload;
import org.eventspace.run.RunEngine;
import org.eventspace.run.RunConfig;
import org.eventspace.run.RunReport;
import org.eventspace.run.TracedRun;
import org.eventspace.job.JobTransport;
import org.eventspace.net.TrafficMatrix;
import org.eventspace.base.json.Json;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code eventspace run gsum|compute-gsum|pingpong|sor|alltoall [flags]}. */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Run a benchmark (gsum, compute-gsum, pingpong, sor, alltoall) and print a summary; --json writes "
                + "eventspace.run/2, --traffic the communication matrix.")
final class RunCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "BENCHMARK", description = "gsum, compute-gsum, pingpong, sor, alltoall or noise-allreduce")
    String benchmark;

    @Mixin
    RunOptions options;

    @Mixin
    ServeOptions serve = new ServeOptions();

    @picocli.CommandLine.Option(names = "--topology", paramLabel = "TOPO", description = "With --serve and --traffic "
            + "(one JVM): route the traffic the job counts over this network (docs/TOPOLOGY-FORMAT.md; hosts onto its "
            + "nodes in order) and draw it in the dashboard's network pane while the job runs.")
    java.nio.file.Path topology;

    @Mixin
    TraceRunOptions traceOptions = new TraceRunOptions();

    @Mixin
    WanAllreduceRun wanAllreduce = new WanAllreduceRun();

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        if (wanAllreduce.wanted(benchmark)) {
            // The multi-cluster workloads run their own loop: refuse, by name, the flags of the other benchmarks that
            // it would otherwise accept and ignore.
            java.util.List<String> ignored = new java.util.ArrayList<>();
            for (String flag : new String[] {"--slow-rank", "--noise", "--traffic",
                    "--trace", "--serve", "--linger", "--topology", "--warmup", "--warmup-s", "--bytes"}) {
                if (spec.commandLine().getParseResult().hasMatchedOption(flag)) {
                    ignored.add(flag);
                }
            }
            if (benchmark.equals("noise-allreduce") && spec.commandLine().getParseResult().hasMatchedOption("--iterations")) {
                ignored.add("--iterations (noise-allreduce runs one iteration per value of its --input file)");
            }
            if (!ignored.isEmpty()) {
                throw new UsageError(benchmark + " with --allreduce runs the multi-cluster workload alone (docs/MULTI-CLUSTER.md), "
                        + "which does not take " + String.join(", ", ignored) + " yet");
            }
            return wanAllreduce.run(benchmark, options);
        }
        Workload kind;
        try {
            kind = Workload.parse(benchmark);
        } catch (IllegalArgumentException e) {
            throw new UsageError(e.getMessage());
        }
        RunConfig config = options.toConfig(kind);
        serve.check();
        if (topology != null) {
            serve.network(topology, config);
        }
        traceOptions.check();
        if (traceOptions.enabled() && serve.enabled()) {
            throw new UsageError("--trace and --serve: a traced run is not served yet; run it without one of them");
        }
        if (serve.enabled() && config.transport() == JobTransport.TCP) {
            serve.lingerServedHere("with host processes (--transport tcp)");
        }
        TracedRun.Result traced = null;
        RunReport report;
        ServeOptions.Served served = null;
        if (traceOptions.enabled()) {
            traced = TracedRun.run(config, traceOptions.toConfig(config), traceOptions.trace);
            report = traced.report();
        } else if (serve.enabled() && config.transport() == JobTransport.TCP) {
            // Host 0's process serves it from what its event scope gathers of every host; it prints the address.
            report = RunEngine.overTcp(config, serve.hostEnvironment(benchmark, String.format(java.util.Locale.ROOT,
                    "%s, %d ranks on %d host processes, %s trees, %d iterations%s", benchmark, config.ranks(), config.hosts(),
                    config.spec().shape(), config.iterations(), config.monitoring().enabled() ? ""
                            : " (no --monitor: the tree has no figures)"), config.faults().slowRank()));
        } else if (serve.enabled()) {
            // The dashboard lives as long as the run, then serves its final state for --linger (after the summary).
            served = serve.watcher(config, benchmark);
            try {
                report = RunEngine.run(config, served);
            } catch (RuntimeException | Error e) {
                served.close();
                throw e;
            }
        } else {
            report = RunEngine.run(config);
        }
        try {
            if (served != null) {
                served.finalModel(report.model());
            }
            System.out.print(report.summary());
            if (traced != null && traced.trace() != null) {
                System.out.print(traced.trace().summary());
            } else if (traced != null) {
                System.out.println("  error: " + traced.traceError());
            }
            if (options.json != null) {
                TracedRun.Summary trace = traced != null ? traced.trace() : null;
                String traceError = traced != null ? traced.traceError() : null;
                OutputFiles.write(options.json, "--json", file -> writeJson(report, trace, traceError, file.toFile()));
            }
            if (options.traffic != null && report.traffic() != null) {
                OutputFiles.write(options.traffic, "--traffic", file -> writeTraffic(report, config, file));
            }
            System.out.flush();
            if (served != null) {
                served.serveFinalState(report.resultOk(), report.summary().lines().toList(),
                        spec.commandLine().getErr());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (served != null) {
                served.close();
            }
        }
        boolean traceOk = traced == null || traced.trace() != null;
        return report.resultOk() && traceOk ? EventSpaceCommand.EXIT_OK : EventSpaceCommand.EXIT_FAILURE;
    }

    /** The eventspace.traffic/1 file of a {@code --traffic} run, and one line saying what it holds. */
    static void writeTraffic(RunReport report, RunConfig config, java.nio.file.Path file) throws IOException {
        ObjectMapper json = Json.mapper();
        ObjectNode run = json.createObjectNode();
        run.put("benchmark", config.benchmark().label());
        run.put("transport", config.transport().label());
        run.put("tree", config.spec().shape().toString());
        run.put("iterations", config.iterations());
        run.put("warmup", config.warmup());
        run.put("payload_bytes", config.payloadWords() * 8);
        TrafficMatrix m = report.traffic();
        m.write(file, run);
        System.out.printf(java.util.Locale.ROOT, "  traffic (%s): %d B in %d messages between ranks, %d B between hosts, %d phase(s) -> %s%n",
                m.scope(), TrafficMatrix.total(m.rankMatrix(-1, 0)), TrafficMatrix.total(m.rankMatrix(-1, 1)),
                TrafficMatrix.total(m.hostMatrix(-1, 0)), m.phases().size(), file);
    }

    /**
     * The eventspace.run/2 report, with the {@code trace} block of a {@code --trace} run (else null); a {@code --trace}
     * run that could write no trace has {@code "trace": {"error": why}} and fails.
     */
    static void writeJson(RunReport report, TracedRun.Summary trace, String traceError, java.io.File file) throws IOException {
        ObjectMapper json = Json.mapper();
        ObjectNode doc = report.toJson(json);
        if (trace != null) {
            doc.set("trace", trace.toJson(json));
        } else if (traceError != null) {
            doc.putObject("trace").put("error", traceError);
            doc.put("result_ok", false);
        }
        Json.pretty().writeValue(file, doc);
    }
}
