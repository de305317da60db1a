package org.eventspace.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import org.eventspace.base.json.Json;
import org.eventspace.bench.Calibration;
import org.eventspace.bench.ModelValidation;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.sim.Costs;
import org.eventspace.sim.Predictions;
import org.eventspace.sim.ScopeConfig;
import org.eventspace.sim.ScopePrediction;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code eventspace simulate}: what monitoring costs at scales this machine cannot run, from a discrete-event model
 * calibrated on measured costs (docs/SIMULATION.md).
 */
@Command(name = "simulate", mixinStandardHelpOptions = true,
        description = "Predicts allreduce latency, the collectors' overhead, an event scope's gather rate, front-end load "
                + "and saturation point at 10^3-10^6 ranks from a discrete-event model of the trees, hops, waits and "
                + "scopes (docs/SIMULATION.md). --calibrate measures this machine's costs and writes --costs FILE; "
                + "--validate runs gsum for real at --cases and prints the model's error.")
final class SimulateCommand implements Callable<Integer> {
    @Option(names = "--calibrate", description = "Measure this machine's costs (about a minute) and write them to --costs.")
    boolean calibrate;

    @Option(names = "--validate", description = "Run gsum for real at each of --cases and compare with the model.")
    boolean validate;

    @Option(names = "--costs", paramLabel = "FILE", description = "Cost file (eventspace.costs/1) to write with "
            + "--calibrate or to read. Default when reading: the costs measured on the reference machine "
            + "(docs/SIMULATION.md); with --calibrate: costs.json.")
    Path costsFile;

    @Option(names = "--machine", paramLabel = "TEXT", description = "With --calibrate: what the costs are measured on "
            + "(written in the file). Default: the CPU model and cores from /proc/cpuinfo.")
    String machine;

    @Option(names = "--measured", paramLabel = "FILE", description = "With --validate: do not run anything; simulate "
            + "again the cases of an earlier --validate --json FILE against the measurements it holds (after a "
            + "change of the cost file or the model).")
    Path measured;

    @Option(names = "--cases", split = ",", paramLabel = "R/H/jvm|tcp",
            description = "With --validate: runs to compare, ranks/hosts/transport. Default: 8/1/jvm, 64/8/jvm, "
                    + "256/32/jvm, 1024/128/jvm, 8/2/tcp, 64/8/tcp, 256/16/tcp.")
    List<String> cases;

    @Option(names = "--gather-cases", split = ",", paramLabel = "R/H/jvm",
            description = "With --validate: scopes to compare (a flat sequential scope over buffers of 2 tuples, in one "
                    + "JVM). Default: 16/16/jvm, 64/8/jvm, 256/32/jvm, 1024/128/jvm; none with --measured.")
    List<String> gatherCases;

    @Option(names = "--ranks", split = ",", defaultValue = "1024,100000,1000000", paramLabel = "N",
            description = "Job sizes to predict. Default: ${DEFAULT-VALUE}.")
    List<Integer> ranks;

    @Option(names = "--ranks-per-host", defaultValue = "32", description = "Ranks on each host. Default: ${DEFAULT-VALUE}.")
    int ranksPerHost;

    @Option(names = "--cores-per-host", defaultValue = "32", description = "Cores of each host. Default: ${DEFAULT-VALUE}.")
    int coresPerHost;

    @Option(names = "--tree", split = ",", defaultValue = "hier:8,butterfly", paramLabel = "SHAPE",
            description = "Allreduce trees to compare (as run --tree). Default: ${DEFAULT-VALUE}. A wide tree is slow to "
                    + "simulate at 10^6 ranks (hier:32: minutes): its hosts' many hop threads poll, and each poll is an "
                    + "event.")
    List<String> trees;

    @Option(names = "--scope", split = ",", defaultValue = "flat,kary:8,hier:8", paramLabel = "SHAPE",
            description = "Event scopes to compare (as run --scope). Default: ${DEFAULT-VALUE}.")
    List<String> scopes;

    @Option(names = "--helpers", split = ",", defaultValue = "0,8", paramLabel = "N",
            description = "Helper threads a gather (0 = --gather seq, N = par:N). Default: ${DEFAULT-VALUE}.")
    List<Integer> helpers;

    @Option(names = "--load", split = ",", defaultValue = "tuples,results", paramLabel = "LOAD",
            description = "What the scopes gather: tuples (every collector's tuples, concatenated, from buffers of 4096) "
                    + "or results (the monitors' results, one record per collector every 100 ms, newest only). Default: "
                    + "${DEFAULT-VALUE}.")
    List<String> loads;

    @Option(names = "--network-us", split = ",", paramLabel = "SEND,RECEIVE,WIRE",
            description = "A real interconnect's costs in µs instead of the cost file's loopback TCP: CPU to send and to "
                    + "receive a small message, and its one-way latency beyond both (e.g. 1,1,2 for a fast cluster).")
    List<Double> network;

    @Option(names = "--iterations", defaultValue = "10", description = "Allreduces simulated per prediction (a fifth "
            + "untimed). Default: ${DEFAULT-VALUE}.")
    int iterations;

    @Option(names = "--json", paramLabel = "FILE", description = "Write the predictions (eventspace.simulate/1) or the "
            + "validation (eventspace.simulate-validation/1) as JSON.")
    Path json;

    @Override
    public Integer call() throws Exception {
        ObjectMapper mapper = Json.mapper();
        if (calibrate) {
            Path out = costsFile == null ? Path.of("costs.json") : costsFile;
            Costs costs = new Calibration(System.out::println, Duration.ofMillis(500))
                    .run(machine == null ? Calibration.machineName() : machine);
            costs.write(out);
            System.out.println("costs written to " + out);
            return 0;
        }
        Costs costs;
        try {
            costs = costsFile == null ? Costs.reference() : Costs.read(costsFile);
        } catch (Costs.CostFileException e) {
            throw new UsageError("--costs " + e.getMessage());
        }
        if (network != null) {
            if (network.size() != 3 || network.stream().anyMatch(v -> !(v >= 0))) {
                throw new UsageError("--network-us needs three numbers >= 0: SEND,RECEIVE,WIRE, got " + network);
            }
            costs = costs.withNetwork(network.get(0) * 1000, network.get(1) * 1000, network.get(2) * 1000);
        }
        // Every flag checked before the first line of output, so a usage error is the only thing printed.
        List<ModelValidation.Case> parsed = List.of();
        List<ModelValidation.Case> parsedGather = List.of();
        if (validate) {
            parsed = cases("--cases", cases == null ? ModelValidation.DEFAULT_CASES : cases, false);
            parsedGather = cases("--gather-cases", gatherCases != null ? gatherCases
                    : measured != null ? List.of() : ModelValidation.DEFAULT_GATHER_CASES, true);
            if (measured != null && cases != null) {
                throw new UsageError("--measured replays the cases of its file: give --cases or --measured, not both");
            }
        }
        System.out.println("costs: " + costs.machine() + (costs.date().isEmpty() ? "" : ", " + costs.date()));
        if (validate) {
            List<ModelValidation.Row> rows;
            if (measured != null) {
                try {
                    rows = ModelValidation.rerun(costs, mapper.readTree(measured.toFile()), measured.toString(),
                            System.out::println);
                } catch (JsonProcessingException | IllegalArgumentException e) {
                    throw new UsageError("--measured " + (e instanceof JsonProcessingException j
                            ? measured + ": not JSON: " + j.getOriginalMessage() : e.getMessage()));
                }
            } else {
                rows = ModelValidation.run(costs, parsed, System.out::println);
            }
            long within = rows.stream().filter(ModelValidation.Row::withinBar).count();
            System.out.printf(Locale.ROOT, "%d of %d cases within ±15 %% of the measured mean%n", within, rows.size());
            List<ModelValidation.GatherRow> gatherRows = ModelValidation.gather(costs, parsedGather, System.out::println);
            if (!gatherRows.isEmpty()) {
                long gatherWithin = gatherRows.stream().filter(ModelValidation.GatherRow::withinBar).count();
                System.out.printf(Locale.ROOT, "%d of %d gather rates within ±15 %% of the measured%n", gatherWithin,
                        gatherRows.size());
            }
            if (json != null) {
                Json.pretty().writeValue(json.toFile(), ModelValidation.toJson(costs, rows, gatherRows, mapper));
            }
            return 0;
        }
        return predict(costs, mapper);
    }

    /** {@code texts} as validation cases, each in one JVM if {@code oneJvm}; a bad one is a usage error of {@code flag}. */
    private static List<ModelValidation.Case> cases(String flag, List<String> texts, boolean oneJvm) {
        List<ModelValidation.Case> parsed = new ArrayList<>();
        for (String c : texts) {
            try {
                ModelValidation.Case parsedCase = ModelValidation.Case.parse(c);
                parsed.add(oneJvm ? parsedCase.requireOneJvm() : parsedCase);
            } catch (IllegalArgumentException e) {
                throw new UsageError(flag + ": " + e.getMessage());
            }
        }
        return parsed;
    }

    private int predict(Costs costs, ObjectMapper mapper) throws IOException {
        if (ranksPerHost < 1 || coresPerHost < 1 || iterations < 2) {
            throw new UsageError("--ranks-per-host and --cores-per-host must be >= 1 and --iterations >= 2");
        }
        List<Predictions.Job> jobs = new ArrayList<>();
        for (int r : ranks) {
            if (r < ranksPerHost || r % ranksPerHost != 0) {
                throw new UsageError("--ranks " + r + " is not a multiple of --ranks-per-host " + ranksPerHost);
            }
            jobs.add(new Predictions.Job(r, ranksPerHost, coresPerHost, iterations));
        }
        List<TreeShape> treeShapes = shapes("--tree", trees);
        List<TreeShape> scopeShapes = shapes("--scope", scopes);
        for (int h : helpers) {
            if (h < 0 || h > ScopeConfig.MAX_HELPERS) {
                throw new UsageError("--helpers must be 0.." + ScopeConfig.MAX_HELPERS + ", got " + h);
            }
        }
        List<Predictions.Load> parsedLoads = new ArrayList<>();
        for (String l : loads) {
            switch (l) {
                case "tuples" -> parsedLoads.add(Predictions.Load.TUPLES);
                case "results" -> parsedLoads.add(Predictions.Load.RESULTS);
                default -> throw new UsageError("--load is tuples or results, got '" + l + "'");
            }
        }
        Predictions.Result result = Predictions.predict(costs, jobs, treeShapes, scopeShapes, helpers, parsedLoads);
        System.out.printf(Locale.ROOT, "%d ranks a host of %d cores; gsum, collectors on every edge; TCP between hosts "
                + "(send %.1f µs, receive %.1f µs, wire %.1f µs)%n%n", ranksPerHost, coresPerHost, costs.sendNs() / 1000,
                costs.receiveNs() / 1000, costs.wireNs() / 1000);
        System.out.println("allreduce             ranks   collectors off    on     overhead  collectors/host");
        for (Predictions.TreeRow r : result.trees()) {
            System.out.printf(Locale.ROOT, "  %-14s %,12d  %10.1f µs %8.1f µs  %+6.2f %%   %5d%s%n", r.tree(), r.ranks(),
                    r.offNs() / 1000, r.onNs() / 1000, r.overheadPct(), r.collectorsPerHost(), r.whole() ? "" : "  (host + tree)");
        }
        System.out.println();
        System.out.println("event scope      load         ranks      round  gather rate    front-end  FE CPU   saturates at");
        for (Predictions.ScopeRow r : result.scopes()) {
            ScopePrediction p = r.prediction();
            System.out.printf(Locale.ROOT, "  %-8s %-5s %-7s %,12d %9.2f ms  %8.1f %%  %8.2f MB/s  %4.0f %%   %s%n", r.scope(),
                    r.helpers() == 0 ? "seq" : "par:" + r.helpers(), r.load(), r.ranks(), p.roundNs() / 1e6,
                    100 * p.gatherRate(),
                    p.frontEndBytesPerSecond() / 1e6, 100 * p.frontEndCpuShare(),
                    r.saturationRanks() < 0 ? "not below 4,000,000 ranks"
                            : String.format(Locale.ROOT, "%,d ranks (%s)", r.saturationRanks(), r.saturation().cause()));
        }
        System.out.println();
        for (String a : result.advice()) {
            System.out.println("recommended at " + a);
        }
        if (json != null) {
            Json.pretty().writeValue(json.toFile(), toJson(costs, result, mapper));
        }
        return 0;
    }

    private static List<TreeShape> shapes(String flag, List<String> texts) {
        List<TreeShape> out = new ArrayList<>();
        for (String t : texts) {
            try {
                out.add(TreeShape.parse(t));
            } catch (IllegalArgumentException e) {
                throw new UsageError(flag + ": " + e.getMessage());
            }
        }
        return out;
    }

    private ObjectNode toJson(Costs costs, Predictions.Result result, ObjectMapper mapper) {
        ObjectNode root = mapper.createObjectNode();
        root.put("schema", "eventspace.simulate/1");
        root.put("machine", costs.machine());
        root.put("ranks_per_host", ranksPerHost);
        root.put("cores_per_host", coresPerHost);
        ObjectNode c = root.putObject("costs");
        costs.asMap().forEach(c::put);
        ArrayNode t = root.putArray("trees");
        for (Predictions.TreeRow r : result.trees()) {
            ObjectNode o = t.addObject();
            o.put("ranks", r.ranks());
            o.put("tree", r.tree().toString());
            o.put("latency_off_us", r.offNs() / 1000);
            o.put("latency_on_us", r.onNs() / 1000);
            o.put("overhead_pct", r.overheadPct());
            o.put("collectors_per_host", r.collectorsPerHost());
            o.put("simulated_whole", r.whole());
        }
        ArrayNode s = root.putArray("scopes");
        for (Predictions.ScopeRow r : result.scopes()) {
            ScopePrediction p = r.prediction();
            ObjectNode o = s.addObject();
            o.put("ranks", r.ranks());
            o.put("scope", r.scope().toString());
            o.put("gather", r.helpers() == 0 ? "seq" : "par:" + r.helpers());
            o.put("load", r.load().toString());
            o.put("round_ms", p.roundNs() / 1e6);
            o.put("gather_rate", p.gatherRate());
            o.put("front_end_bytes_per_s", p.frontEndBytesPerSecond());
            o.put("front_end_cpu_share", p.frontEndCpuShare());
            o.put("bound", p.bound().name().toLowerCase(Locale.ROOT));
            if (r.saturationRanks() >= 0) {
                o.put("saturates_at_ranks", r.saturationRanks());
            } else {
                o.putNull("saturates_at_ranks");
            }
            o.put("saturation_cause", r.saturation().cause());
        }
        root.putPOJO("advice", result.advice());
        return root;
    }
}
