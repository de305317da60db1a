package org.eventspace.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.events.CollectorSettings;
import org.eventspace.events.TraceBufferLayout;
import org.eventspace.events.TraceBuffer;
import org.eventspace.events.EventSpace;
import org.eventspace.events.CollectorPlacement;
import org.eventspace.job.JobConfig;
import org.eventspace.job.JobFootprint;
import org.eventspace.job.MachineLimits;
import org.eventspace.job.JobTransport;
import org.eventspace.job.PollMode;
import org.eventspace.job.ScopeSettings;
import org.eventspace.scope.GatherMode;
import org.eventspace.scope.filter.EdgeCodec;
import org.eventspace.scope.filter.FilterSpec;
import org.eventspace.scope.filter.NewestFilter;
import org.eventspace.wan.WanEmulation;
import org.eventspace.wan.WanPlacement;
import org.eventspace.comm.pathmap.Pathmap;

import picocli.CommandLine.Option;

/**
 * The flags that say what a job looks like — its hosts and trees, and the event collectors and event scope laid over
 * them — shared by {@code describe} and every command that runs ({@link RunOptions} adds how it runs); validated once
 * into a {@link JobConfig}. Not thread-safe: picocli fills it, one command reads it.
 */
final class LayoutOptions {
    @Option(names = "--ranks", description = "Application ranks (threads). Default: ${DEFAULT-VALUE}.", defaultValue = "2")
    int ranks;

    @Option(names = "--hosts", description = "Hosts: simulated in this JVM (jvm) or processes on this machine (tcp). Default: ${DEFAULT-VALUE}.",
            defaultValue = "1")
    int hosts;

    @Option(names = "--clusters", description = "Clusters the hosts are split into. Default: ${DEFAULT-VALUE}.", defaultValue = "1")
    int clusters;

    @Option(names = "--transport", description = "jvm or tcp. Default: ${DEFAULT-VALUE}.", defaultValue = "jvm")
    String transport;

    @Option(names = "--tree", description = "flat, binary, kary:K, hier:K, or butterfly[:K] (each host joins its ranks, "
            + "then the hosts exchange in log2 H rounds, one message each way per round; K: the hosts' local fan-out). "
            + "Default: ${DEFAULT-VALUE}.", defaultValue = "hier:8")
    String tree;

    @Option(names = "--config", description = "Pathmap configuration file (docs/PATHMAP.md); replaces --ranks/--hosts/--clusters/--tree.")
    Path config;

    @Option(names = "--wan", paramLabel = "FILE", description = "Emulate a WAN multi-cluster (Longcut): put the clusters "
            + "on the sites of this link file (docs/WAN-FORMAT.md) and route every tree hop between sites through the "
            + "sites' gateway hosts, which delay it by the link's latency + size/bandwidth. Sites take the clusters in "
            + "order: give --clusters as many as the file has sites, or name them in the file.")
    Path wan;

    @Option(names = "--collectors", description = "on: an event collector on every edge of every tree, a trace buffer each, "
            + "an event space per host; off: none. Default: ${DEFAULT-VALUE}.", defaultValue = "on")
    String collectors;

    @Option(names = "--collect-kinds", split = ",", paramLabel = "KIND", description = "With collectors on: only on edges "
            + "that touch a wrapper of these kinds (gred, proxy, core, …), e.g. gred gives t1/t4 above and t2/t3 below "
            + "every gred. Default: every kind.")
    List<String> collectKinds = new ArrayList<>();

    @Option(names = "--collect-trees", split = ",", paramLabel = "TREE", description = "With collectors on: only in these "
            + "trees (0-based). Default: every tree.")
    List<Integer> collectTrees = new ArrayList<>();

    @Option(names = "--collector-capacity", paramLabel = "TUPLES", description = "Tuples per collector buffer, a power of "
            + "two; 0 keeps the event space's default. Default: ${DEFAULT-VALUE}.", defaultValue = "0")
    int collectorCapacity;

    @Option(names = "--scope", paramLabel = "SHAPE", description = "Lay an event scope over the hosts (flat, kary:K or "
            + "hier:K) and pull it from host 0 while the ranks run; its figures go to the report's scope block. Needs "
            + "--collectors on. With --monitor the scope carries the monitors' data (flat by default); --scope none there "
            + "runs the monitors without one (their results reach the report only at the end).")
    String scope;

    @Option(names = "--gather", paramLabel = "seq|par:N", description = "With --scope: gathers read their children in "
            + "the calling thread (seq) or with N helper threads each (par:N). Default: seq over at most 8 hosts with "
            + "ranks, else par:N with N the widest gather's children, at most 8.")
    String gather;

    @Option(names = "--filter", paramLabel = "FILTER", description = "With --scope: concat, stats, hist:BINS, "
            + "class:all|comm|REGEX, max:FIELD or min:FIELD (FIELD value|rank|round), any of them as CODEC/FILTER to "
            + "encode what crosses each scope edge (CODEC none, deflate, cbc[:BLOCK[:BLOCKS[:SEG]]] or "
            + "cbc+deflate[:…]). Default: concat; with --monitor the monitors' filter, and with --wan too, that filter "
            + "behind the WAN codec, deflate (docs/BENCHMARKS.md).")
    String filter;

    @Option(names = "--scope-interval-ms", paramLabel = "MS", description = "With --scope: pause between two pulls; 0 "
            + "pulls back to back. Default: adaptive (back to back while rounds are full, else a short pause bounded by "
            + "the trace buffers' headroom).")
    Integer scopeIntervalMs;

    @Option(names = "--scope-hosts", paramLabel = "N", description = "With --scope: N more hosts in every cluster that "
            + "run no ranks and take the scope's inner gathers (ToM's additional resources). Default: ${DEFAULT-VALUE}.",
            defaultValue = "0")
    int scopeHosts;

    /** The long names of the flags above that only place collectors or configure the event scope. */
    static final List<String> MONITORING_FLAGS = List.of("--collectors", "--collect-kinds", "--collect-trees",
            "--collector-capacity", "--scope", "--gather", "--filter", "--scope-interval-ms");

    void checkCollectors() {
        if (!collectors.equals("on") && !collectors.equals("off")) {
            throw new UsageError("--collectors must be on or off, got " + collectors);
        }
    }

    /**
     * Makes the event scope the monitors' (before {@link #toJob}): filter {@code filter}, flat unless {@code --scope}
     * says otherwise ({@code --scope none}: no scope at all, the distributed results stay on the hosts until the end),
     * gathering as {@code --gather} says or else by {@link ScopeSettings#defaultGather}, every {@code intervalMs} (null:
     * adaptive) unless {@code --scope-interval-ms} says otherwise. A {@code --filter} other than {@code filter} is
     * refused: one scope per job.
     */
    void scopeForMonitors(String filter, Integer intervalMs) {
        if ("none".equals(scope)) {
            // No scope: the results stay on the hosts until the job ends (the paper's "analysis threads" row, Table 3).
            if (filter.equals("tuples")) {
                throw new UsageError("--scope none: the central analysis reads the tuples the scope gathers; it needs a scope");
            }
            scope = null;
            return;
        }
        if (this.filter != null && !this.filter.equals(filter) && !encodes(this.filter, filter)) {
            throw new UsageError("--filter " + this.filter + ": with --monitor the job's event scope carries the monitors' "
                    + "data (filter " + filter + ", or CODEC/" + filter + " to encode it); drop --filter, or run the scope "
                    + "without --monitor");
        }
        if (scope == null) {
            scope = "flat";
        }
        if (this.filter == null || this.filter.equals(filter)) {
            // Across a WAN the monitors' results go deflated: the codec docs/BENCHMARKS.md measured best end to end
            // through the gateways, for every scope shape.
            this.filter = wan != null && filter.equals(NewestFilter.NAME) ? EdgeCodec.WAN_DEFAULT + "/" + filter : filter;
        }
        if (scopeIntervalMs == null) {
            scopeIntervalMs = intervalMs;
        }
    }

    /** Whether {@code text} is {@code CODEC/filter}: {@code filter} with its packets encoded for the wire. */
    private static boolean encodes(String text, String filter) {
        try {
            return FilterSpec.parse(text) instanceof FilterSpec.Compressed c && c.inner().text().equals(filter);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    boolean collectorsOn() {
        return collectors.equals("on");
    }

    /**
     * The job these flags describe, with how it runs given by the caller ({@link RunOptions}, or defaults for
     * {@code describe}); every error is a {@link UsageError} naming the flag.
     */
    JobConfig toJob(Duration timeout, PollMode pollMode, int socketBufferBytes, Path traceDump) {
        checkCollectors();
        JobTransport jobTransport;
        try {
            jobTransport = JobTransport.parse(transport);
        } catch (IllegalArgumentException e) {
            throw new UsageError("--transport: " + e.getMessage());
        }
        if (scope == null) {
            for (String[] flag : new String[][] {{"--gather", gather}, {"--filter", filter},
                    {"--scope-interval-ms", scopeIntervalMs == null ? null : scopeIntervalMs.toString()}}) {
                if (flag[1] != null) {
                    throw new UsageError(flag[0] + " " + flag[1] + " configures an event scope and needs --scope");
                }
            }
        }
        PathmapSpec spec = spec();
        if (PathmapBuilder.maxNodes(spec) > PathmapBuilder.MAX_NODES) {
            throw new UsageError((config != null ? config + ": " : "--ranks " + ranks + ": ") + spec.ranks() + " ranks × "
                    + spec.trees() + " trees could need " + PathmapBuilder.maxNodes(spec) + " wrappers, more than the "
                    + PathmapBuilder.MAX_NODES + " a pathmap may have in one process; use fewer ranks or trees");
        }
        for (String kind : collectKinds) {
            if (!List.of(PathmapBuilder.GRED, PathmapBuilder.PROXY, PathmapBuilder.CORE, WanPlacement.LONGCUT).contains(kind)) {
                throw new UsageError("--collect-kinds: unknown wrapper kind '" + kind + "'; expected gred, proxy, core or "
                        + "longcut");
            }
        }
        ScopeSettings runScope = null;
        if (scope != null) {
            if (collectors.equals("off")) {
                throw new UsageError("--scope " + scope + " reads the trace buffers and needs --collectors on");
            }
            try {
                TreeShape shape = TreeShape.parse(scope);
                runScope = new ScopeSettings(shape, gather != null ? GatherMode.parse(gather)
                        : ScopeSettings.defaultGather(shape, spec), FilterSpec.parse(filter != null ? filter : "concat"),
                        scopeIntervalMs != null ? scopeIntervalMs : ScopeSettings.ADAPTIVE);
            } catch (IllegalArgumentException e) {
                throw new UsageError("--scope/--gather/--filter/--scope-interval-ms: " + e.getMessage());
            }
        }
        CollectorSettings settings;
        try {
            settings = new CollectorSettings(new HashSet<>(collectKinds), new HashSet<>(collectTrees), collectorCapacity);
        } catch (IllegalArgumentException e) {
            throw new UsageError("--collect-kinds/--collect-trees/--collector-capacity: " + e.getMessage());
        }
        JobConfig job;
        try {
            job = new JobConfig(spec, jobTransport, timeout, pollMode, socketBufferBytes, collectors.equals("on"),
                    traceDump, settings, runScope);
        } catch (IllegalArgumentException e) {
            throw new UsageError(e.getMessage());
        }
        if (wan != null) {
            job = job.withExtension(wanEmulation(spec));
        }
        if (job.collectors() && collectorCapacity > 0) {
            checkTraceMemory(job);
        }
        return job;
    }

    /** {@code --wan FILE} read and laid over the spec's trees once here, so a file that does not fit is a usage error. */
    private WanEmulation wanEmulation(PathmapSpec spec) {
        WanEmulation emulation;
        try {
            emulation = WanEmulation.read(wan);
        } catch (IllegalArgumentException e) {
            throw new UsageError("--wan: " + e.getMessage());
        }
        try {
            emulation.place(PathmapBuilder.build(spec));
        } catch (IllegalArgumentException e) {
            throw new UsageError("--wan: " + e.getMessage());
        }
        return emulation;
    }

    /**
     * With an explicit {@code --collector-capacity}, the event space's own sizing is bypassed: refuse, before anything
     * starts, a capacity whose buffers would take more than {@link EventSpace#MAX_EXPLICIT_BYTES} on a host.
     */
    private void checkTraceMemory(JobConfig job) {
        Pathmap pathmap = job.pathmap();
        for (int h = 0; h < job.hosts(); h++) {
            int on = CollectorPlacement.countOn(pathmap, h);
            long bytes = on * TraceBufferLayout.bufferLength(collectorCapacity);
            if (bytes > EventSpace.MAX_EXPLICIT_BYTES) {
                throw new UsageError(String.format(java.util.Locale.ROOT, "--collector-capacity %d: host %s has %d collectors, "
                        + "whose buffers would take %.1f MiB, more than the %d MiB an event space may take; use at most %d",
                        collectorCapacity, job.spec().topology().host(h).name(), on, bytes / 1048576.0,
                        EventSpace.MAX_EXPLICIT_BYTES >> 20, largestCapacity(on)));
            }
        }
    }

    /**
     * Refuses, before anything starts, a job this JVM and machine cannot hold (heap, direct buffers, memory mappings,
     * threads, memory: {@link JobFootprint}), naming the flags that size it, what it would need, what there is, and
     * what to change. {@code programFlags} names the run's own flags that add to it (e.g. {@code --bytes 65536}).
     */
    void checkFootprint(JobConfig job, JobFootprint.Program program, String programFlags) {
        checkFootprint(job, program, programFlags, MachineLimits.current());
    }

    void checkFootprint(JobConfig job, JobFootprint.Program program, String programFlags, MachineLimits limits) {
        // The ranks alone first: a job whose threads cannot start is refused before its pathmap is built (seconds and a
        // gigabyte at 700 000 ranks). Only threads and mappings: the ranks alone say little of the heap a job needs.
        JobFootprint footprint = JobFootprint.ofRanks(job, program);
        JobFootprint.Shortfall shortfall = footprint.shortfall(limits)
                .filter(s -> s.resource() == JobFootprint.Resource.THREADS || s.resource() == JobFootprint.Resource.MAPPINGS)
                .orElse(null);
        if (shortfall == null) {
            footprint = JobFootprint.of(job, job.pathmap(), program);
            shortfall = footprint.shortfall(limits).orElse(null);
        }
        if (shortfall == null) {
            return;
        }
        String flags = config != null ? "--config " + config : "--ranks " + ranks + (hosts > 1 ? " --hosts " + hosts : "");
        if (job.transport() == JobTransport.TCP) {
            flags += " --transport tcp";
        }
        String fit = footprint.ranksThatFit(shortfall).stream()
                .mapToObj(n -> String.format(java.util.Locale.ROOT, "; about %d ranks would fit", n)).findFirst().orElse("");
        String heapOption = "-Xmx" + javaSize(shortfall.needed());
        String hint = switch (shortfall.resource()) {
            case HEAP -> "give it more heap (ES_JAVA_OPTS=" + heapOption + " ./eventspace …; the host processes of "
                    + "--transport tcp get the same), use fewer --ranks, or spread them over more --hosts with --transport tcp"
                    + (programFlags.isEmpty() ? "" : "; " + programFlags + " adds to every rank");
            case DIRECT -> "give it more (ES_JAVA_OPTS=-XX:MaxDirectMemorySize=" + javaSize(shortfall.needed())
                    + " ./eventspace …)"
                    + (collectorCapacity > 0 ? ", or a smaller --collector-capacity than " + collectorCapacity : "")
                    + (config != null ? ", or a smaller resultWords in " + config : "");
            case MAPPINGS -> "use fewer ranks per process: fewer --ranks, or more --hosts with --transport tcp (each host "
                    + "process has mappings of its own)" + (job.traceDump() != null ? ", or no --trace-dump" : "");
            case THREADS -> "use fewer --ranks (every process of the job runs on this machine, over --transport tcp too)";
            case MEMORY -> "use fewer --ranks" + (job.transport() == JobTransport.TCP
                    ? " or fewer --hosts (each host process takes at least " + JobFootprint.bytes(
                            footprint.residentBytes() / footprint.processes().size()) + ")" : "");
        };
        throw new UsageError(flags + (programFlags.isEmpty() ? "" : " " + programFlags) + ": "
                + shortfall.describe() + fit + "; " + hint);
    }

    /**
     * A JVM memory size ({@code 353m}, {@code 81g}) a quarter above {@code bytes}: the heap's figure is what its live
     * objects take, and G1 keeps a tenth of it in reserve.
     */
    static String javaSize(long bytes) {
        long mib = (bytes / 4 * 5 >> 20) + 1;
        return mib >= 10 << 10 ? ((mib + 1023) >> 10) + "g" : mib + "m";
    }

    private static int largestCapacity(int collectors) {
        int capacity = TraceBuffer.MIN_CAPACITY;
        while (capacity < TraceBuffer.MAX_CAPACITY
                && collectors * TraceBufferLayout.bufferLength(capacity * 2) <= EventSpace.MAX_EXPLICIT_BYTES) {
            capacity *= 2;
        }
        return capacity;
    }

    /** The pathmap spec: from {@code --config}, or the shortcut flags with {@code --scope-hosts} idle hosts per cluster. */
    private PathmapSpec spec() {
        if (config != null) {
            if (scopeHosts != 0) {
                throw new UsageError("--scope-hosts does not go with --config: give the file hosts that run no ranks, "
                        + "and the scope uses them");
            }
            return ConfigFiles.readPathmap(config);
        }
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
            return JobConfig.shortcut(ranks, hosts, clusters, shape, scopeHosts);
        } catch (IllegalArgumentException e) {
            throw new UsageError("--ranks/--hosts/--clusters: " + e.getMessage());
        }
    }
}
