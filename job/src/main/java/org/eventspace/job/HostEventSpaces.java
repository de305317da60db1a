package org.eventspace.job;

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
import org.eventspace.events.CollectorKind;
import org.eventspace.events.CollectorPlacement;
import org.eventspace.events.EventSpace;
import org.eventspace.events.PointToPointCollectors;
import org.eventspace.events.TraceBudget;
import org.eventspace.scope.ResultBoard;
import org.eventspace.scope.ScopeHost;
import org.eventspace.scope.ScopeKinds;

/**
 * The event spaces of the hosts this process runs, in a job with collectors on: one per host, in memory or
 * memory-mapped in {@code <traceDump>/host-<id>/}, sized by {@link TraceBudget} under the default budget; the one
 * place where the {@code collector} wrapper kind (tree paths and point-to-point paths) and the event scope's kinds are
 * wired to them; and the timed-window snapshots of how many tuples they took. Not thread-safe, except
 * {@link #started} and {@link #ended}, which every rank thread calls.
 */
final class HostEventSpaces implements TimedWindow, AutoCloseable {
    private final Pathmap pathmap;
    private final Map<Integer, EventSpace> spaces = new LinkedHashMap<>();
    /** Each host's result element, where its analysis threads publish for a scope with a result filter. */
    private final Map<Integer, ResultBoard> boards = new LinkedHashMap<>();
    private final int ranks;
    private final AtomicInteger started = new AtomicInteger();
    private final AtomicInteger ended = new AtomicInteger();
    private final Map<Integer, long[]> snapshots = new LinkedHashMap<>();

    private HostEventSpaces(Pathmap pathmap, int ranks) {
        this.pathmap = pathmap;
        this.ranks = ranks;
    }

    /**
     * Opens the event spaces of {@code hosts}; the timed window closes once {@code ranks} ranks of this process
     * started (and ended) their timed iterations. Trace files a previous run left in a host's directory are
     * removed first, so a dump never mixes two runs.
     */
    static HostEventSpaces open(JobConfig config, Pathmap pathmap, List<Integer> hosts, int ranks) {
        HostEventSpaces opened = new HostEventSpaces(pathmap, ranks);
        try {
            for (int host : hosts) {
                Path dir = null;
                if (config.traceDump() != null) {
                    dir = JobConfig.hostDirectory(config.traceDump(), host);
                    removeTraceFiles(dir);
                }
                opened.spaces.put(host, TraceBudget.open(pathmap, host, dir, EventSpace.DEFAULT_BUDGET_BYTES));
                opened.boards.put(host, new ResultBoard(host));
                opened.snapshots.put(host, new long[] {-1, -1});
            }
        } catch (IOException e) {
            opened.close(true);
            throw new UncheckedIOException("cannot create the trace files under " + config.traceDump() + ": " + e.getMessage(), e);
        }
        return opened;
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

    /** The event space of {@code host}, one this process runs. */
    EventSpace space(int host) {
        EventSpace space = spaces.get(host);
        if (space == null) {
            throw new IllegalArgumentException("host " + host + " is not run by this process; hosts here: " + spaces.keySet());
        }
        return space;
    }

    /** The result board of {@code host}, one this process runs. */
    ResultBoard board(int host) {
        space(host);
        return boards.get(host);
    }

    /**
     * {@code options} with the {@code collector} kind writing into these event spaces (on the pathmap's edges and on
     * the point-to-point paths hosts build on demand) and, when the pathmap has an event scope, the scope's kinds
     * reading them.
     */
    CommOptions apply(CommOptions options) {
        WrapperKinds kinds = WrapperKinds.builtIn().with(new CollectorKind(host -> spaces.get(host.host())))
                .withPointToPoint(new PointToPointCollectors(host -> spaces.get(host.host())));
        return options.withKinds(ScopeKinds.with(kinds, host -> new ScopeHost(spaces.get(host.host()), null,
                boards.get(host.host()))));
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

    /** What each host's space recorded so far; exact once the ranks and service threads stopped writing. */
    List<HostTrace> results() {
        List<HostTrace> list = new ArrayList<>();
        synchronized (snapshots) {
            for (Map.Entry<Integer, EventSpace> e : spaces.entrySet()) {
                long[] s = snapshots.get(e.getKey());
                EventSpace space = e.getValue();
                long overwritten = 0;
                for (EventSpace.Entry buffer : space.entries()) {
                    overwritten += Math.max(0, buffer.buffer().writePosition() - buffer.buffer().capacity());
                }
                list.add(new HostTrace(e.getKey(), CollectorPlacement.countOn(pathmap, e.getKey()), space.tuplesWritten(),
                        s[0] >= 0 && s[1] >= 0 ? s[1] - s[0] : -1, space.bytesAllocated(), overwritten));
            }
        }
        return list;
    }

    /**
     * Writes {@code pathmap.json} (the layout with its collectors, {@link PathmapDescription#toJson}) into
     * {@code traceDump}: before the job starts, so that whatever ends the job, the trace files it leaves can be read.
     */
    static void writePathmap(Path traceDump, Pathmap pathmap) {
        try {
            Files.createDirectories(traceDump);
            Path file = traceDump.resolve(JobConfig.PATHMAP_FILE);
            Path partial = traceDump.resolve(JobConfig.PATHMAP_FILE + ".partial");
            Files.writeString(partial, PathmapDescription.toJson(pathmap));
            Files.move(partial, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + traceDump.resolve(JobConfig.PATHMAP_FILE) + ": " + e.getMessage(), e);
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
