package org.eventspace.cli;

import java.nio.file.Path;
import java.time.Duration;

import org.eventspace.bench.Benchmark;
import org.eventspace.bench.RunConfig;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.events.CollectorSettings;
import org.eventspace.job.JobConfig;
import org.eventspace.job.JobTransport;
import org.eventspace.job.PollMode;
import org.eventspace.job.ScopeSettings;

import picocli.CommandLine.Option;

/** The flags every command that runs a benchmark shares; validated once into a {@link RunConfig}. */
final class RunOptions {
    @Option(names = "--ranks", description = "Application ranks (threads). Default: ${DEFAULT-VALUE}.", defaultValue = "2")
    int ranks;

    @Option(names = "--hosts", description = "Hosts: simulated in this JVM (jvm) or processes on this machine (tcp). Default: ${DEFAULT-VALUE}.",
            defaultValue = "1")
    int hosts;

    @Option(names = "--clusters", description = "Clusters the hosts are split into. Default: ${DEFAULT-VALUE}.", defaultValue = "1")
    int clusters;

    @Option(names = "--transport", description = "jvm or tcp. Default: ${DEFAULT-VALUE}.", defaultValue = "jvm")
    String transport;

    @Option(names = "--tree", description = "flat, binary, kary:K or hier:K. Default: ${DEFAULT-VALUE}.", defaultValue = "hier:8")
    String tree;

    @Option(names = "--config", description = "Pathmap configuration file (docs/PATHMAP.md); replaces --ranks/--hosts/--clusters/--tree.")
    Path config;

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

    @Option(names = "--poll", description = "TCP hops: spin (busy-poll, then yield, then block), yield (poll with yields, then block), block, or auto (spin if every thread has a core, else yield). Default: ${DEFAULT-VALUE}.",
            defaultValue = "auto")
    String poll;

    @Option(names = "--socket-buffer", description = "SO_SNDBUF and SO_RCVBUF of every TCP hop in bytes; 0 keeps the OS default. Default: ${DEFAULT-VALUE}.",
            defaultValue = "0")
    int socketBufferBytes;

    @Option(names = "--json", description = "Write the eventspace.run/1 report to this file.")
    Path json;

    @Option(names = "--collectors", description = "on: an event collector on every edge of every tree, a trace buffer each, "
            + "an event space per host; off: none. Default: ${DEFAULT-VALUE}.", defaultValue = "on")
    String collectors;

    @Option(names = "--trace-dump", paramLabel = "DIR", description = "Keep the trace buffers as memory-mapped files in "
            + "DIR/host-<id>/ and write DIR/pathmap.json (needs --collectors on).")
    Path traceDump;

    @Option(names = "--collect-kinds", split = ",", paramLabel = "KIND", description = "With collectors on: only on edges "
            + "that touch a wrapper of these kinds (gred, proxy, core, …), e.g. gred gives t1/t4 above and t2/t3 below "
            + "every gred. Default: every kind.")
    java.util.List<String> collectKinds = new java.util.ArrayList<>();

    @Option(names = "--collect-trees", split = ",", paramLabel = "TREE", description = "With collectors on: only in these "
            + "trees (0-based). Default: every tree.")
    java.util.List<Integer> collectTrees = new java.util.ArrayList<>();

    @Option(names = "--collector-capacity", paramLabel = "TUPLES", description = "Tuples per collector buffer, a power of "
            + "two; 0 keeps the event space's default. Default: ${DEFAULT-VALUE}.", defaultValue = "0")
    int collectorCapacity;

    @Option(names = "--sort-length", paramLabel = "INTS", description = "compute-gsum: ints each iteration sorts; 0 "
            + "calibrates it so a sort takes about an allreduce. Default: ${DEFAULT-VALUE}.", defaultValue = "0")
    int sortLength;

    @Option(names = "--scope", paramLabel = "SHAPE", description = "Lay an event scope over the hosts (flat, kary:K or "
            + "hier:K) and pull it from host 0 while the ranks run; its figures go to the report's scope block. Needs "
            + "--collectors on.")
    String scope;

    @Option(names = "--gather", paramLabel = "seq|par:N", description = "With --scope: gathers read their children in "
            + "the calling thread (seq) or with N helper threads each (par:N). Default: seq.")
    String gather;

    @Option(names = "--filter", paramLabel = "FILTER", description = "With --scope: concat, stats, hist:BINS, "
            + "class:all|comm|REGEX, max:FIELD or min:FIELD (FIELD value|rank|round). Default: concat.")
    String filter;

    @Option(names = "--scope-interval-ms", paramLabel = "MS", description = "With --scope: pause between two pulls; 0 "
            + "pulls back to back. Default: 0.")
    Integer scopeIntervalMs;

    @Option(names = "--scope-hosts", paramLabel = "N", description = "With --scope: N more hosts in every cluster that "
            + "run no ranks and take the scope's inner gathers (ToM's additional resources). Default: ${DEFAULT-VALUE}.",
            defaultValue = "0")
    int scopeHosts;

    RunConfig toConfig(Benchmark benchmark) {
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
        if (!collectors.equals("on") && !collectors.equals("off")) {
            throw new UsageError("--collectors must be on or off, got " + collectors);
        }
        if (traceDump != null && collectors.equals("off")) {
            throw new UsageError("--trace-dump " + traceDump + " needs --collectors on");
        }
        if (traceDump != null && java.nio.file.Files.exists(traceDump) && !java.nio.file.Files.isDirectory(traceDump)) {
            throw new UsageError("--trace-dump must be a directory, " + traceDump + " is a file");
        }
        Duration timeout = seconds("--timeout", timeoutSeconds, 0.001, JobConfig.MAX_TIMEOUT.toSeconds());
        Duration warmupTime = seconds("--warmup-s", warmupSeconds, 0, RunConfig.MAX_WARMUP_TIME.toSeconds());
        JobTransport jobTransport;
        PollMode pollMode;
        try {
            jobTransport = JobTransport.parse(transport);
        } catch (IllegalArgumentException e) {
            throw new UsageError("--transport: " + e.getMessage());
        }
        try {
            pollMode = PollMode.parse(poll);
        } catch (IllegalArgumentException e) {
            throw new UsageError("--poll: " + e.getMessage());
        }
        if (scope == null) {
            for (String[] flag : new String[][] {{"--gather", gather}, {"--filter", filter},
                    {"--scope-interval-ms", scopeIntervalMs == null ? null : scopeIntervalMs.toString()}}) {
                if (flag[1] != null) {
                    throw new UsageError(flag[0] + " " + flag[1] + " configures an event scope and needs --scope");
                }
            }
        }
        if (json != null) {
            ConfigFiles.checkWritable("--json", json);
        }
        PathmapSpec spec;
        if (config != null) {
            if (scopeHosts != 0) {
                throw new UsageError("--scope-hosts does not go with --config: give the file hosts that run no ranks, "
                        + "and the scope uses them");
            }
            spec = ConfigFiles.readPathmap(config);
        } else {
            TreeShape shape;
            try {
                shape = TreeShape.parse(tree);
            } catch (IllegalArgumentException e) {
                throw new UsageError("--tree: " + e.getMessage());
            }
            try {
                if (scopeHosts < 0) {
                    throw new UsageError("--scope-hosts must be >= 0, got " + scopeHosts);
                }
                if (scopeHosts > 0 && scope == null) {
                    throw new UsageError("--scope-hosts " + scopeHosts + " gives hosts to an event scope and needs --scope");
                }
                spec = JobConfig.shortcut(ranks, hosts, clusters, shape, scopeHosts);
            } catch (IllegalArgumentException e) {
                throw new UsageError("--ranks/--hosts/--clusters: " + e.getMessage());
            }
        }
        for (String kind : collectKinds) {
            if (!java.util.List.of(PathmapBuilder.GRED, PathmapBuilder.PROXY, PathmapBuilder.CORE).contains(kind)) {
                throw new UsageError("--collect-kinds: unknown wrapper kind '" + kind + "'; expected gred, proxy or core");
            }
        }
        ScopeSettings runScope = null;
        if (scope != null) {
            if (collectors.equals("off")) {
                throw new UsageError("--scope " + scope + " reads the trace buffers and needs --collectors on");
            }
            try {
                runScope = ScopeSettings.parse(scope, gather != null ? gather : "seq", filter != null ? filter : "concat",
                        scopeIntervalMs != null ? scopeIntervalMs : 0);
            } catch (IllegalArgumentException e) {
                throw new UsageError("--scope/--gather/--filter/--scope-interval-ms: " + e.getMessage());
            }
        }
        CollectorSettings settings;
        try {
            settings = new CollectorSettings(new java.util.HashSet<>(collectKinds), new java.util.HashSet<>(collectTrees),
                    collectorCapacity);
        } catch (IllegalArgumentException e) {
            throw new UsageError("--collect-kinds/--collect-trees/--collector-capacity: " + e.getMessage());
        }
        try {
            JobConfig job = new JobConfig(spec, jobTransport, timeout, pollMode, socketBufferBytes, collectors.equals("on"),
                    traceDump, settings, runScope);
            return new RunConfig(benchmark, job, iterations, warmup, warmupTime, bytes / 8, sortLength);
        } catch (IllegalArgumentException e) {
            throw new UsageError(e.getMessage());
        }
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
