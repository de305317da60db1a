package org.eventspace.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.eventspace.events.CollectorPlacement;
import org.eventspace.events.CollectorSettings;
import org.eventspace.scope.ScopeBuilder;

import org.eventspace.comm.pathmap.PathmapBuilder;
import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapSpec;
import org.eventspace.comm.pathmap.Topology;
import org.eventspace.comm.pathmap.TreeShape;

/**
 * One benchmark run, validated: what to run, on how many ranks and hosts, over which transport and tree.
 *
 * @param spec        the pathmap spec the run uses (from flags or a configuration file).
 * @param transport   {@code jvm} (simulated hosts in one process) or {@code tcp} (one process per host).
 * @param iterations  timed iterations.
 * @param warmup      untimed iterations before them (JIT, connections, caches), repeated until...
 * @param warmupTime  ...this much time has passed on every rank.
 * @param timeout     how long a collective may wait for a missing rank before the run fails.
 * @param payloadWords words per allreduce (1 = the 8-byte value of gsum) or per ping-pong message.
 * @param poll        how TCP hops wait for a frame: {@code spin} (busy-poll the socket, then yield, then block),
 *                    {@code yield} (poll with a yield between reads, then block), {@code block}, or {@code auto}
 *                    (spin if every rank and service thread of the job has a core, else yield).
 * @param socketBufferBytes SO_SNDBUF and SO_RCVBUF of every TCP hop; 0 keeps the OS default.
 * @param collectors  whether every edge of every tree gets an event collector ({@link CollectorPlacement}) and
 *                    every host an event space (issue 3: on unless turned off).
 * @param traceDump   directory the trace buffers are memory-mapped in ({@code host-<id>/}) and
 *                    {@code pathmap.json} is written to, or null for in-memory buffers; absolute, and only
 *                    with collectors on.
 * @param collectorSettings with collectors on, around which wrapper kinds and in which trees they go and how
 *                    many tuples each buffer holds ({@link CollectorSettings#ALL}: every edge, the default).
 * @param sortLength  compute-gsum: ints each iteration sorts; 0 calibrates it in the warm-up so a sort takes
 *                    about as long as an allreduce. A fixed length makes two runs do equal work (the off and
 *                    on runs of {@code bench overhead}).
 * @param scope       the event scope laid over the hosts and pulled while the ranks run, or null for none; needs
 *                    collectors on (its leaves read the trace buffers).
 */
public record RunConfig(Benchmark benchmark, PathmapSpec spec, String transport, int iterations, int warmup,
                        Duration warmupTime, Duration timeout, int payloadWords, String poll, int socketBufferBytes,
                        boolean collectors, Path traceDump, CollectorSettings collectorSettings,
                        int sortLength, RunScope scope) {
    /** Long enough for the JIT's background compiles of the hot path to finish on this 2-core machine. */
    public static final Duration DEFAULT_WARMUP_TIME = Duration.ofSeconds(1);

    public RunConfig(Benchmark benchmark, PathmapSpec spec, String transport, int iterations, int warmup,
                     Duration timeout, int payloadWords) {
        this(benchmark, spec, transport, iterations, warmup, DEFAULT_WARMUP_TIME, timeout, payloadWords, "auto", 0);
    }

    /** Collectors on, buffers in memory. */
    public RunConfig(Benchmark benchmark, PathmapSpec spec, String transport, int iterations, int warmup,
                     Duration warmupTime, Duration timeout, int payloadWords, String poll, int socketBufferBytes) {
        this(benchmark, spec, transport, iterations, warmup, warmupTime, timeout, payloadWords, poll, socketBufferBytes,
                true, null);
    }

    /** Calibrated sort length. */
    public RunConfig(Benchmark benchmark, PathmapSpec spec, String transport, int iterations, int warmup,
                     Duration warmupTime, Duration timeout, int payloadWords, String poll, int socketBufferBytes,
                     boolean collectors, Path traceDump) {
        this(benchmark, spec, transport, iterations, warmup, warmupTime, timeout, payloadWords, poll, socketBufferBytes,
                collectors, traceDump, CollectorSettings.ALL, 0, null);
    }

    public RunConfig {
        if (scope != null && !collectors) {
            throw new IllegalArgumentException("an event scope reads the trace buffers and needs collectors on, scope=" + scope);
        }
        java.util.Objects.requireNonNull(collectorSettings, "collectorSettings");
        for (int tree : collectorSettings.trees()) {
            if (tree >= spec.trees()) {
                throw new IllegalArgumentException("collectors asked for tree " + tree + " but the pathmap has "
                        + spec.trees() + " trees (0.." + (spec.trees() - 1) + ")");
            }
        }
        if (sortLength < 0 || sortLength > IntegerSort.MAX_LENGTH) {
            throw new IllegalArgumentException("sort length must be 0 (calibrate) or 1.." + IntegerSort.MAX_LENGTH
                    + " ints, sortLength=" + sortLength);
        }
        if (traceDump != null && !collectors) {
            throw new IllegalArgumentException("a trace dump needs collectors on, traceDump=" + traceDump);
        }
        if (traceDump != null) {
            traceDump = traceDump.toAbsolutePath().normalize();
        }
        if (socketBufferBytes < 0) {
            throw new IllegalArgumentException("socket buffer must be >= 0 bytes (0 = OS default), socketBufferBytes="
                    + socketBufferBytes);
        }
        if (!List.of("auto", "spin", "yield", "block").contains(poll)) {
            throw new IllegalArgumentException("poll must be auto, spin, yield or block, poll=" + poll);
        }
        if (!transport.equals("jvm") && !transport.equals("tcp")) {
            throw new IllegalArgumentException("transport must be jvm or tcp, transport=" + transport);
        }
        if (iterations < 1) {
            throw new IllegalArgumentException("iterations must be >= 1, iterations=" + iterations);
        }
        if (warmup < 1) {
            throw new IllegalArgumentException("warm-up must be >= 1 iteration, warmup=" + warmup);
        }
        if (warmupTime.isNegative()) {
            throw new IllegalArgumentException("warm-up time must be >= 0, warmupTime=" + warmupTime);
        }
        if (payloadWords < 1) {
            throw new IllegalArgumentException("payload must be >= 1 word, words=" + payloadWords);
        }
        if (benchmark == Benchmark.PINGPONG && spec.ranks() < 2) {
            throw new IllegalArgumentException("pingpong needs at least 2 ranks, ranks=" + spec.ranks());
        }
    }

    /**
     * The shortcut with {@code idlePerCluster} more hosts in every cluster that run no ranks — resources an event
     * scope may use ({@link RunScope#toSpec}); the ranks are block-mapped over the other hosts.
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
        return new PathmapSpec(topology, ranks, busy.trees(), shape, java.util.Map.of(), mapping, 0,
                PathmapSpec.DEFAULT_RESULT_WORDS);
    }

    /** The usual shortcut: {@code ranks} ranks block-mapped over {@code hosts} hosts in {@code clusters} clusters, 2 trees. */
    public static PathmapSpec shortcut(int ranks, int hosts, int clusters, TreeShape shape) {
        if (hosts < 1 || clusters < 1 || hosts % clusters != 0) {
            throw new IllegalArgumentException("hosts must be a positive multiple of clusters, hosts=" + hosts
                    + ", clusters=" + clusters);
        }
        if (ranks < 1) {
            throw new IllegalArgumentException("ranks must be >= 1, ranks=" + ranks);
        }
        int cpus = Math.max(1, (ranks + hosts - 1) / hosts);
        return PathmapSpec.of(Topology.simulated(clusters, hosts / clusters, cpus), ranks, 2, shape);
    }

    /** The pathmap the run uses: the spec's trees, with a collector on every edge when collectors are on. */
    public Pathmap pathmap() {
        Pathmap plain = PathmapBuilder.build(spec);
        Pathmap traced = collectors ? CollectorPlacement.place(plain, collectorSettings) : plain;
        return scope != null ? ScopeBuilder.add(traced, scope.toSpec(timeout, spec)) : traced;
    }

    /** The same run with collectors on or off (and no trace dump when off). */
    public RunConfig withCollectors(boolean on) {
        return new RunConfig(benchmark, spec, transport, iterations, warmup, warmupTime, timeout, payloadWords, poll,
                socketBufferBytes, on, on ? traceDump : null, collectorSettings, sortLength, on ? scope : null);
    }

    /** The same run with compute-gsum sorting {@code length} ints (0: calibrate). */
    public RunConfig withSortLength(int length) {
        return new RunConfig(benchmark, spec, transport, iterations, warmup, warmupTime, timeout, payloadWords, poll,
                socketBufferBytes, collectors, traceDump, collectorSettings, length, scope);
    }

    /** The same run with collectors placed by {@code settings}. */
    public RunConfig withCollectorSettings(CollectorSettings settings) {
        return new RunConfig(benchmark, spec, transport, iterations, warmup, warmupTime, timeout, payloadWords, poll,
                socketBufferBytes, collectors, traceDump, settings, sortLength, scope);
    }

    /** The same run with event scope {@code newScope} (null: none). */
    public RunConfig withScope(RunScope newScope) {
        return new RunConfig(benchmark, spec, transport, iterations, warmup, warmupTime, timeout, payloadWords, poll,
                socketBufferBytes, collectors, traceDump, collectorSettings, sortLength, newScope);
    }

    public int ranks() {
        return spec.ranks();
    }

    public int hosts() {
        return spec.topology().size();
    }
}
