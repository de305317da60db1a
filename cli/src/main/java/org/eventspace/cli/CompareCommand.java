package org.eventspace.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import org.eventspace.base.json.Json;
import org.eventspace.bench.Comparison;
import org.eventspace.bench.MpiBaseline;
import org.eventspace.comm.pathmap.TreeShape;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code eventspace compare}: our allreduce and ping-pong against Open MPI's, same machine, same run. */
@Command(name = "compare", mixinStandardHelpOptions = true,
        description = "Run our benchmarks and the Open MPI baseline interleaved; print the ratio per configuration.")
final class CompareCommand implements Callable<Integer> {
    @Option(names = "--iterations", defaultValue = "20000", description = "Iterations per run. Default: ${DEFAULT-VALUE}.")
    int iterations;

    @Option(names = "--warmup", defaultValue = "10000", description = "Warm-up iterations of our runs. Default: ${DEFAULT-VALUE}.")
    int warmup;

    @Option(names = "--repeats", defaultValue = "3", description = "Interleaved repeats; medians are reported. Default: ${DEFAULT-VALUE}.")
    int repeats;

    @Option(names = "--transport", defaultValue = "all", description = "jvm, tcp or all. Default: ${DEFAULT-VALUE}.")
    String transport;

    @Option(names = "--collectors", defaultValue = "off", description = "Our side's event collectors: off, on, or both "
            + "(each configuration twice in every repeat, off then on). Default: ${DEFAULT-VALUE}.")
    String collectors;

    @Option(names = "--tree", description = "Our tree between host processes (TCP cases): flat, binary, kary:K, hier:K or "
            + "butterfly[:K]. Default: butterfly (one message each way per round, as Open MPI's small-message allreduce).")
    String tree;

    @Option(names = "--bind", defaultValue = "both", description = "TCP cases, both sides: core (each process on a core "
            + "of its own), none, or both (each case bound then unbound in every repeat). Default: ${DEFAULT-VALUE}.")
    String bind;

    @Option(names = "--json", description = "Write the eventspace.compare/1 report to this file.")
    Path json;

    @Override
    public Integer call() throws Exception {
        if (!List.of("jvm", "tcp", "all").contains(transport)) {
            throw new UsageError("--transport must be jvm, tcp or all, got " + transport);
        }
        if (repeats < 1 || iterations < 1) {
            throw new UsageError("--repeats and --iterations must be >= 1");
        }
        MpiBaseline mpi;
        try {
            mpi = new MpiBaseline(projectHome());
        } catch (IllegalArgumentException e) {
            throw new UsageError("compare: " + e.getMessage());
        }
        List<Comparison.Case> cases = Comparison.defaultCases(!transport.equals("jvm"));
        if (transport.equals("tcp")) {
            cases = cases.stream().filter(c -> c.transport().equals("tcp")).toList();
        }
        if (!List.of("core", "none", "both").contains(bind)) {
            throw new UsageError("--bind must be core, none or both, got " + bind);
        }
        if (!bind.equals("both")) {
            String keep = bind;
            cases = cases.stream().filter(c -> !c.transport().equals("tcp") || c.binding().label().equals(keep)).toList();
        }
        if (tree != null) {
            TreeShape shape;
            try {
                shape = TreeShape.parse(tree);
            } catch (IllegalArgumentException e) {
                throw new UsageError("--tree: " + e.getMessage());
            }
            cases = cases.stream().map(c -> c.transport().equals("tcp") ? c.withTree(shape) : c).toList();
        }
        try {
            cases = Comparison.withCollectors(cases, collectors);
        } catch (IllegalArgumentException e) {
            throw new UsageError("--collectors: " + e.getMessage());
        }
        ObjectMapper mapper = Json.mapper();
        ObjectNode report = new Comparison(mpi, iterations, warmup, repeats).run(cases, mapper, System.err::println);
        System.out.print(Comparison.table(report));
        if (json != null) {
            Json.pretty().writeValue(json.toFile(), report);
        }
        boolean ok = true;
        for (var row : report.path("cases")) {
            ok &= row.path("result_ok").asBoolean();
        }
        return ok ? EventSpaceCommand.EXIT_OK : EventSpaceCommand.EXIT_FAILURE;
    }

    /** ES_HOME (the eventspace script sets it), else the nearest folder above this one that holds the baseline. */
    private static Path projectHome() {
        String home = System.getenv("ES_HOME");
        if (home != null) {
            return Path.of(home);
        }
        return ConfigFiles.folderHolding("bench/mpi/run-baseline.sh").orElse(Path.of("."));
    }
}
