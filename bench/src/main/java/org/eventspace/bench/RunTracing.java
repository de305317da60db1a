package org.eventspace.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.eventspace.comm.pathmap.Pathmap;
import org.eventspace.comm.pathmap.PathmapDescription;
import org.eventspace.comm.runtime.CommOptions;
import org.eventspace.comm.runtime.WrapperKinds;
import org.eventspace.events.PointToPointCollectors;
import org.eventspace.scope.ScopeHost;
import org.eventspace.scope.ScopeKinds;
import org.eventspace.events.CollectorKind;
import org.eventspace.events.CollectorPlacement;
import org.eventspace.events.EventSpace;
import org.eventspace.events.TraceBudget;

/**
 * The event spaces of the hosts this process runs in a run with collectors on: one per host, in memory or
 * memory-mapped in {@code <traceDump>/host-<id>/}, sized by {@link TraceBudget} under the default budget; the
 * {@code collector} wrapper kind that writes into them; and the timed-window snapshots of how many tuples they
 * took. Not thread-safe, except {@link #started} and {@link #ended}, which every rank thread calls.
 */
final class RunTracing implements RankBenchmarks.TimedWindow, AutoCloseable {
    static final String PATHMAP_FILE = "pathmap.json";

    private final Pathmap pathmap;
    private final Map<Integer, EventSpace> spaces = new LinkedHashMap<>();
    private final int ranks;
    private final AtomicInteger started = new AtomicInteger();
    private final AtomicInteger ended = new AtomicInteger();
    private final Map<Integer, long[]> snapshots = new LinkedHashMap<>();

    private RunTracing(Pathmap pathmap, int ranks) {
        this.pathmap = pathmap;
        this.ranks = ranks;
    }

    /** Directory of host {@code host}'s trace files under a dump directory. */
    static Path hostDirectory(Path traceDump, int host) {
        return traceDump.resolve("host-" + host);
    }

    /**
     * Opens the event spaces of {@code hosts}; the timed window closes once {@code ranks} ranks of this process
     * started (and ended) their timed iterations. Trace files a previous run left in a host's directory are
     * removed first, so a dump never mixes two runs.
     */
    static RunTracing open(RunConfig config, Pathmap pathmap, List<Integer> hosts, int ranks) {
        RunTracing tracing = new RunTracing(pathmap, ranks);
        try {
            for (int host : hosts) {
                Path dir = null;
                if (config.traceDump() != null) {
                    dir = hostDirectory(config.traceDump(), host);
                    removeTraceFiles(dir);
                }
                tracing.spaces.put(host, TraceBudget.open(pathmap, host, dir, EventSpace.DEFAULT_BUDGET_BYTES));
                tracing.snapshots.put(host, new long[] {-1, -1});
            }
        } catch (IOException e) {
            tracing.close(true);
            throw new UncheckedIOException("cannot create the trace files under " + config.traceDump() + ": " + e.getMessage(), e);
        }
        return tracing;
    }

    private static void removeTraceFiles(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (DirectoryStream<Path> old = Files.newDirectoryStream(dir, "*.trace")) {
            for (Path file : old) {
                Files.delete(file);
            }
        }
    }

    /**
     * {@code options} with the {@code collector} kind writing into these event spaces and, when the pathmap has an
     * event scope, the scope's kinds reading them.
     */
    CommOptions apply(CommOptions options) {
        WrapperKinds kinds = WrapperKinds.builtIn().with(new CollectorKind(host -> spaces.get(host.host())))
                .withPointToPoint(new PointToPointCollectors(host -> spaces.get(host.host())));
        return options.withKinds(ScopeKinds.with(kinds, host -> ScopeHost.of(spaces.get(host.host()))));
    }

    @Override
    public void started(int rank) {
        if (started.incrementAndGet() == ranks) {
            snapshot(0);
        }
    }

    @Override
    public void ended(int rank) {
        if (ended.incrementAndGet() == ranks) {
            snapshot(1);
        }
    }

    private void snapshot(int end) {
        synchronized (snapshots) {
            for (Map.Entry<Integer, EventSpace> e : spaces.entrySet()) {
                snapshots.get(e.getKey())[end] = e.getValue().tuplesWritten();
            }
        }
    }

    /** What each host's space recorded; call once the ranks returned. */
    List<HostTrace> results() {
        List<HostTrace> list = new ArrayList<>();
        synchronized (snapshots) {
            for (Map.Entry<Integer, EventSpace> e : spaces.entrySet()) {
                long[] s = snapshots.get(e.getKey());
                EventSpace space = e.getValue();
                list.add(new HostTrace(e.getKey(), CollectorPlacement.countOn(pathmap, e.getKey()), space.tuplesWritten(),
                        s[0] >= 0 && s[1] >= 0 ? s[1] - s[0] : -1, space.bytesAllocated()));
            }
        }
        return list;
    }

    /** Writes {@code pathmap.json} (the layout with its collectors, {@link PathmapDescription#toJson}) into {@code traceDump}. */
    static void writePathmap(Path traceDump, Pathmap pathmap) {
        try {
            Files.createDirectories(traceDump);
            Files.writeString(traceDump.resolve(PATHMAP_FILE), PathmapDescription.toJson(pathmap));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + traceDump.resolve(PATHMAP_FILE) + ": " + e.getMessage(), e);
        }
    }

    /**
     * Unmaps every buffer (the files stay: they are the dump). {@code writersStopped} must say that no rank or
     * service thread can still write — a write into an unmapped buffer crashes the JVM; when false the buffers
     * stay mapped until the process exits (a mapped file's pages reach it either way).
     */
    void close(boolean writersStopped) {
        if (writersStopped) {
            spaces.values().forEach(EventSpace::close);
        }
    }

    @Override
    public void close() {
        close(true);
    }
}
