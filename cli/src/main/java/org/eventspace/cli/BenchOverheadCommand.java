package org.eventspace.cli;

import java.util.List;
import java.util.concurrent.Callable;

import org.eventspace.run.Workload;
import org.eventspace.bench.CollectorOverhead;
import org.eventspace.bench.InterleavedOverhead;
import org.eventspace.bench.PaperTables;
import org.eventspace.run.RunConfig;
import org.eventspace.trace.TimeEncoding;
import org.eventspace.trace.TraceConfig;
import org.eventspace.base.json.Json;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code eventspace bench overhead}: runs with collectors off and on, interleaved; the median overhead. */
@Command(name = "overhead", mixinStandardHelpOptions = true,
        description = "Run a benchmark with collectors off and on, alternately, --repeats times each; print the overhead "
                + "(median over the pairs, and its spread). --json writes eventspace.bench-overhead/1 (not the run report); "
                + "--collectors is ignored (both sides run); --trace-dump applies to the on-runs.")
final class BenchOverheadCommand implements Callable<Integer> {
    @Option(names = "--benchmark", defaultValue = "gsum", description = "gsum or compute-gsum. Default: ${DEFAULT-VALUE}.")
    String benchmark;

    @Option(names = "--repeats", defaultValue = "5", description = "Runs per side, interleaved off, on, off, on, … Default: ${DEFAULT-VALUE}.")
    int repeats;

    @Option(names = "--interleave", paramLabel = "BLOCK", defaultValue = "0", description = "Instead of separate runs: one "
            + "run whose calls alternate between a tree with collectors (and --monitor's analysis) and one without, "
            + "summed in blocks of BLOCK pairs; reports the paired difference with a 95 %% confidence interval over the "
            + "blocks (--iterations pairs in all). 0: separate runs. Default: ${DEFAULT-VALUE}.")
    int interleave;

    @Option(names = "--record", paramLabel = "ENCODING", description = "With --interleave: measure the trace recorder "
            + "(run --trace) instead of the collectors: calls alternate between a recording Comm (time encoding stats, "
            + "hist or path) and the bare one, no collectors on either tree; in one JVM or over TCP.")
    String record;

    @Option(names = "--table", paramLabel = "N", defaultValue = "0", description = "The EventSpace paper's Table N (1: "
            + "load balance with one event scope, the central analysis; 2: load balance with distributed analysis; 3: "
            + "the statistics monitor: analysis threads, coscheduling, sequential and parallel gathering): every row by "
            + "both methods (--repeats separate off/on pairs, and an interleaved crossover in blocks of --interleave, "
            + "default 500), printed as a Markdown table beside the paper's figures; --json writes "
            + "eventspace.bench-paper-table/1. The rows set --monitor, --coschedule, --analysis and --gather themselves. "
            + "0: no table. Default: ${DEFAULT-VALUE}.")
    int table;

    @Mixin
    RunOptions options;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (record != null && (interleave == 0 || table != 0)) {
            throw new UsageError("--record " + record + " needs --interleave BLOCK (and no --table)");
        }
        if (table != 0) {
            return paperTable();
        }
        // --traffic with --collectors off and --interleave: the traffic counters alone are measured.
        boolean countersAlone = options.traffic != null && interleave != 0 && record == null
                && "off".equals(options.layout.collectors);
        if (spec.commandLine().getParseResult().hasMatchedOption("--collectors") && !countersAlone) {
            spec.commandLine().getErr().println("eventspace: bench overhead: --collectors " + options.layout.collectors
                    + " is ignored: every pair runs with collectors off, then on");
        }
        if (!benchmark.equals("gsum") && !benchmark.equals("compute-gsum")) {
            throw new UsageError("--benchmark must be gsum or compute-gsum, got " + benchmark);
        }
        Workload kind = Workload.parse(benchmark);
        if (options.traffic != null && (interleave == 0 || record != null)) {
            throw new UsageError("--traffic " + options.traffic + " with bench overhead needs --interleave BLOCK (the "
                    + "counters then count the monitored tree's messages, with its collectors or, with --collectors off, "
                    + "alone; FILE gets the first run's matrix); for one run's communication matrix use run --traffic");
        }
        if (repeats < 1) {
            throw new UsageError("--repeats must be >= 1, got " + repeats);
        }
        RunConfig config = options.toConfig(kind);
        ObjectMapper mapper = Json.mapper();
        if (interleave != 0) {
            if (kind != Workload.GSUM) {
                throw new UsageError("--interleave runs gsum; --benchmark " + benchmark + " cannot interleave");
            }
            if (interleave < 1 || options.iterations % interleave != 0 || options.iterations / interleave < 10) {
                throw new UsageError("--interleave " + interleave + " must be >= 1 and divide --iterations "
                        + options.iterations + " into at least 10 blocks");
            }
            ObjectNode report;
            if (record != null) {
                TraceConfig traceConfig;
                try {
                    traceConfig = TraceConfig.of(TimeEncoding.parse(record));
                } catch (IllegalArgumentException e) {
                    throw new UsageError("--record: " + e.getMessage());
                }
                try {
                    report = InterleavedOverhead.runRecording(config, interleave, traceConfig, mapper);
                } catch (IllegalArgumentException e) {
                    throw new UsageError("--record: " + e.getMessage());
                }
            } else {
                RunConfig interleaved;
                try {
                    // Collectors on the measured tree, unless the counters alone are measured.
                    interleaved = InterleavedOverhead.config(config.withCollectors(!countersAlone), interleave);
                } catch (IllegalArgumentException e) {
                    throw new UsageError("--interleave: " + e.getMessage());
                }
                report = InterleavedOverhead.run(interleaved, mapper, options.traffic);
            }
            System.out.print(InterleavedOverhead.summary(report));
            if (options.json != null) {
                Json.pretty().writeValue(options.json.toFile(), report);
            }
            return report.path("result_ok").asBoolean() ? EventSpaceCommand.EXIT_OK : EventSpaceCommand.EXIT_FAILURE;
        }
        ObjectNode report = new CollectorOverhead(config, repeats).run(mapper, System.err::println);
        System.out.print(CollectorOverhead.summary(report));
        if (options.json != null) {
            Json.pretty().writeValue(options.json.toFile(), report);
        }
        return report.path("result_ok").asBoolean() ? EventSpaceCommand.EXIT_OK : EventSpaceCommand.EXIT_FAILURE;
    }

    /** {@code --table N}: the paper's table, every row by both methods. */
    private Integer paperTable() throws Exception {
        for (String flag : List.of("--monitor", "--coschedule", "--analysis", "--gather", "--scope", "--filter", "--benchmark")) {
            if (spec.commandLine().getParseResult().hasMatchedOption(flag)) {
                throw new UsageError("--table " + table + " sets " + flag + " itself, row by row; drop " + flag);
            }
        }
        if (table < 1 || table > 3) {
            throw new UsageError("--table must be 1, 2 or 3 (the EventSpace paper's Tables 1-3), got " + table);
        }
        if (repeats < 1) {
            throw new UsageError("--repeats must be >= 1, got " + repeats);
        }
        int block = interleave == 0 ? 500 : interleave;
        if (block < 1 || options.iterations % block != 0 || options.iterations / block < 10) {
            throw new UsageError("--interleave " + block + " must be >= 1 and divide --iterations " + options.iterations
                    + " into at least 10 blocks");
        }
        RunConfig base = options.toConfig(Workload.GSUM).withCollectors(true);
        ObjectMapper mapper = Json.mapper();
        ObjectNode doc = PaperTables.run(table, base, repeats, block, mapper, System.err::println);
        System.out.print(PaperTables.markdown(doc));
        if (options.json != null) {
            Json.pretty().writeValue(options.json.toFile(), doc);
        }
        return doc.path("result_ok").asBoolean() ? EventSpaceCommand.EXIT_OK : EventSpaceCommand.EXIT_FAILURE;
    }
}
