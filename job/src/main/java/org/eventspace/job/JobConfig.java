package org.eventspace.job;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.launch.CpuBinding;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.Topology;
import org.eventspace.comm.pathmap.TreeShape;
import org.eventspace.comm.runtime.PathExtension;
import org.eventspace.comm.traffic.TrafficScope;
import org.eventspace.events.CollectorPlacement;
import org.eventspace.events.CollectorSettings;
import org.eventspace.scope.ScopeBuilder;

/**
 * A monitored job as configured: its pathmap spec (topology, ranks, trees, mapping), how its hosts come to life, the
 * collective timeout, how TCP hops wait, where its collectors go and whether their trace buffers are kept as files,
 * and the event scope its front-end pulls. Validated once on construction into typed values; immutable.
 *
 * @param spec              the pathmap spec (from flags, a configuration file or the job's environment).
 * @param transport         simulated hosts in one JVM, or one process per host over TCP.
 * @param timeout           how long a collective waits for a missing rank before the job fails.
 * @param poll              how TCP hops wait for a frame.
 * @param socketBufferBytes SO_SNDBUF and SO_RCVBUF of every TCP hop; 0 keeps the OS default.
 * @param collectors        whether every (selected) edge of every tree gets an event collector and every host an event
 *                          space (EventSpace §4.1: all paths are instrumented all the time).
 * @param traceDump         directory the trace buffers are memory-mapped in ({@code host-<id>/}) with
 *                          {@code pathmap.json} beside them, or null for in-memory buffers; absolute; only with
 *                          collectors on.
 * @param collectorSettings around which wrapper kinds and in which trees collectors go, and tuples per buffer.
 * @param scope             the event scope laid over the hosts and pulled while the ranks run, or null for none; needs
 *                          collectors on (its leaves read the trace buffers).
 * @param traffic           which messages the transports count per destination ({@link TrafficScope#parse}: {@code all},
 *                          {@code collectives:…}, {@code phases:…}), or null to count none (ibprof paper §3.2).
 * @param binding           how a launcher binds the job's host processes to CPUs (transport tcp; in one JVM nothing).
 * @param extension         a layer laid over the trees before the collectors (WAN emulation: {@code run --wan}), or null.
 */
public record JobConfig(PathmapSpec spec, JobTransport transport, Duration timeout, PollMode poll, int socketBufferBytes,
                        boolean collectors, Path traceDump, CollectorSettings collectorSettings, ScopeSettings scope,
                        String traffic, CpuBinding binding, PathExtension extension) {
    /** The name of the layout file a trace dump holds next to its {@code host-<id>/} folders. */
    public static final String PATHMAP_FILE = "pathmap.json";
    /** The longest collective timeout: a day. Longer is a typo, and would overflow deadlines in nanoseconds. */
    public static final Duration MAX_TIMEOUT = Duration.ofDays(1);

    public JobConfig {
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(poll, "poll");
        Objects.requireNonNull(collectorSettings, "collectorSettings");
        Objects.requireNonNull(binding, "binding");
        if (timeout.isNegative() || timeout.isZero() || timeout.compareTo(MAX_TIMEOUT) > 0) {
            throw new IllegalArgumentException("timeout must be > 0 and at most " + MAX_TIMEOUT.toHours() + " h, timeout="
                    + timeout);
        }
        if (scope != null && !collectors) {
            throw new IllegalArgumentException("an event scope reads the trace buffers and needs collectors on, scope=" + scope);
        }
        for (int tree : collectorSettings.trees()) {
            if (tree >= spec.trees()) {
                throw new IllegalArgumentException("collectors asked for tree " + tree + " but the pathmap has "
                        + spec.trees() + " trees (0.." + (spec.trees() - 1) + ")");
            }
        }
        if (traceDump != null && !collectors) {
            throw new IllegalArgumentException("a trace dump needs collectors on, traceDump=" + traceDump);
        }
        if (traceDump != null) {
            traceDump = traceDump.toAbsolutePath().normalize();
        }
        if (traffic != null) {
            traffic = TrafficScope.parse(traffic).text();
        }
        if (socketBufferBytes < 0) {
            throw new IllegalArgumentException("socket buffer must be >= 0 bytes (0 = OS default), socketBufferBytes="
                    + socketBufferBytes);
        }
    }

    /** A job with no {@link PathExtension} over its trees. */
    public JobConfig(PathmapSpec spec, JobTransport transport, Duration timeout, PollMode poll, int socketBufferBytes,
                     boolean collectors, Path traceDump, CollectorSettings collectorSettings, ScopeSettings scope,
                     String traffic, CpuBinding binding) {
        this(spec, transport, timeout, poll, socketBufferBytes, collectors, traceDump, collectorSettings, scope, traffic,
                binding, null);
    }

    /** The same job with {@code layer} laid over its trees before its collectors (null: none). */
    public JobConfig withExtension(PathExtension layer) {
        return new JobConfig(spec, transport, timeout, poll, socketBufferBytes, collectors, traceDump, collectorSettings,
                scope, traffic, binding, layer);
    }

    /** A job that counts no traffic, its host processes not bound to CPUs. */
    public JobConfig(PathmapSpec spec, JobTransport transport, Duration timeout, PollMode poll, int socketBufferBytes,
                     boolean collectors, Path traceDump, CollectorSettings collectorSettings, ScopeSettings scope) {
        this(spec, transport, timeout, poll, socketBufferBytes, collectors, traceDump, collectorSettings, scope, null,
                CpuBinding.NONE);
    }

    /** The same job with its transports counting the messages {@code scope} chooses (null: none). */
    public JobConfig withTraffic(String scope) {
        return new JobConfig(spec, transport, timeout, poll, socketBufferBytes, collectors, traceDump, collectorSettings,
                this.scope, scope, binding, extension);
    }

    /** The same job with its host processes bound to CPUs by {@code newBinding} when launched. */
    public JobConfig withBinding(CpuBinding newBinding) {
        return new JobConfig(spec, transport, timeout, poll, socketBufferBytes, collectors, traceDump, collectorSettings,
                scope, traffic, newBinding, extension);
    }

    /** A job over {@code spec}: collectors on every edge, in memory, no scope, 30 s timeout, polling chosen by load. */
    public static JobConfig of(PathmapSpec spec, JobTransport transport) {
        return new JobConfig(spec, transport, Duration.ofSeconds(30), PollMode.AUTO, 0, true, null,
                CollectorSettings.ALL, null);
    }

    /**
     * The usual shortcut: {@code ranks} ranks block-mapped over {@code hosts} hosts in {@code clusters} clusters, two
     * identical trees (gsum alternates between them, dissertation §7.1).
     */
    public static PathmapSpec shortcut(int ranks, int hosts, int clusters, TreeShape shape) {
        if (hosts < 1 || clusters < 1 || hosts % clusters != 0) {
            throw new IllegalArgumentException("hosts must be a positive multiple of clusters, hosts=" + hosts
                    + ", clusters=" + clusters);
        }
        if (ranks < 1) {
            throw new IllegalArgumentException("ranks must be >= 1, ranks=" + ranks);
        }
        if (ranks < hosts) {
            throw new IllegalArgumentException("every host runs at least one rank: " + hosts + " hosts need >= " + hosts
                    + " ranks, ranks=" + ranks + " (hosts that run no ranks are --scope-hosts)");
        }
        int cpus = Math.max(1, (ranks + hosts - 1) / hosts);
        return PathmapSpec.of(Topology.simulated(clusters, hosts / clusters, cpus), ranks, 2, shape);
    }

    /**
     * The shortcut with {@code idlePerCluster} more hosts in every cluster that run no ranks — resources an event
     * scope may use ({@link ScopeSettings#toSpec}); the ranks are block-mapped over the other hosts.
     */
    public static PathmapSpec shortcut(int ranks, int hosts, int clusters, TreeShape shape, int idlePerCluster) {
        PathmapSpec busy = shortcut(ranks, hosts, clusters, shape);
        if (idlePerCluster < 0) {
            throw new IllegalArgumentException("idle hosts per cluster must be >= 0, idlePerCluster=" + idlePerCluster);
        }
        if (idlePerCluster == 0) {
            return busy;
        }
        int perCluster = hosts / clusters;
        int cpus = busy.topology().host(0).cpus();
        Topology topology = Topology.simulated(clusters, perCluster + idlePerCluster, cpus);
        int[] mapping = busy.rankHosts();
        for (int r = 0; r < mapping.length; r++) {
            int cluster = mapping[r] / perCluster;
            mapping[r] = cluster * (perCluster + idlePerCluster) + mapping[r] % perCluster;
        }
        return new PathmapSpec(topology, ranks, busy.trees(), shape, Map.of(), mapping, 0, PathmapSpec.DEFAULT_RESULT_WORDS);
    }

    /** The pathmap the job uses: the spec's trees, the extension's rewrite of them, a collector on every selected edge, then the event scope's nodes. */
    public Pathmap pathmap() {
        Pathmap trees = PathmapBuilder.build(spec);
        Pathmap plain = extension == null ? trees : extension.place(trees);
        Pathmap traced = collectors ? CollectorPlacement.place(plain, collectorSettings) : plain;
        return scope != null ? ScopeBuilder.add(traced, scope.toSpec(timeout, spec)) : traced;
    }

    public int ranks() {
        return spec.ranks();
    }

    public int hosts() {
        return spec.topology().size();
    }

    /** The same job with collectors on or off (no trace dump and no scope when off: both read the collectors). */
    public JobConfig withCollectors(boolean on) {
        return new JobConfig(spec, transport, timeout, poll, socketBufferBytes, on, on ? traceDump : null,
                collectorSettings, on ? scope : null, traffic, binding, extension);
    }

    public JobConfig withCollectorSettings(CollectorSettings settings) {
        return new JobConfig(spec, transport, timeout, poll, socketBufferBytes, collectors, traceDump, settings, scope,
                traffic, binding, extension);
    }

    /** The same job with event scope {@code newScope} (null: none). */
    public JobConfig withScope(ScopeSettings newScope) {
        return new JobConfig(spec, transport, timeout, poll, socketBufferBytes, collectors, traceDump, collectorSettings,
                newScope, traffic, binding, extension);
    }

    public JobConfig withTraceDump(Path dir) {
        return new JobConfig(spec, transport, timeout, poll, socketBufferBytes, collectors, dir, collectorSettings, scope,
                traffic, binding, extension);
    }

    public JobConfig withTimeout(Duration newTimeout) {
        return new JobConfig(spec, transport, newTimeout, poll, socketBufferBytes, collectors, traceDump, collectorSettings,
                scope, traffic, binding, extension);
    }

    public JobConfig withTransport(JobTransport newTransport) {
        return new JobConfig(spec, newTransport, timeout, poll, socketBufferBytes, collectors, traceDump, collectorSettings,
                scope, traffic, binding, extension);
    }

    /** Directory of host {@code host}'s trace files under a dump directory. */
    public static Path hostDirectory(Path traceDump, int host) {
        return traceDump.resolve("host-" + host);
    }
}
