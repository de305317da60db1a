package org.eventspace.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.eventspace.run.Workload;
import org.eventspace.run.Faults;
import org.eventspace.run.Monitoring;
import org.eventspace.run.RunConfig;
import org.eventspace.comm.launch.CpuBinding;
import org.eventspace.comm.traffic.TrafficScope;
import org.eventspace.job.JobConfig;
import org.eventspace.job.JobTransport;
import org.eventspace.job.Labelled;
import org.eventspace.job.PollMode;
import org.eventspace.job.ScopeSettings;
import org.eventspace.monitor.Analysis;
import org.eventspace.monitor.Coschedule;
import org.eventspace.monitor.MonitorKind;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The flags every command that runs a benchmark shares: the job's layout ({@link LayoutOptions}, which
 * {@code describe} shares) and how the run goes — iterations, warm-up, payload, timeout, TCP polling, the report and
 * the trace dump; validated once into a {@link RunConfig}. Not thread-safe: picocli fills it, one command reads it.
 */
final class RunOptions {
    @Mixin
    LayoutOptions layout = new LayoutOptions();

    @Option(names = "--iterations", description = "Timed iterations. Default: ${DEFAULT-VALUE}.", defaultValue = "20000")
    int iterations;

    @Option(names = "--warmup", description = "Untimed iterations first, through the same loop (JIT). Default: ${DEFAULT-VALUE}.",
            defaultValue = "10000")
    int warmup;

    @Option(names = "--warmup-s", description = "Warm up in rounds of --warmup iterations until this many seconds passed (JIT). Default: ${DEFAULT-VALUE}.",
            defaultValue = "1")
    double warmupSeconds;

    @Option(names = "--bytes", description = "Payload bytes per allreduce or message (multiple of 8). Default: ${DEFAULT-VALUE}.",
            defaultValue = "8")
    int bytes;

    @Option(names = "--timeout", description = "Seconds a collective waits for a missing rank before the run fails. Default: ${DEFAULT-VALUE}.",
            defaultValue = "30")
    double timeoutSeconds;

    @Option(names = "--poll", description = "TCP hops: spin (busy-poll, then yield, then block), yield (poll with yields, "
            + "then block), block, or auto (spin if every thread has a core; block beyond 64 busy threads a core; else, "
            + "and in a process bound to one CPU, yield). Default: ${DEFAULT-VALUE}.",
            defaultValue = "auto")
    String poll;

    @Option(names = "--bind-to", paramLabel = "none|core", description = "TCP host processes: none (run anywhere) or core (host h on CPU h mod cpus, "
            + "like mpirun --bind-to core; needs taskset). Default: ${DEFAULT-VALUE}.", defaultValue = "none")
    String bind;

    @Option(names = "--socket-buffer", description = "SO_SNDBUF and SO_RCVBUF of every TCP hop in bytes; 0 keeps the OS default. Default: ${DEFAULT-VALUE}.",
            defaultValue = "0")
    int socketBufferBytes;

    @Option(names = "--json", description = "Write the eventspace.run/2 report to this file.")
    Path json;

    @Option(names = "--trace-dump", paramLabel = "DIR", description = "Keep the trace buffers as memory-mapped files in "
            + "DIR/host-<id>/ and write DIR/pathmap.json (needs --collectors on).")
    Path traceDump;

    @Option(names = "--traffic", paramLabel = "FILE", description = "Count every message the transports hand to the network, "
            + "per destination, sent and received apart, per phase (ibprof), and write the communication matrix "
            + "(eventspace.traffic/1: rank × rank and host × host) to FILE.")
    Path traffic;

    @Option(names = "--traffic-scope", paramLabel = "SCOPE", description = "With --traffic: which messages are counted: all, "
            + "collectives:K[,K…] (send, allreduce, barrier, broadcast, gather, allgather, scatter, alltoall) or "
            + "phases:P[,P…] (phases the program marks with Comm.phase). Default: $ES_TRAFFIC_SCOPE, else all.")
    String trafficScope;

    @Option(names = "--sort-length", paramLabel = "INTS", description = "compute-gsum: ints each iteration sorts; 0 "
            + "calibrates it so a sort takes about an allreduce. Default: ${DEFAULT-VALUE}.", defaultValue = "0")
    int sortLength;

    @Option(names = "--monitor", paramLabel = "M[,M]", description = "Monitors run on the hosts while the job runs: "
            + "loadbalance (which rank and stage hold each collective back: last arrivals, heaviest path, slowest rank), "
            + "stats (latency statistics per gred and port), or loadbalance,stats. Adds monitors to the report; needs "
            + "--collectors on.")
    String monitor;

    @Option(names = "--coschedule", description = "When the hosts' analysis threads run: none (whenever they get a core), "
            + "i (when a host's contributors all arrived and the message left for the root) or ii (after the broadcast "
            + "released the ranks). Default: ${DEFAULT-VALUE}.", defaultValue = "none")
    String coschedule = "none";

    @Option(names = "--analysis", description = "Where the monitors analyse: distributed (an analysis thread per host reads "
            + "its own trace buffers; the event scope gathers only their newest results) or central (the scope gathers the "
            + "raw trace tuples and the front-end analyses them; the EventSpace paper compares the two). With --monitor the "
            + "job's event scope carries this (flat unless --scope says otherwise). Default: "
            + "${DEFAULT-VALUE}.", defaultValue = "distributed")
    String analysis = "distributed";

    @Option(names = "--slow-rank", paramLabel = "R:USEC", description = "Make rank R wait USEC µs before each allreduce "
            + "(a fault for the monitors to find).")
    String slowRank;

    @Option(names = "--noise", paramLabel = "P:USEC", description = "In a fraction P of iterations, make a random rank "
            + "wait USEC µs (noise no monitor should blame on one rank).")
    String noise;

    /** The monitors and faults the flags ask for. */
    private RunConfig withMonitoring(RunConfig config) {
        Monitoring monitoring = Monitoring.NONE;
        if (monitor != null) {
            try {
                monitoring = new Monitoring(MonitorKind.parseList(monitor), Labelled.parse(Coschedule.class, coschedule, "--coschedule"),
                        Labelled.parse(Analysis.class, analysis, "--analysis"));
            } catch (IllegalArgumentException e) {
                throw new UsageError("--monitor " + monitor + ": " + e.getMessage());
            }
            if (!layout.collectorsOn()) {
                throw new UsageError("--monitor " + monitor + " reads the collectors' traces: it needs --collectors on");
            }
        } else if (!coschedule.equals("none")) {
            throw new UsageError("--coschedule " + coschedule + " schedules the monitors' analysis threads: it needs --monitor");
        } else if (!analysis.equals("distributed")) {
            throw new UsageError("--analysis " + analysis + " says where the monitors analyse: it needs --monitor");
        }
        long[] slow = slowRank == null ? new long[] {-1, 0} : pair("--slow-rank", slowRank, "R:USEC, a rank and microseconds");
        double noiseFraction = 0;
        long noiseMicros = 0;
        if (noise != null) {
            int colon = noise.indexOf(':');
            try {
                noiseFraction = Double.parseDouble(noise.substring(0, Math.max(0, colon)));
                noiseMicros = Long.parseLong(noise.substring(colon + 1));
            } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
                throw new UsageError("--noise must be P:USEC, a fraction of iterations and microseconds, got '" + noise + "'");
            }
            if (!(noiseFraction > 0 && noiseFraction <= 1)) {
                throw new UsageError("--noise " + noise + ": the fraction of iterations must be in (0, 1]");
            }
        }
        if (slow[0] >= config.ranks()) {
            throw new UsageError("--slow-rank " + slowRank + ": rank " + slow[0] + " is not a rank of the job, ranks are 0.."
                    + (config.ranks() - 1));
        }
        try {
            return config.withMonitoring(monitoring, new Faults((int) slow[0], slow[1], noiseFraction, noiseMicros));
        } catch (IllegalArgumentException e) {
            throw new UsageError((slowRank != null ? "--slow-rank " : "--noise ") + e.getMessage());
        }
    }

    /** Two non-negative integers A:B. */
    private static long[] pair(String flag, String text, String expected) {
        int colon = text.indexOf(':');
        try {
            long a = Long.parseLong(text.substring(0, Math.max(0, colon)));
            long b = Long.parseLong(text.substring(colon + 1));
            if (a < 0 || b < 0 || b > Faults.MAX_MICROS) {
                throw new UsageError(flag + " " + text + ": expected " + expected + " (0.." + Faults.MAX_MICROS + " µs)");
            }
            return new long[] {a, b};
        } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
            throw new UsageError(flag + " must be " + expected + ", got '" + text + "'");
        }
    }

    RunConfig toConfig(Workload benchmark) {
        if (bytes < 8 || bytes % 8 != 0) {
            throw new UsageError("--bytes must be a positive multiple of 8, got " + bytes);
        }
        if (iterations < 1) {
            throw new UsageError("--iterations must be >= 1, got " + iterations);
        }
        if (warmup < 1) {
            throw new UsageError("--warmup must be >= 1 iteration, got " + warmup);
        }
        if (socketBufferBytes < 0) {
            throw new UsageError("--socket-buffer must be >= 0 bytes (0 keeps the OS default), got " + socketBufferBytes);
        }
        layout.checkCollectors();
        if (traceDump != null && !layout.collectorsOn()) {
            throw new UsageError("--trace-dump " + traceDump + " needs --collectors on");
        }
        if (traceDump != null && Files.exists(traceDump) && !Files.isDirectory(traceDump)) {
            throw new UsageError("--trace-dump must be a directory, " + traceDump + " is a file");
        }
        if (traceDump != null) {
            OutputFiles.checkFolder(traceDump, "--trace-dump");
        }
        Duration timeout = seconds("--timeout", timeoutSeconds, 0.001, JobConfig.MAX_TIMEOUT.toSeconds());
        Duration warmupTime = seconds("--warmup-s", warmupSeconds, 0, RunConfig.MAX_WARMUP_TIME.toSeconds());
        PollMode pollMode;
        try {
            pollMode = PollMode.parse(poll);
        } catch (IllegalArgumentException e) {
            throw new UsageError("--poll: " + e.getMessage());
        }
        if (json != null) {
            OutputFiles.checkWritable(json, "--json");
        }
        if (monitor != null && !layout.collectorsOn()) {
            throw new UsageError("--monitor " + monitor + " reads the collectors' traces: it needs --collectors on");
        }
        if (monitor != null) {
            // The monitors' results (or, central, their raw tuples) travel through the job's event scope.
            Analysis where;
            try {
                where = Labelled.parse(Analysis.class, analysis, "--analysis");
            } catch (IllegalArgumentException e) {
                throw new UsageError("--monitor " + monitor + ": " + e.getMessage());
            }
            layout.scopeForMonitors(where.scopeFilter(),
                    where.scopeIntervalMs() == ScopeSettings.ADAPTIVE ? null : where.scopeIntervalMs());
        }
        CpuBinding binding = binding(bind);
        JobConfig job = layout.toJob(timeout, pollMode, socketBufferBytes, traceDump).withBinding(binding);
        if (binding != CpuBinding.NONE && job.transport() != JobTransport.TCP) {
            throw new UsageError("--bind-to " + bind + " binds host processes: it needs --transport tcp");
        }
        if (traffic != null) {
            OutputFiles.checkWritable(traffic, "--traffic");
            String scope = trafficScope;
            String from = "--traffic-scope";
            if (scope == null) {
                scope = System.getenv(TrafficScope.ENV);
                from = TrafficScope.ENV;
            }
            try {
                job = job.withTraffic(scope == null || scope.isBlank() ? "all" : TrafficScope.parse(scope).text());
            } catch (IllegalArgumentException e) {
                throw new UsageError(from + ": " + e.getMessage());
            }
        } else if (trafficScope != null) {
            throw new UsageError("--traffic-scope " + trafficScope + " says which messages --traffic counts: it needs --traffic FILE");
        }
        RunConfig run;
        try {
            run = withMonitoring(new RunConfig(benchmark, job, iterations, warmup, warmupTime, bytes / 8, sortLength));
        } catch (IllegalArgumentException e) {
            throw new UsageError(e.getMessage());
        }
        layout.checkFootprint(job, run.program(), programFlags(benchmark));
        return run;
    }

    /** {@code --bind-to}'s value (on {@code run}, {@code bench} and {@code launch}), or a usage error naming the flag. */
    static CpuBinding binding(String text) {
        try {
            return CpuBinding.parse(text);
        } catch (IllegalArgumentException e) {
            throw new UsageError("--bind-to: " + e.getMessage());
        }
    }

    /** The flags of this run that add memory to every rank, as given; empty when they are at their defaults. */
    private String programFlags(Workload benchmark) {
        String flags = bytes > 8 ? "--bytes " + bytes : "";
        if (benchmark == Workload.COMPUTE_GSUM && sortLength > 0) {
            flags += (flags.isEmpty() ? "" : " ") + "--sort-length " + sortLength;
        }
        return flags;
    }

    /** A number of seconds from a flag, finite and within [min, max], as a duration of whole milliseconds. */
    static Duration seconds(String flag, double value, double min, double max) {
        if (!Double.isFinite(value) || value < min || value > max) {
            throw new UsageError(String.format(java.util.Locale.ROOT, "%s must be a number of seconds from %s to %s, got %s",
                    flag, trim(min), trim(max), value));
        }
        return Duration.ofMillis(Math.round(value * 1000));
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
