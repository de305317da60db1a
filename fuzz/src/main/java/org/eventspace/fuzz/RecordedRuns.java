package org.eventspace.fuzz;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.eventspace.base.json.Json;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.job.JobConfig;
import org.eventspace.job.JobTransport;
import org.eventspace.monitor.Coschedule;
import org.eventspace.monitor.MonitorKind;
import org.eventspace.run.Faults;
import org.eventspace.run.Monitoring;
import org.eventspace.run.RunConfig;
import org.eventspace.run.TracedRun;
import org.eventspace.run.Workload;
import org.eventspace.trace.EventNode;
import org.eventspace.trace.Op;
import org.eventspace.trace.RankTrace;
import org.eventspace.trace.TimeEncoding;
import org.eventspace.trace.Trace;
import org.eventspace.trace.TraceConfig;
import org.eventspace.trace.TraceFile;
import org.eventspace.trace.TraceFormatException;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The valid inputs the trace-file, run-report and HTTP fuzzers start from, made by the code itself rather than by hand:
 * small runs in this JVM, traced ({@link TracedRun}), each trace written in both encodings, and their reports as
 * {@code run --json} writes them. Two runs: gsum over 4 ranks on 2 hosts with the load-balance and statistics monitors
 * and a slowed rank (so the report has monitors, a verdict and a named slowest rank), traced with histograms; and SOR over
 * 4 ranks, whose trace has point-to-point calls with relative peers, traced with path-sensitive histograms. The trace
 * files add a third, recorded directly: message sizes that change over time and by rank, which the file packs.
 *
 * <p>Made once per JVM (a second or two) and immutable after; thread-safe.
 */
final class RecordedRuns {
    /** A trace file's bytes and the name it was written under ({@code *.json} or {@code *.cbor}). */
    record TraceBytes(String name, byte[] bytes) {
    }

    private static volatile RecordedRuns made;

    private final List<TraceBytes> traces;
    private final List<byte[]> reports;

    private RecordedRuns(List<TraceBytes> traces, List<byte[]> reports) {
        this.traces = List.copyOf(traces);
        this.reports = List.copyOf(reports);
    }

    /** The runs, made on first use. */
    static RecordedRuns get() {
        RecordedRuns r = made;
        if (r == null) {
            synchronized (RecordedRuns.class) {
                r = made;
                if (r == null) {
                    r = record();
                    made = r;
                }
            }
        }
        return r;
    }

    /** Trace files: each run's trace in JSON and in CBOR. */
    List<TraceBytes> traces() {
        return traces;
    }

    /** Run reports ({@code eventspace.run/2}) as {@code run --json} writes them, with their {@code trace} block. */
    List<byte[]> reports() {
        return reports;
    }

    private static RecordedRuns record() {
        JobConfig gsumJob = JobConfig.of(JobConfig.shortcut(4, 2, 1, TreeShape.hier(2)), JobTransport.JVM)
                .withTimeout(Duration.ofSeconds(30));
        RunConfig gsum = new RunConfig(Workload.GSUM, gsumJob, 300, 20, Duration.ZERO, 1, 0)
                .withMonitoring(new Monitoring(Set.of(MonitorKind.LOADBALANCE, MonitorKind.STATS), Coschedule.NONE),
                        new Faults(1, 200, 0, 0));
        JobConfig sorJob = JobConfig.of(JobConfig.shortcut(4, 2, 1, TreeShape.FLAT), JobTransport.JVM).withCollectors(false)
                .withTimeout(Duration.ofSeconds(30));
        RunConfig sor = new RunConfig(Workload.SOR, sorJob, 30, 3, Duration.ZERO, 1, 0);
        List<TraceBytes> traces = new ArrayList<>();
        List<byte[]> reports = new ArrayList<>();
        Path dir = null;
        try {
            dir = Files.createTempDirectory("eventspace-fuzz-runs");
            record(gsum, TimeEncoding.HIST, dir.resolve("gsum.json"), traces, reports);
            record(sor, TimeEncoding.PATH, dir.resolve("sor.json"), traces, reports);
            varyingSizes(dir.resolve("halo-sizes.json"), traces);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot record the fuzzers' runs: " + e.getMessage(), e);
        } finally {
            if (dir != null) {
                try {
                    TraceDumpFuzzer.deleteTree(dir);
                } catch (IOException ignored) {
                    // A temporary directory: the OS cleans it.
                }
            }
        }
        return new RecordedRuns(traces, reports);
    }

    /**
     * A trace no benchmark makes: a 4-rank halo exchange whose message sizes change every 5 steps and differ on every
     * rank, peers by rank halves, so the file holds packed runs ({@code words_runs_table}) and shared parameter lists
     * ({@code params_table}) for the fuzzer to damage.
     */
    private static void varyingSizes(Path file, List<TraceBytes> traces) throws IOException {
        List<RankTrace> ranks = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            RankTrace t = new RankTrace(r, TraceConfig.of(TimeEncoding.HIST));
            for (int step = 0; step < 40; step++) {
                for (int k = 0; k < 3; k++) {
                    long bytes = 24L * (400 + (step / 5) * (r + 1) % 37 + 3 * k);
                    t.record(Op.SEND, 1 + k, -1, r < 2 ? 2 : -2, bytes, EventNode.NONE, 1_000 + r * 10L, 200);
                    t.record(Op.RECV, 4 + k, -1, r < 2 ? 2 : -2, bytes, EventNode.NONE, 50, 300);
                }
                t.record(Op.BARRIER, 7, -1, EventNode.NONE, EventNode.NONE, EventNode.NONE, 100, 20);
            }
            ranks.add(t);
        }
        Trace trace = Trace.mergeAll(ranks);
        TraceFile.write(trace, file);
        traces.add(new TraceBytes(file.getFileName().toString(), Files.readAllBytes(file)));
        Path cbor = file.resolveSibling(file.getFileName().toString().replace(".json", ".cbor"));
        TraceFile.write(trace, cbor);
        traces.add(new TraceBytes(cbor.getFileName().toString(), Files.readAllBytes(cbor)));
    }

    private static void record(RunConfig config, TimeEncoding encoding, Path file, List<TraceBytes> traces,
                               List<byte[]> reports) throws IOException {
        TracedRun.Result result = TracedRun.run(config, TraceConfig.of(encoding), file);
        if (!result.report().resultOk()) {
            throw new IllegalStateException("the fuzzers' " + config.benchmark() + " run failed: " + result.report().errors());
        }
        byte[] json = Files.readAllBytes(file);
        traces.add(new TraceBytes(file.getFileName().toString(), json));
        Path cbor = file.resolveSibling(file.getFileName().toString().replace(".json", ".cbor"));
        try {
            TraceFile.write(TraceFile.read(file), cbor);
        } catch (TraceFormatException e) {
            throw new IllegalStateException("the fuzzers' own trace does not read back: " + e.getMessage(), e);
        }
        traces.add(new TraceBytes(cbor.getFileName().toString(), Files.readAllBytes(cbor)));
        ObjectNode doc = result.report().toJson(Json.mapper());
        doc.set("trace", result.requireTrace().toJson(Json.mapper()));
        reports.add(Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsBytes(doc));
    }
}
