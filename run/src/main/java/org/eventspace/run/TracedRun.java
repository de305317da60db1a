package org.eventspace.run;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.eventspace.comm.Comm;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.job.JobConfig;
import org.eventspace.job.Labelled;
import org.eventspace.trace.RankTrace;
import org.eventspace.trace.RunConditions;
import org.eventspace.trace.TimeEncoding;
import org.eventspace.trace.Trace;
import org.eventspace.trace.TraceConfig;
import org.eventspace.trace.TraceFile;
import org.eventspace.trace.TraceFormatException;
import org.eventspace.trace.TracingComm;
import org.eventspace.job.JobTransport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code run … --trace FILE}: the benchmark (in one JVM, or one process per host over TCP) with every rank's
 * {@code Comm} decorated by a {@link TracingComm}; after the ranks finished, their traces are merged over a binary
 * tree and written to FILE
 * (ScalaTrace's inter-node compression at finalize, Ratn et al. §2). The merge runs after the timed loop, so it does
 * not perturb the timings, as in the paper ("its overhead ... occurs in MPI_Finalize").
 */
public final class TracedRun {
    /**
     * The run's report and its {@code trace} block, or, when no trace could be written, why ({@code traceError}) with
     * the report kept: hosts that failed lose the trace, not the run's figures.
     */
    public record Result(RunReport report, Summary trace, String traceError) {
        public Result(RunReport report, Summary trace) {
            this(report, trace, null);
        }

        /** The trace block. @throws IllegalStateException naming why there is none. */
        public Summary requireTrace() {
            if (trace == null) {
                throw new IllegalStateException(traceError);
            }
            return trace;
        }
    }

    /** What the run JSON's {@code trace} block holds. */
    public record Summary(Path file, long bytes, long eventsRecorded, long flatBytes, String timeEncoding, long eventsLost,
                          int groups) {
        public ObjectNode toJson(ObjectMapper json) {
            ObjectNode o = json.createObjectNode();
            o.put("file", file.toString());
            o.put("encoding", TraceFile.Encoding.of(file).label());
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
                    "trace: %s, %d bytes, %d events recorded (flat %d bytes, %s), time encoding %s%s%n", file, bytes,
                    eventsRecorded, flatBytes, ratio(flatBytes, bytes), timeEncoding,
                    eventsLost > 0 ? ", " + eventsLost + " EVENTS LOST (see the file's lost list)" : "");
        }

        /**
         * How much smaller than flat the file is: one decimal below 10× ("1.4× smaller"), whole numbers above; "not
         * smaller" when it is not (a tiny trace whose header outweighs its few calls, or JSON's decimal digits).
         */
        static String ratio(long flatBytes, long bytes) {
            if (bytes <= 0 || flatBytes <= 0) {
                return "nothing to compare";
            }
            double r = (double) flatBytes / bytes;
            if (r < 1.0) {
                return String.format(java.util.Locale.ROOT, "%.1f× the flat size, not smaller", 1 / r);
            }
            return String.format(java.util.Locale.ROOT, r < 10 ? "%.1f× smaller" : "%.0f× smaller", r);
        }
    }

    private TracedRun() {
    }

    /**
     * Runs {@code config} with every rank recorded and writes the merged trace to {@code file}. In one JVM the ranks'
     * traces merge over a binary tree here; over TCP each host process merges its own ranks' (in
     * {@link RunEngine#main}) and sends its partial trace in its result, and this side merges the hosts'
     * partial traces over a binary tree (host 0 + 1, 2 + 3, …, then the pairs). Merging does not depend on the
     * tree's shape (the merge property test), so the file is the same either way.
     */
    public static Result run(RunConfig config, TraceConfig traceConfig, Path file) {
        RunReport report;
        Trace trace;
        long lost;
        if (config.transport() == JobTransport.JVM) {
            Recorders recorders = new Recorders(config.ranks(), traceConfig);
            report = RunEngine.inJvm(config, recorders::decorate);
            List<Integer> all = new ArrayList<>();
            for (int r = 0; r < config.ranks(); r++) {
                all.add(r);
            }
            trace = recorders.merged(all);
        } else {
            List<JsonNode> programs = new ArrayList<>();
            report = RunEngine.overTcp(config, encodeConfig(traceConfig), programs);
            List<Integer> missing = new ArrayList<>();
            try {
                trace = mergePartials(programs, "partial trace", missing);
            } catch (TraceFormatException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
            if (trace == null) {
                // The report's errors say why those hosts failed; the run's figures and monitors still stand.
                return new Result(report, null, "no trace written to " + file + ": " + missing.size() + " of "
                        + programs.size() + " hosts sent no partial trace (" + abbreviatedHosts(missing) + ")");
            }
        }
        lost = trace.lost().stream().mapToLong(RankTrace.Lost::count).sum();
        long bytes;
        try {
            bytes = TraceFile.write(trace, conditionsOf(config), file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the trace to " + file + ": " + e.getMessage(), e);
        }
        int groups = trace.groupCount();
        return new Result(report, new Summary(file, bytes, trace.eventsRecorded(), trace.flatBytes(),
                traceConfig.encoding().fileName(), lost, groups));
    }

    /** "host 0, host 56", at most 10 named, then how many more. */
    static String abbreviatedHosts(List<Integer> hosts) {
        List<String> named = hosts.stream().limit(10).map(h -> "host " + h).toList();
        return String.join(", ", named) + (hosts.size() > 10 ? " and " + (hosts.size() - 10) + " more" : "");
    }

    /**
     * The conditions {@code config} runs under, as the trace file keeps them ({@link RunConditions}) for a replay to
     * run the same way: the job's layout and transport, how its TCP hops wait, its binding, collectors, scope and
     * monitors, and this JVM's options.
     */
    public static RunConditions conditionsOf(RunConfig config) {
        JobConfig job = config.job();
        PathmapSpec spec = job.spec();
        int clusters = spec.topology().clusters().size();
        boolean shortcut = job.hosts() % clusters == 0
                && spec.equals(JobConfig.shortcut(job.ranks(), job.hosts(), clusters, spec.shape()));
        List<String> monitors = config.monitoring().kinds().stream().map(Labelled::label).sorted().toList();
        return new RunConditions(config.benchmark().label(), config.iterations(), config.warmup(),
                config.warmupTime().toNanos() / 1e9, job.transport().label(), job.ranks(), job.hosts(), clusters,
                spec.shape().toString(), spec.trees(), shortcut ? RunConditions.SHORTCUT : RunConditions.CONFIG,
                job.poll().label(), job.binding().label(), job.socketBufferBytes(), job.collectors(),
                job.scope() == null ? "none" : job.scope().toString(), monitors, RunConditions.jvmOptionsOfThisProcess());
    }

    /**
     * The partial traces the host processes sent in their parts of the report ({@code trace}), read ("host h's
     * {@code what}" names one in an error) and merged over a binary tree; null when a host sent none, each such host
     * then added to {@code missing}.
     *
     * @throws TraceFormatException for a partial trace that does not read.
     */
    static Trace mergePartials(List<JsonNode> programs, String what, List<Integer> missing) throws TraceFormatException {
        List<Trace> hosts = new ArrayList<>();
        for (int h = 0; h < programs.size(); h++) {
            JsonNode program = programs.get(h);
            if (program == null || !program.has("trace")) {
                missing.add(h);
            } else {
                hosts.add(TraceFile.fromJson(program.get("trace"), "host " + h + "'s " + what));
            }
        }
        return missing.isEmpty() ? mergeTree(hosts) : null;
    }

    /** Pairwise over a binary tree: 0 + 1, 2 + 3, …, then the pairs. */
    static Trace mergeTree(List<Trace> parts) {
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("no partial traces to merge");
        }
        List<Trace> level = new ArrayList<>(parts);
        while (level.size() > 1) {
            List<Trace> next = new ArrayList<>();
            for (int i = 0; i < level.size(); i += 2) {
                next.add(i + 1 < level.size() ? Trace.merge(level.get(i), level.get(i + 1)) : level.get(i));
            }
            level = next;
        }
        return level.get(0);
    }

    /** The recorders of one process's ranks. Thread-safe: each rank's thread installs its own. */
    static final class Recorders {
        private final AtomicReferenceArray<TracingComm> comms;
        private final TraceConfig config;

        Recorders(int ranks, TraceConfig config) {
            this.comms = new AtomicReferenceArray<>(ranks);
            this.config = config;
        }

        Comm decorate(int rank, Comm comm) {
            TracingComm traced = new TracingComm(comm, config);
            comms.set(rank, traced);
            return traced;
        }

        /** The events {@code ranks}' recorders kept. */
        long recorded(List<Integer> ranks) {
            long n = 0;
            for (int r : ranks) {
                TracingComm c = comms.get(r);
                n += c == null ? 0 : c.trace().recorded();
            }
            return n;
        }

        /** {@code ranks}' traces (an empty one for a rank that never started) merged over a binary tree. */
        Trace merged(List<Integer> ranks) {
            List<Trace> parts = new ArrayList<>();
            for (int r : ranks) {
                TracingComm c = comms.get(r);
                parts.add(Trace.of(c != null ? c.trace() : new RankTrace(r, config), comms.length()));
            }
            return mergeTree(parts);
        }
    }

    /**
     * The argument that makes a host process record every call of tree {@code tracedTree}'s calls only, alternating
     * with the bare {@code Comm} (the interleaved recording overhead over TCP): {@code alternate/T/} + the configuration.
     */
    public static String encodeAlternating(TraceConfig c, int tracedTree) {
        return ALTERNATE + tracedTree + "/" + encodeConfig(c);
    }

    static final String ALTERNATE = "alternate/";

    /** The traced tree of an {@link #encodeAlternating} argument, or -1 for a plain trace configuration. */
    static int alternatingTree(String s) {
        if (!s.startsWith(ALTERNATE)) {
            return -1;
        }
        String rest = s.substring(ALTERNATE.length());
        int slash = rest.indexOf('/');
        try {
            int tree = slash < 0 ? -1 : Integer.parseInt(rest.substring(0, slash));
            if (tree == 0 || tree == 1) {
                return tree;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException("trace argument '" + s + "': expected alternate/0/… or alternate/1/…");
    }

    /** The trace configuration of a plain or an {@link #encodeAlternating} argument. */
    static TraceConfig decodeArgument(String s) {
        return alternatingTree(s) < 0 ? decodeConfig(s) : decodeConfig(s.substring(s.indexOf('/', ALTERNATE.length()) + 1));
    }

    /** A trace configuration as one argument of a host process: {@code encoding:bins:smooth:window:maxNodes}. */
    static String encodeConfig(TraceConfig c) {
        return c.encoding().fileName() + ":" + c.bins() + ":" + c.smoothInterval() + ":" + c.window() + ":" + c.maxNodes();
    }

    /** The inverse of {@link #encodeConfig}; throws with the argument and what was expected. */
    static TraceConfig decodeConfig(String s) {
        String[] f = s.split(":", -1);
        if (f.length != 5) {
            throw new IllegalArgumentException("trace configuration '" + s + "': expected encoding:bins:smooth:window:maxNodes");
        }
        try {
            return new TraceConfig(TimeEncoding.parse(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]),
                    Integer.parseInt(f[3]), Integer.parseInt(f[4]));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("trace configuration '" + s + "': expected integers after the encoding", e);
        }
    }
}
