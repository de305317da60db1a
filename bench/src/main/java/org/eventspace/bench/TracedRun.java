package org.eventspace.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.eventspace.trace.RankTrace;
import org.eventspace.trace.Trace;
import org.eventspace.trace.TraceConfig;
import org.eventspace.trace.TraceFile;
import org.eventspace.trace.TracingComm;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code run … --trace FILE}: the benchmark in one JVM with every rank's {@code Comm} decorated by a
 * {@link TracingComm}; after the ranks finished, their traces are merged over a binary tree and written to FILE
 * (ScalaTrace's inter-node compression at finalize, Ratn et al. §2). The merge runs after the timed loop, so it does
 * not perturb the timings, as in the paper ("its overhead ... occurs in MPI_Finalize").
 */
public final class TracedRun {
    /** The run's report and its {@code trace} block. */
    public record Result(RunReport report, Summary trace) {
    }

    /** What the run JSON's {@code trace} block holds. */
    public record Summary(Path file, long bytes, long eventsRecorded, long flatBytes, String timeEncoding, long eventsLost,
                          int groups) {
        public ObjectNode toJson(ObjectMapper json) {
            ObjectNode o = json.createObjectNode();
            o.put("file", file.toString());
            o.put("bytes", bytes);
            o.put("events_recorded", eventsRecorded);
            o.put("flat_bytes", flatBytes);
            o.put("time_encoding", timeEncoding);
            o.put("events_lost", eventsLost);
            o.put("groups", groups);
            return o;
        }

        public String summary() {
            return String.format(java.util.Locale.ROOT,
                    "trace: %s, %d bytes, %d events recorded (flat %d bytes, %.0f× smaller), time encoding %s%s%n", file, bytes,
                    eventsRecorded, flatBytes, bytes == 0 ? 0.0 : (double) flatBytes / bytes, timeEncoding,
                    eventsLost > 0 ? ", " + eventsLost + " EVENTS LOST (see the file's lost list)" : "");
        }
    }

    private TracedRun() {
    }

    public static Result run(RunConfig config, TraceConfig traceConfig, Path file) {
        if (config.transport() != org.eventspace.job.JobTransport.JVM) {
            throw new IllegalArgumentException("--trace records ranks in one JVM for now: it needs --transport jvm");
        }
        AtomicReferenceArray<TracingComm> comms = new AtomicReferenceArray<>(config.ranks());
        RunReport report = BenchmarkRunner.inJvm(config, (rank, comm) -> {
            TracingComm traced = new TracingComm(comm, traceConfig);
            comms.set(rank, traced);
            return traced;
        });
        List<RankTrace> traces = new ArrayList<>();
        for (int r = 0; r < config.ranks(); r++) {
            TracingComm c = comms.get(r);
            traces.add(c != null ? c.trace() : new RankTrace(r, traceConfig));
        }
        long lost = traces.stream().mapToLong(t -> t.lost() == null ? 0 : t.lost().count()).sum();
        Trace trace = Trace.mergeAll(traces);
        long bytes;
        try {
            bytes = TraceFile.write(trace, file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the trace to " + file + ": " + e.getMessage(), e);
        }
        int groups = TraceFile.toJson(trace).path("groups").size();
        return new Result(report, new Summary(file, bytes, trace.eventsRecorded(), trace.flatBytes(),
                traceConfig.encoding().fileName(), lost, groups));
    }
}
