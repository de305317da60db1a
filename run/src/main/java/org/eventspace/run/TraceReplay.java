package org.eventspace.run;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import org.eventspace.comm.Comm;
import org.eventspace.job.JobConfig;
import org.eventspace.job.MonitoredJob;
import org.eventspace.job.RankThreads;
import org.eventspace.trace.Op;
import org.eventspace.trace.Replay;
import org.eventspace.trace.RunConditions;
import org.eventspace.trace.Trace;
import org.eventspace.trace.TraceConfig;
import org.eventspace.trace.TraceFile;
import org.eventspace.trace.TraceFormatException;
import org.eventspace.base.json.Json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code trace replay}: a job of the trace's rank count re-issues the trace's calls (ScalaTrace's timed replay, Ratn et
 * al. §3.4), each rank interpreting its part of the compressed trace with a {@link Replay} — in this JVM (simulated
 * hosts) or in one process per host over TCP (a {@link HostWork} of {@link RunEngine}: each host process reads the
 * trace file itself, so only the file's path travels). The replay's wall time is the longest rank's, from its start to the end of its
 * last call, as the original's is ({@code wall_ns} of the trace).
 */
public final class TraceReplay {
    private static final ObjectMapper JSON = Json.mapper();

    /**
     * A replay's outcome: its wall (the longest rank), calls re-issued, what went wrong, and per operation the time its
     * calls took from issue to return summed over the ranks ({@code communicateNanos}, by {@link Op}), and the longest
     * rank's timed span ({@link Replay#timedNanos}; -1 when the trace marks no timed phase), and the replay's own trace
     * when it was recorded ({@code recorded}, else null).
     */
    public record Result(long wallNanos, long calls, List<String> errors, Map<Op, Long> communicateNanos, long timedNanos,
                         Trace recorded) {
        public Result {
            errors = List.copyOf(errors);
            communicateNanos = Map.copyOf(communicateNanos);
        }
    }

    private TraceReplay() {
    }

    /**
     * The conditions a replay on {@code job} runs under, to set beside the original's ({@link RunConditions#differences}:
     * the layout, transport, polling, binding, collectors and JVM options are compared; the workload fields are the
     * trace's and are not).
     */
    public static RunConditions conditionsOf(JobConfig job) {
        return TracedRun.conditionsOf(RunConfig.forJob(job));
    }

    /** This work's kind among the host processes' arguments ({@link RunEngine#main}). */
    static final String KIND = "replay";

    /** Replays {@code trace} (read from {@code file}) on a job of {@code job}'s layout and transport, without monitors. */
    public static Result run(JobConfig job, Trace trace, Path file, Replay.Compute compute, Duration limit) {
        return run(job, trace, file, compute, limit, null);
    }

    /**
     * As {@link #run(JobConfig, Trace, Path, Replay.Compute, Duration)}, every rank's re-issued calls recorded as
     * {@code record} says (as {@code run --trace} records a program; null: not recorded), the ranks' traces merged into
     * {@link Result#recorded}. A replay recorded the way its original was compares like with like: ScalaTrace measured
     * its replays under the same instrumentation as the application they are set against (mpiP on both, Ratn et al.
     * §5.4), and a recorder's own time per call is part of what a traced run took.
     */
    public static Result run(JobConfig job, Trace trace, Path file, Replay.Compute compute, Duration limit, TraceConfig record) {
        if (job.ranks() != trace.ranks()) {
            throw new IllegalArgumentException("the trace is of " + trace.ranks() + " ranks, the job has " + job.ranks());
        }
        RunEngine.JobRun<Result> run = RunEngine.run(RunConfig.forJob(job), new Ranks(trace, file, compute, limit, record),
                limit);
        if (run.local() != null) {
            return run.local();
        }
        long wall = 0;
        long calls = 0;
        long timed = -1;
        Map<Op, Long> communicate = new EnumMap<>(Op.class);
        List<String> errors = new ArrayList<>(run.errors());
        for (int h = 0; h < run.programs().size(); h++) {
            JsonNode program = run.programs().get(h);
            JsonNode ranks = program == null ? null : program.path("ranks");
            if (ranks == null || !ranks.isArray()) {
                if (program != null) {
                    errors.add("host " + h + " sent no replay results (expected {\"ranks\": [...]})");
                }
                continue;
            }
            for (JsonNode r : ranks) {
                if (r.hasNonNull("error")) {
                    errors.add("rank " + r.path("rank").asInt() + ": " + r.path("error").asText());
                } else {
                    wall = Math.max(wall, r.path("wall_ns").asLong());
                    calls += r.path("calls").asLong();
                    timed = Math.max(timed, r.path("timed_ns").asLong(-1));
                    r.path("communicate_ns").fields().forEachRemaining(e -> {
                        Op op = Op.ofFileName(e.getKey());
                        if (op != null) {
                            communicate.merge(op, e.getValue().asLong(), Long::sum);
                        }
                    });
                }
            }
        }
        Trace recorded = null;
        if (record != null) {
            List<Integer> missing = new ArrayList<>();
            try {
                recorded = TracedRun.mergePartials(run.programs(), "partial trace of the replay", missing);
            } catch (TraceFormatException e) {
                errors.add(e.getMessage());
            }
            // A host that sent nothing at all is among the run's errors already.
            missing.stream().filter(h -> run.programs().get(h) != null)
                    .forEach(h -> errors.add("host " + h + " sent no partial trace of the replay"));
        }
        return new Result(wall, calls, errors, communicate, timed, recorded);
    }

    /**
     * In a host process: the replay its arguments name, [{@value #KIND}, trace file, SPIN|SLEEP(, trace configuration)]
     * (the last when the replay is recorded, {@link TracedRun#encodeConfig}); the host reads the trace file itself, so
     * only its path travels.
     *
     * @throws IllegalArgumentException for malformed arguments or an unreadable trace.
     */
    static HostWork<Result> decode(List<String> args) {
        if (args.size() != 3 && args.size() != 4) {
            throw new IllegalArgumentException("expected " + KIND + " <trace file> SPIN|SLEEP [<trace configuration>], got " + args);
        }
        Path file = Path.of(args.get(1));
        TraceConfig record = args.size() == 4 ? TracedRun.decodeConfig(args.get(3)) : null;
        try {
            return new Ranks(TraceFile.read(file), file, Replay.Compute.valueOf(args.get(2)), Duration.ofHours(1), record);
        } catch (IOException | TraceFormatException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /**
     * The replay as the engine's {@link HostWork}: a process's ranks each replay their part; the host reports
     * {@code {"ranks": [{"rank", "wall_ns", "calls", "timed_ns", "communicate_ns"} or {"rank", "error"}]}}, and when
     * the replay is recorded ({@code record} not null) its ranks' partial trace ({@code trace}).
     */
    private record Ranks(Trace trace, Path file, Replay.Compute compute, Duration limit, TraceConfig record)
            implements HostWork<Result> {
        @Override
        public Part<Result> run(MonitoredJob job) {
            TracedRun.Recorders recorders = record == null ? null : new TracedRun.Recorders(trace.ranks(), record);
            List<RankThreads.Outcome<long[]>> outcomes = job.runRanks(rank -> replay(trace,
                    recorders == null ? job.comm(rank) : recorders.decorate(rank, job.comm(rank)), compute), limit);
            // The ranks' traces merge after every rank finished, as a traced run's do (off the timed span).
            Trace recorded = recorders == null ? null : recorders.merged(job.localRanks());
            return new Part<>(collect(outcomes, recorded), () -> encode(outcomes, recorded),
                    outcomes.stream().allMatch(RankThreads.Outcome::ok));
        }

        private static ObjectNode encode(List<RankThreads.Outcome<long[]>> outcomes, Trace recorded) {
            ObjectNode program = JSON.createObjectNode();
            if (recorded != null) {
                program.set("trace", TraceFile.toJsonPartial(recorded));
            }
            ArrayNode list = program.putArray("ranks");
            for (RankThreads.Outcome<long[]> o : outcomes) {
                ObjectNode r = list.addObject().put("rank", o.rank());
                if (o.ok()) {
                    r.put("wall_ns", o.value()[0]).put("calls", o.value()[1]).put("timed_ns", o.value()[2]);
                    ObjectNode byOp = r.putObject("communicate_ns");
                    Map<Op, Long> mine = new EnumMap<>(Op.class);
                    addCommunicate(o.value(), mine);
                    mine.forEach((op, ns) -> byOp.put(op.fileName(), ns));
                } else {
                    r.put("error", String.valueOf(o.error()));
                }
            }
            return program;
        }

        @Override
        public List<String> arguments() {
            String path = file.toAbsolutePath().toString();
            return record == null ? List.of(KIND, path, compute.name())
                    : List.of(KIND, path, compute.name(), TracedRun.encodeConfig(record));
        }
    }

    /** One rank's replay: {wall ns, calls, timed ns or -1, then per Op ordinal the ns its calls took}. */
    private static long[] replay(Trace trace, Comm comm, Replay.Compute compute) {
        Replay replay = new Replay(trace, comm, compute);
        long wall = replay.run();
        long[] out = new long[3 + OPS.length];
        out[0] = wall;
        out[1] = replay.calls();
        out[2] = replay.timedNanos();
        for (Op op : OPS) {
            out[3 + op.ordinal()] = replay.communicateNanos(op);
        }
        return out;
    }

    private static final Op[] OPS = Op.values();

    private static Result collect(List<RankThreads.Outcome<long[]>> outcomes, Trace recorded) {
        long wall = 0;
        long calls = 0;
        long timed = -1;
        Map<Op, Long> communicate = new EnumMap<>(Op.class);
        List<String> errors = new ArrayList<>();
        for (RankThreads.Outcome<long[]> o : outcomes) {
            if (o.ok()) {
                wall = Math.max(wall, o.value()[0]);
                calls += o.value()[1];
                timed = Math.max(timed, o.value()[2]);
                addCommunicate(o.value(), communicate);
            } else {
                errors.add("rank " + o.rank() + ": " + o.error());
            }
        }
        return new Result(wall, calls, errors, communicate, timed, recorded);
    }

    private static void addCommunicate(long[] rank, Map<Op, Long> into) {
        for (Op op : OPS) {
            long ns = rank[3 + op.ordinal()];
            if (ns != 0) {
                into.merge(op, ns, Long::sum);
            }
        }
    }
}
